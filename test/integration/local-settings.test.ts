import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import { call, eventually, sdk } from '../support/platform';

// `npm start` as a newcomer runs it: bin/local.ts itself, in a folder of their own holding a
// .env, with none of the test host's settings (which would hide a setting that never arrives).
const BIN = resolve(__dirname, '../../bin/local.ts');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailplane-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** This process's environment without anything local mode reads, as a fresh shell would have it. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const { PORT: _p, DATA_DIR: _d, SANDBOX_RECIPIENTS: _s, BOOTSTRAP_API_KEY: _b, ...rest } = process.env;
  return rest;
}

function start(): ChildProcess {
  return spawn(process.execPath, [require.resolve('tsx/cli'), BIN], { cwd: dir, env: cleanEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
}

interface Banner {
  text: string;
  url: string;
  key: string;
  sandbox: string;
  outbox: string;
  smtp: { host: string; port: number };
}

/** The start-up banner, once it is printed in full. */
function bannerOf(child: ChildProcess): Promise<Banner> {
  return new Promise((done, fail) => {
    let text = '';
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('exit', (code) => fail(new Error(`local mode exited with ${code}: ${errors}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (!/^ {2}Try: .*$/m.test(text)) return;
      const [, host, port] = /US SMTP: ([\d.]+):(\d+) \(STARTTLS\)/.exec(text)!;
      done({
        text,
        url: /US API: (\S+)/.exec(text)![1]!,
        key: /Admin API key: (\S+)/.exec(text)![1]!,
        sandbox: /Sandbox domains: US (\S+),/.exec(text)![1]!,
        outbox: /the outbox; nothing leaves this machine\): (\S+),/.exec(text)![1]!,
        smtp: { host: host!, port: Number(port) },
      });
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The outcome (the event after `accepted`) of a message to one recipient. */
function outcomeOf(banner: Banner, id: string) {
  return eventually(async () => {
    const reply = await call(`${banner.url}/v3/${banner.sandbox}/events?message-id=${encodeURIComponent(id.slice(1, -1))}`, { key: banner.key });
    return (reply.json.items as Array<{ event: string }>).find((e) => e.event !== 'accepted');
  }, 20_000);
}

it('reads .env from the working directory, and with no sandbox rule set the first steps work as written: the sandbox sends to you@example.com by the API and by SMTP, into the outbox the banner names', async () => {
  writeFileSync(join(dir, '.env'), '# set by hand\nPORT=0\nDATA_DIR=from-dotenv\nDMARC_REPORTS_DOMAIN=reports.example.test\n');
  const child = start();
  try {
    const banner = await bannerOf(child);
    expect(banner.text).toContain('.env (3 read)');
    expect(banner.outbox).toBe(join(dir, 'from-dotenv', 'us', 'outbox'));
    expect(banner.text).toContain("they send to anyone (SANDBOX_RECIPIENTS=any, local mode's default");
    const mg = sdk(banner.url, banner.key);

    // A handler setting from .env reaches the handlers: the rua address is on its domain.
    await mg.domains.create({ name: 'mg.example.com' });
    const record = await call(`${banner.url}/v1/dmarc/records/mg.example.com`, { key: banner.key });
    expect(record.json.entry).toMatch(/rua=mailto:\S+@reports\.example\.test$/);

    const byApi = await mg.messages.create(banner.sandbox, { from: `me@${banner.sandbox}`, to: 'you@example.com', subject: 'By the API', text: 'It works' });
    expect(await outcomeOf(banner, byApi.id!)).toMatchObject({ event: 'delivered' });
    await mg.domains.domainCredentials.create(banner.sandbox, { login: 'me', password: 'first-steps-password' });
    const smtp = nodemailer.createTransport({
      host: banner.smtp.host,
      port: banner.smtp.port,
      requireTLS: true,
      auth: { user: `me@${banner.sandbox}`, pass: 'first-steps-password' },
      tls: { ca: readFileSync(join(dir, 'from-dotenv', 'ca', 'ca.pem'), 'utf8') },
    });
    await smtp.sendMail({ from: `me@${banner.sandbox}`, to: 'you@example.com', subject: 'By SMTP', text: 'It works' });

    const subjects = await eventually(async () => {
      const found = readdirSync(banner.outbox).filter((name) => name.endsWith('.eml')).map((name) => /^Subject: (.*)$/m.exec(readFileSync(join(banner.outbox, name), 'utf8'))?.[1]);
      return found.length === 2 ? found.sort() : undefined;
    }, 20_000);
    expect(subjects).toEqual(['By SMTP', 'By the API']);
  } finally {
    await stop(child);
  }
}, 120_000);

it.each([
  ['the environment', {}, 'SANDBOX_RECIPIENTS=everyone', 'SANDBOX_RECIPIENTS is not valid: it takes `authorized` or `any`.'],
  ['.env', { fromDotEnv: true }, 'HEALTH_SCORE_MIN_VOLUME=many', 'HEALTH_SCORE_MIN_VOLUME (from .env) is not valid: it takes an integer, 1 or more.'],
])('stops at once on an invalid value from %s, with one line naming it', async (_, { fromDotEnv }: { fromDotEnv?: boolean }, assignment, message) => {
  const [name, value] = assignment.split('=') as [string, string];
  if (fromDotEnv) writeFileSync(join(dir, '.env'), `${assignment}\n`);
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), BIN], {
    cwd: dir,
    env: { ...cleanEnvironment(), PORT: '0', ...(fromDotEnv ? {} : { [name]: value }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(1);
  expect(stderr).toBe(`Cannot start: ${message}\n`);
  // Nothing was started: no data dir.
  expect(readdirSync(dir).filter((name) => name !== '.env')).toEqual([]);
}, 60_000);
