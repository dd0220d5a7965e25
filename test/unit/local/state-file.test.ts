import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeStateFile } from '../../../lib/local/state-file';

const STATE_FILE_MODULE = join(__dirname, '..', '..', '..', 'lib', 'local', 'state-file.ts');

/** A process that rewrites a large state file in a loop until it is killed, as a busy queue does. */
function writerLoop(file: string): ReturnType<typeof spawn> {
  const script = `
    const { writeStateFile } = require(${JSON.stringify(STATE_FILE_MODULE)});
    const state = (n) => JSON.stringify({ n, messages: Array.from({ length: 20000 }, (_, i) => ({ id: i, body: 'x'.repeat(80) })) });
    let n = 0;
    writeStateFile(${JSON.stringify(file)}, state(n));
    process.stdout.write('ready\\n');
    for (;;) writeStateFile(${JSON.stringify(file)}, state(++n));
  `;
  return spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

it('leaves the previous whole state, never a torn file, when the writing process is killed mid-write', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'state-file-')), 'queue-send.json');
  for (let kill = 0; kill < 5; kill++) {
    const writer = writerLoop(file);
    await new Promise<void>((resolve) => writer.stdout!.once('data', () => resolve()));
    // Killed at a different point of its loop each time: most of the loop is spent writing.
    await new Promise((resolve) => setTimeout(resolve, 20 + kill * 37));
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    writer.kill('SIGKILL');
    await exited;
    expect(() => JSON.parse(readFileSync(file, 'utf8'))).not.toThrow();
  }
});

it('writes the file readable by its owner only', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'state-file-')), 'state.json');
  writeStateFile(file, '{}');
  expect(readFileSync(file, 'utf8')).toBe('{}');
  expect(statSync(file).mode & 0o777).toBe(0o600);
});
