/** re2js (about 150 KB), loaded by lazy-modules.ts on first use. */
export { RE2JS } from 're2js';
