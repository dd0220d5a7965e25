/**
 * mailparser, as the storage Lambda requires it on first use (stored-message.ts). In Lambda this is
 * a bundle of its own beside index.js (lib/side-bundles.ts): mailparser and its charset tables are
 * over 1.2 MB of the storage bundle, which Node would otherwise read and parse at every cold start
 * although only the JSON form of a stored message needs them. Run from source, it is an ordinary module.
 */
export { simpleParser } from 'mailparser';
