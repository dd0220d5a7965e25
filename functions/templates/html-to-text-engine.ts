/**
 * html-to-text, as text-part.ts requires it on first use. In the messages Lambda this is a bundle
 * of its own beside index.js (lib/side-bundles.ts): only sends with `t:text=yes` convert HTML to
 * text, and html-to-text with its HTML parser and entity tables was a fifth of that bundle. Runs
 * from source (local mode, tests) take it as an ordinary module.
 */
export { convert } from 'html-to-text';
