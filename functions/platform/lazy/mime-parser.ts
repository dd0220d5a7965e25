/** mailparser (over 1.2 MB with its charset tables), loaded by lazy-modules.ts on first use. */
export { simpleParser } from 'mailparser';
