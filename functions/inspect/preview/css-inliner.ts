/**
 * juice, as content-variants.ts requires it on first use: in the preview Lambda a bundle of its
 * own beside index.js (lib/side-bundles.ts), since only `content/inlinecss` inlines CSS and juice
 * brings cheerio with it.
 */
export { default as juice } from 'juice';
