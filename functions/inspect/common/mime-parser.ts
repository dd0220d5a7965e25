/**
 * mailparser for `mime` input, required on first use by inspect-input.ts. In Lambda it is a side
 * bundle beside index.js (lib/side-bundles.ts), so checks given `html` never load it.
 */
export { simpleParser } from '../../storage/mime-parser';
