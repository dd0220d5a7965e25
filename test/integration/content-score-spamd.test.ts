import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { scoreWith } from '../../functions/optimize/inbox/content-score';
import { PATIENCE_MS } from '../support/eventually';

// The placement content score against a real SpamAssassin spamd (Debian's `spamd`), started here
// on a free loopback port. spamd is an optional sidecar the operator installs, not an npm package:
// where it is not installed this suite is skipped, and says so.
const installed = spawnSync('spamd', ['--version']).status === 0;
if (!installed) process.stderr.write('content-score-spamd: spamd is not installed (apt-get install spamd): skipped\n');
const describeWithSpamd = installed ? describe : describe.skip;

const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';
const message = (body: string) => Buffer.from(`From: Ann <ann@example.com>\r\nTo: bob@example.com\r\nSubject: Meeting notes\r\nMessage-ID: <20261126120000.a1b2c3d4e5f6@mail.example.com>\r\nDate: Thu, 26 Nov 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listening(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => connect(port, '127.0.0.1').on('connect', function (this: import('node:net').Socket) { this.destroy(); resolve(true); }).on('error', () => resolve(false)));
    if (open) return;
    if (Date.now() > until) throw new Error('spamd did not start listening');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describeWithSpamd('content score from spamd', () => {
  let spamd: ChildProcess;
  let address = '';

  beforeAll(async () => {
    const port = await freePort();
    address = `127.0.0.1:${port}`;
    // No user preferences and one child: the score depends on the message alone.
    spamd = spawn('spamd', [`--listen=${address}`, '--allowed-ips=127.0.0.1', '--username=nobody', '-x', '--nouser-config', '--max-children=1'], { stdio: 'ignore' });
    await listening(port, PATIENCE_MS);
  });
  afterAll(() => {
    spamd?.kill();
  });

  test('GTUBE is spam, with the GTUBE rule and its points', async () => {
    const score = (await scoreWith({ spamdAddress: address }, message(GTUBE)))!;
    expect(score.is_spam).toBe(true);
    expect(score.required).toBe(5);
    expect(score.score).toBeGreaterThanOrEqual(1000);
    expect(score.rules).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'GTUBE', points: 1000 })]));
  });

  test('an ordinary note is not spam, and its score is the sum of its rules', async () => {
    const score = (await scoreWith({ spamdAddress: address }, message('Hi Bob, the notes from today are below. See you Thursday. Ann')))!;
    expect(score.is_spam).toBe(false);
    expect(score.score).toBeCloseTo(score.rules.reduce((sum, rule) => sum + rule.points, 0), 1);
  });
});

test('with no scorer configured there is no score', async () => {
  await expect(scoreWith({}, message('hello'))).resolves.toBeNull();
});
