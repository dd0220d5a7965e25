/** html-to-text with its HTML parser and entity tables, loaded by lazy-modules.ts on first use. */
export { convert } from 'html-to-text';
