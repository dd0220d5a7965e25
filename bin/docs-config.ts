import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CONFIGURATION_DOC, configurationDoc } from '../lib/configuration-doc';

/** `npm run docs:config`: rewrites docs/configuration.md from the settings' schemas. */
const path = join(__dirname, '..', CONFIGURATION_DOC);
mkdirSync(dirname(path), { recursive: true });
writeFileSync(path, configurationDoc());
process.stdout.write(`Wrote ${CONFIGURATION_DOC}\n`);
