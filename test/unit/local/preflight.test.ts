import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// `npm start` and `npm test` run bin/preflight.mjs first: on a Node older than package.json's
// engines it stops with one line saying what to run. An older Node is simulated by a copy of the
// script beside a package.json asking for a newer one than this.
const SCRIPT = join(__dirname, '../../../bin/preflight.mjs');

function preflight(engines: string, event: string) {
  const root = mkdtempSync(join(tmpdir(), 'mailplane-preflight-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(SCRIPT, join(root, 'bin', 'preflight.mjs'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ engines: { node: engines } }));
    writeFileSync(join(root, '.nvmrc'), '99\n');
    return spawnSync(process.execPath, [join(root, 'bin', 'preflight.mjs')], { env: { ...process.env, npm_lifecycle_event: event }, encoding: 'utf8' });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

it('stops a Node older than the engines with one line saying what to run instead', () => {
  const { status, stdout, stderr } = preflight('>=99', 'pretest');
  expect(status).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toBe(
    `Mailplane needs Node 99 or later, and this is Node ${process.versions.node}: run \`npx -y -p node@99 npm test\` (Node 99 from the npm registry, as Lambda runs), or install Node 99 (.nvmrc).\n`,
  );
});

it('lets the Node the project asks for through, silently', () => {
  expect(preflight(`>=${process.versions.node.split('.')[0]}`, 'prestart')).toMatchObject({ status: 0, stdout: '', stderr: '' });
});

it("asks the project's own package.json for what the engines allow", () => {
  // This very checkout: whatever Node runs its tests is one it allows.
  expect(spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
});
