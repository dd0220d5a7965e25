/**
 * re2js, as expressions.ts requires it on the first pattern compiled. In the routes API Lambda this
 * is a bundle of its own beside index.js (lib/side-bundles.ts): about 150 KB that listing, reading
 * and deleting routes never use. Run from source, or bundled into the inbound workers, it is this module.
 */
export { RE2JS } from 're2js';
