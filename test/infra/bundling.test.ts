import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { PLATFORM_BUNDLING } from '../../lib/constructs/platform-function';
import { esbuildOptionsOf } from '../../lib/esbuild-options';
import { REPO_ROOT } from '../../lib/paths';

// Local mode runs the TypeScript sources; Lambda runs esbuild bundles. Code that reads files beside
// its module behaves differently once bundled, so it is run here as Lambda would run it.

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailplane-bundle-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Bundles `source` (resolved from the repository root) as every platform function is, and runs it. */
async function runBundled(source: string): Promise<string> {
  const outfile = path.join(dir, `${path.basename(dir)}-${Date.now()}.js`);
  await build({ ...esbuildOptionsOf(PLATFORM_BUNDLING), stdin: { contents: source, resolveDir: REPO_ROOT, loader: 'ts' }, outfile, logLevel: 'silent' });
  return execFileSync(process.execPath, [outfile], { cwd: dir, encoding: 'utf8' });
}

test('geolocation places IPv4 addresses inside a Lambda bundle, where its table has no file beside it', async () => {
  const out = await runBundled(
    "import { geolocate } from './functions/analytics/geolocation';\n" +
      "process.stdout.write(JSON.stringify(['8.8.8.8', '81.2.69.142', '10.0.0.1', '2001:db8::1'].map((ip) => geolocate(ip).country)));",
  );
  expect(JSON.parse(out)).toEqual(['US', 'GB', 'Unknown', 'Unknown']);
}, 60_000);

test('templates compile, render and are checked inside a Lambda bundle, where handlebars is required on first use', async () => {
  const out = await runBundled(
    "import { compileHtml, templateProblem } from './functions/templates/handlebars-dialect';\n" +
      "process.stdout.write(JSON.stringify([compileHtml('<p>{{name}}</p>{{#if (equal n 1)}}one{{/if}}')({ name: '<b>', n: 1 }), templateProblem('{{> footer}}'), templateProblem('{{format x}}')]));",
  );
  expect(JSON.parse(out)).toEqual(['<p>&lt;b&gt;</p>one', 'partials are not supported', 'unknown helper format: templates may use if, unless, each, with, lookup and equal']);
}, 60_000);
