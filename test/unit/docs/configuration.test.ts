import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLATFORM_SETTINGS } from '../../../functions/platform/env';
import { CONFIGURATION_DOC, configurationDoc } from '../../../lib/configuration-doc';
import { LOCAL_HOST_SETTINGS } from '../../../lib/local/settings';

// docs/configuration.md is written from the settings' schemas: a setting added, removed or
// changed without `npm run docs:config` fails here.

it('is what `npm run docs:config` writes from the schemas today', () => {
  expect(readFileSync(join(__dirname, '../../..', CONFIGURATION_DOC), 'utf8')).toBe(configurationDoc());
});

it('has a row for every setting, each once', () => {
  const rows = configurationDoc()
    .split('\n')
    .map((line) => /^\| `([A-Z0-9_]+)` \|/.exec(line)?.[1])
    .filter(Boolean);
  expect(rows.sort()).toEqual([...Object.keys(PLATFORM_SETTINGS), ...Object.keys(LOCAL_HOST_SETTINGS)].sort());
});

it("gives both defaults where local mode's differs from AWS's", () => {
  const row = configurationDoc()
    .split('\n')
    .find((line) => line.startsWith('| `SANDBOX_RECIPIENTS` |'));
  expect(row).toContain('| `any` locally, `authorized` on AWS | `authorized` or `any` |');
});
