import { randomBytes } from 'node:crypto';
import type { LocalPlatform } from '../../lib/local/platform';
import { ADMIN_KEY, apiKeys, call, sandboxOf, sdk, startTestPlatform } from '../support/platform';
import { plainAuth, smtpSession } from '../support/smtp-session';

// Password guessing as an attacker would try it: many connections at once, many addresses, many
// keys. Failures are counted per login (an SMTP login, an API key id) and per client address in the
// table, so parallel connections share one count. Every SMTP session comes from its own loopback
// address (127.0.0.0/8 is all this machine), every API request from the address its X-Forwarded-For
// names (believed from loopback, as API Gateway's sourceIp would be).
// The limits are small. The window is a minute, so that however slow the machine each case stays
// well inside one, and it is never waited out: the host runs in this process, and the clock it
// reads is moved on past the Retry-After a lock named.
const WINDOW_SECONDS = 60;
const PER_LOGIN = 5;
const PER_SOURCE = 12;

let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
const PASSWORD = 'a-long-enough-smtp-password';

beforeAll(async () => {
  platform = await startTestPlatform({
    env: {
      AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS),
      AUTH_FAILURE_LIMIT_PER_LOGIN: String(PER_LOGIN),
      AUTH_FAILURE_LIMIT_PER_SOURCE: String(PER_SOURCE),
      // The pause doubling is the unit tests'; here every failure waits the usual second.
      AUTH_FAILURE_SLOW_AFTER: '1000',
    },
  });
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
  for (const login of ['guarded', 'bystander']) await mg.domains.domainCredentials.create(sandbox, { login, password: PASSWORD });
});
afterAll(() => platform.close());

let clockAheadMs = 0;
const realNow = Date.now.bind(Date);
beforeAll(() => jest.spyOn(Date, 'now').mockImplementation(() => realNow() + clockAheadMs));
afterAll(() => jest.restoreAllMocks());

/** Moves the host's clock on, as that much time passing would. */
const letPass = (seconds: number) => {
  clockAheadMs += seconds * 1000;
};
const retryAfterIn = (reply: string) => Number(/try again in (\d+) seconds/.exec(reply)?.[1]);

/** One connection from `address`, greeted and past EHLO, over implicit TLS. */
async function connection(address: string) {
  const session = await smtpSession({ host: platform.us.smtp.host, port: platform.us.smtp.securePort, ca: platform.ca.certificatePem, localAddress: address });
  await session.send('EHLO attacker');
  return session;
}

/** AUTH PLAIN on a new connection from `address`: the reply. */
async function signIn(address: string, login: string, password: string): Promise<string> {
  const session = await connection(address);
  const reply = await session.send(`AUTH PLAIN ${plainAuth(login, password)}`);
  session.end();
  return reply;
}

const codes = (replies: string[]) => replies.map((reply) => reply.slice(0, 3)).sort();

describe('SMTP AUTH', () => {
  it('lets parallel connections check at most the limit of passwords for a login, then refuses even the right one until the window has passed', async () => {
    const login = `guarded@${sandbox}`;
    // 15 connections, all connected before any guess, then two guesses each at once: 30 guesses.
    const sessions = await Promise.all(Array.from({ length: 15 }, () => connection('127.0.0.2')));
    const replies = (
      await Promise.all(
        sessions.map(async (session, i) => {
          const first = await session.send(`AUTH PLAIN ${plainAuth(login, `wrong-guess-${i}-a`)}`);
          const second = await session.send(`AUTH PLAIN ${plainAuth(login, `wrong-guess-${i}-b`)}`);
          session.end();
          return [first, second];
        }),
      )
    ).flat();
    expect(codes(replies)).toEqual([...Array<string>(30 - PER_LOGIN).fill('454'), ...Array<string>(PER_LOGIN).fill('535')]);
    for (const reply of replies.filter((r) => r.startsWith('454'))) expect(reply).toMatch(/^454 Too many failed authentication attempts for this login or address, try again in \d+ seconds$/);

    // The right password is refused too, from any address, and says when to come back.
    const locked = await signIn('127.0.0.5', login, PASSWORD);
    expect(locked).toMatch(/^454 /);
    const wait = retryAfterIn(locked);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(WINDOW_SECONDS);
    // Other logins are not affected by this one's lock.
    expect(await signIn('127.0.0.5', `bystander@${sandbox}`, PASSWORD)).toMatch(/^235 /);

    letPass(wait + 1);
    expect(await signIn('127.0.0.2', login, PASSWORD)).toMatch(/^235 /);
  });

  it('refuses an address that guesses at many logins once it reaches its limit, right password or not; other addresses still sign in', async () => {
    const guesses = await Promise.all(Array.from({ length: PER_SOURCE + 3 }, (_, i) => signIn('127.0.0.3', `nobody-${i}@${sandbox}`, 'a-wrong-password-for-all')));
    expect(codes(guesses)).toEqual([...Array<string>(3).fill('454'), ...Array<string>(PER_SOURCE).fill('535')]);
    expect(await signIn('127.0.0.3', `bystander@${sandbox}`, PASSWORD)).toMatch(/^454 .*try again in \d+ seconds/);
    expect(await signIn('127.0.0.4', `bystander@${sandbox}`, PASSWORD)).toMatch(/^235 /);
  });

  it('does not count a right password against the login or the address', async () => {
    for (let i = 0; i < PER_LOGIN + 2; i++) expect(await signIn('127.0.0.6', `bystander@${sandbox}`, PASSWORD)).toMatch(/^235 /);
  });
});

describe("the API's Basic auth", () => {
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const domains = (key: string, address: string) => call(`${platform.us.url}/v4/domains`, { key, headers: from(address) });
  const wrongKey = () => `${randomBytes(16).toString('hex')}-${randomBytes(4).toString('hex')}-${randomBytes(4).toString('hex')}`;

  it('refuses an address with 429 and Retry-After once it has sent its limit of wrong keys, then lets it in again after the window', async () => {
    const attacker = '198.51.100.20';
    for (let i = 0; i < PER_SOURCE; i++) expect((await domains(wrongKey(), attacker)).status).toBe(401);
    const refused = await domains(wrongKey(), attacker);
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ message: expect.stringContaining('Too many failed authentication attempts') });
    // Even the right key, from there: that address is not to be believed for now.
    const right = await call(`${platform.us.url}/v4/domains`, { headers: from(attacker) });
    expect(right.status).toBe(429);
    // From elsewhere the same key works.
    expect((await domains(ADMIN_KEY, '198.51.100.21')).status).toBe(200);

    const wait = await retryAfterOf(attacker);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(WINDOW_SECONDS);
    letPass(wait + 1);
    expect((await domains(ADMIN_KEY, attacker)).status).toBe(200);
  });

  it('counts the same wrong key sent again once: a client retrying a revoked key is not guessing', async () => {
    const stale = wrongKey();
    for (let i = 0; i < PER_SOURCE * 2; i++) expect((await domains(stale, '198.51.100.22')).status).toBe(401);
    expect((await domains(ADMIN_KEY, '198.51.100.22')).status).toBe(200);
  });

  it('refuses a key id with 429 once wrong secrets naming it reach the limit, from whatever addresses, then takes its right secret again after the window', async () => {
    const key = await apiKeys(mg).create({ role: 'developer', description: 'guessed' });
    const guess = () => `${randomBytes(16).toString('hex')}-${key.id}`;
    for (let i = 0; i < PER_LOGIN; i++) expect((await domains(guess(), `198.51.100.${30 + i}`)).status).toBe(401);
    const locked = await domains(key.secret, '198.51.100.40');
    expect(locked.status).toBe(429);
    // The SDK sees Mailgun's 429 and its message.
    const viaSdk = await sdk(platform.us.url, key.secret)
      .domains.list()
      .catch((e: { status: number; details: string }) => e);
    expect(viaSdk).toMatchObject({ status: 429, details: expect.stringContaining('Too many failed authentication attempts') });

    letPass((await retryAfterOf('198.51.100.40', key.secret)) + 1);
    expect((await domains(key.secret, '198.51.100.40')).status).toBe(200);
  });

  /** The Retry-After of a refused request (a raw request: `call` keeps no headers). */
  async function retryAfterOf(address: string, key = ADMIN_KEY): Promise<number> {
    const res = await fetch(`${platform.us.url}/v4/domains`, { headers: { authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}`, ...from(address) } });
    expect(res.status).toBe(429);
    return Number(res.headers.get('retry-after'));
  }
});
