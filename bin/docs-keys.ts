import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accessPatternTable } from '../functions/entities';

/** `npm run docs:keys`: rewrites docs/access-patterns.md from the key registry. */
const ACCESS_PATTERNS_DOC = 'docs/access-patterns.md';
writeFileSync(join(__dirname, '..', ACCESS_PATTERNS_DOC), accessPatternTable());
process.stdout.write(`Wrote ${ACCESS_PATTERNS_DOC}\n`);
