/**
 * busboy, as body.ts requires it on the first multipart/form-data body. In every API Lambda this is
 * a bundle of its own beside index.js (lib/side-bundles.ts): requests without a multipart body
 * (reads, JSON, url-encoded forms) never need it, so Node does not read and parse it at every cold
 * start. Run from source, it is an ordinary module.
 */
export { default as busboy } from 'busboy';
