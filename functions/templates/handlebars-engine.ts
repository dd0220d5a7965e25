/**
 * handlebars, as handlebars-dialect.ts requires it on first use. In the templates Lambda this is a
 * bundle of its own beside index.js (lib/side-bundles.ts), so template reads do not read and parse
 * it at cold start; other bundles (messages) and runs from source take it as an ordinary module.
 */
import Handlebars from 'handlebars';

export default Handlebars;
