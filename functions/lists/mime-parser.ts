/**
 * mailparser for list posts of whole MIME messages (inbound-post.ts requires it on first use). In
 * the messages Lambda the storage area's mime-parser bundle stands beside index.js under this
 * name (lib/side-bundles.ts); run from source, or bundled into other Lambdas, it is this module.
 */
export { simpleParser } from '../storage/mime-parser';
