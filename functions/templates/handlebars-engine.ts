/**
 * handlebars, as handlebars-dialect.ts requires it on first use. In the templates and messages
 * Lambdas this is a bundle of its own beside index.js (lib/side-bundles.ts), so template reads and
 * sends without a template do not read and parse it at cold start; runs from source (local mode,
 * tests) take it as an ordinary module.
 */
import Handlebars from 'handlebars';

export default Handlebars;
