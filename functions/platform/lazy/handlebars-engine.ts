/** handlebars (about a tenth of a templating Lambda's cold start), loaded by lazy-modules.ts on first use. */
import Handlebars from 'handlebars';

export default Handlebars;
