import { saveCredential } from '../../functions/credentials/credential-store';
import { authenticate } from '../../functions/credentials/credentials';
import { hashPassword } from '../../functions/platform/secrets';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, primaryAccountId, sdk, sdkError, startTestPlatform } from '../support/platform';
import { scanTable } from '../support/table';

// SMTP credentials through mailgun.js (contract §12.2): every route, its replies and refusals,
// and that only scrypt hashes are kept. Sending with them is test/integration/smtp.test.ts.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
const DOMAIN = 'creds.example.com';
const RULE = 'It must be between 15 and 32 characters (an SMTP password is a single factor: NIST SP 800-63B-4 asks at least 15).';

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  await mg.domains.create({ name: DOMAIN, dkim_key_size: '1024', smtp_password: 'postmaster-secret' } as never);
});
afterAll(() => platform.close());

const credentials = () => mg.domains.domainCredentials;
const form = (method: string, path: string, fields: Array<[string, string]>) =>
  call(`${platform.us.url}${path}`, { method, contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() });
const logins = async (domain = DOMAIN) => (await credentials().list(domain, { skip: 0, limit: 1000 })).items.map((item) => item.login).sort();
const canLogIn = (login: string, password: string) => platform.us.run(async () => (await authenticate(login, password)) !== undefined);

it('creates a credential with the password given, lists it without secrets, and the password logs in', async () => {
  expect(await credentials().create(DOMAIN, { login: 'alice', password: 'alice-secret-one' })).toEqual({ status: 200, message: 'Created 1 credentials pair(s)' });
  const raw = await call(`${platform.us.url}/v3/domains/${DOMAIN}/credentials`);
  expect(raw.status).toBe(200);
  const alice = (raw.json.items as Array<Record<string, unknown>>).find((item) => item.login === `alice@${DOMAIN}`);
  expect(alice).toEqual({ login: `alice@${DOMAIN}`, mailbox: `alice@${DOMAIN}`, created_at: expect.stringMatching(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/), size_bytes: null });
  expect(raw.text).not.toContain('alice-secret-one');
  expect(raw.text).not.toContain('scrypt');
  expect(await canLogIn(`alice@${DOMAIN}`, 'alice-secret-one')).toBe(true);
  expect(await canLogIn(`ALICE@${DOMAIN.toUpperCase()}`, 'alice-secret-one')).toBe(true);
  expect(await canLogIn(`alice@${DOMAIN}`, 'alice-secret-onE')).toBe(false);
});

it('generates a password when none is given, shows it once with a note, and keeps only its hash', async () => {
  const res = await form('POST', `/v3/domains/${DOMAIN}/credentials`, [['login', `bob@${DOMAIN}`]]);
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ message: 'Created 1 credentials pair(s)', note: expect.any(String), credentials: { [`bob@${DOMAIN}`]: expect.any(String) } });
  const password = (res.json.credentials as Record<string, string>)[`bob@${DOMAIN}`]!;
  expect(password.length).toBeGreaterThanOrEqual(5);
  expect(password.length).toBeLessThanOrEqual(32);
  expect(await canLogIn(`bob@${DOMAIN}`, password)).toBe(true);
  const items = await scanTable(platform.us);
  const stored = items.find((item) => item.login === `bob@${DOMAIN}`)!;
  expect(stored.passwordHash).toMatch(/^scrypt\$/);
  expect(JSON.stringify(items)).not.toContain(password);
  expect(JSON.stringify(items)).not.toContain('alice-secret-one');
});

it('creates several logins in one request, login and mailbox alike, pairing passwords in order', async () => {
  const res = await form('POST', `/v3/domains/${DOMAIN}/credentials`, [
    ['login', 'carol'],
    ['login', 'dave'],
    ['mailbox', `erin@${DOMAIN}`],
    ['password', 'carol-secret-pass'],
    ['password', 'dave-secret-passwd'],
  ]);
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ message: 'Created 3 credentials pair(s)', credentials: { [`erin@${DOMAIN}`]: expect.any(String) } });
  expect(Object.keys(res.json.credentials as object)).toEqual([`erin@${DOMAIN}`]);
  expect(await canLogIn(`carol@${DOMAIN}`, 'carol-secret-pass')).toBe(true);
  expect(await canLogIn(`dave@${DOMAIN}`, 'dave-secret-passwd')).toBe(true);
});

it('refuses bad input with the route error and changes nothing', async () => {
  const before = await logins();
  const refusals: Array<[Array<[string, string]>, string]> = [
    [[['password', 'secret1-long-enough']], "Parameter 'login' is missing"],
    [[['login', 'short'], ['password', 'abc']], `Password is too short. ${RULE}`],
    [[['login', 'short'], ['password', 'fourteen-chars']], `Password is too short. ${RULE}`],
    [[['login', 'long'], ['password', 'x'.repeat(33)]], `Password is too long. ${RULE}`],
    [[['login', `frank@elsewhere.example.com`], ['password', 'secret1-long-enough']], `Invalid parameter 'login': frank@elsewhere.example.com is not an address of the domain ${DOMAIN}`],
    [[['login', 'bad login'], ['password', 'secret1-long-enough']], `Invalid parameter 'login': bad login is not a valid login (a local part of at most 64 characters, or an address at ${DOMAIN})`],
    [[['login', 'alice'], ['password', 'secret1-long-enough']], `Credentials for alice@${DOMAIN} already exist`],
    // All or nothing: the free login in the same request is not created either.
    [[['login', 'gina'], ['login', 'alice'], ['password', 'secret1-long-enough'], ['password', 'secret2-long-enough']], `Credentials for alice@${DOMAIN} already exist`],
    [[['login', 'gina'], ['login', 'Gina'], ['password', 'secret1-long-enough']], `Invalid parameter 'login': gina@${DOMAIN} is given twice`],
    [[['login', 'gina'], ['password', 'secret1-long-enough'], ['password', 'secret2-long-enough']], "There are more values of 'password' than of 'login'"],
    [[['login', 'gina'], ['system', 'maybe']], "Invalid parameter 'system': must be one of yes, no, true or false"],
  ];
  for (const [fields, message] of refusals) {
    const res = await form('POST', `/v3/domains/${DOMAIN}/credentials`, fields);
    expect([fields, res.status, res.json]).toEqual([fields, 400, { message }]);
  }
  expect(await sdkError(credentials().create('nowhere.example.com', { login: 'x', password: 'secret1-long-enough' }))).toEqual({ status: 404, details: 'Domain not found' });
  expect(await logins()).toEqual(before);
});

it('keeps a password stored before the 15-character rule working; only new ones must follow it', async () => {
  const accountId = await primaryAccountId(platform.us);
  const login = `legacy@${DOMAIN}`;
  await platform.us.run(async () => saveCredential({ accountId, domain: DOMAIN, login, mailbox: login, passwordHash: await hashPassword('old5c'), system: false, createdAt: new Date().toISOString() }));
  expect(await canLogIn(login, 'old5c')).toBe(true);
  expect(await sdkError(credentials().update(DOMAIN, 'legacy', { password: 'new-but-short' }))).toEqual({ status: 400, details: `Password is too short. ${RULE}` });
  expect(await canLogIn(login, 'old5c')).toBe(true);
});

it('pages with skip and limit, at most 1000 a page, total_count counting all', async () => {
  const all = await logins();
  const page = await credentials().list(DOMAIN, { skip: 1, limit: 2 });
  expect(page.totalCount).toBe(all.length);
  expect(page.items.map((item) => item.login)).toEqual(all.slice(1, 3));
  const tooMany = await call(`${platform.us.url}/v3/domains/${DOMAIN}/credentials?limit=1001`);
  expect([tooMany.status, tooMany.json]).toEqual([400, { message: "Limit parameter can't be larger than 1000" }]);
  expect((await call(`${platform.us.url}/v3/domains/${DOMAIN}/credentials?skip=-1`)).status).toBe(400);
});

it('changes a password (given or generated); an unknown login is not found', async () => {
  expect(await credentials().update(DOMAIN, 'alice', { password: 'alice-new-secret-2' })).toEqual({ status: 200, message: 'Password changed' });
  expect(await canLogIn(`alice@${DOMAIN}`, 'alice-secret-one')).toBe(false);
  expect(await canLogIn(`alice@${DOMAIN}`, 'alice-new-secret-2')).toBe(true);
  const generated = await form('PUT', `/v3/domains/${DOMAIN}/credentials/carol@${DOMAIN}`, []);
  expect(generated.json).toEqual({ message: 'Password changed', note: expect.any(String), credentials: { [`carol@${DOMAIN}`]: expect.any(String) } });
  expect(await canLogIn(`carol@${DOMAIN}`, (generated.json.credentials as Record<string, string>)[`carol@${DOMAIN}`]!)).toBe(true);
  expect(await sdkError(credentials().update(DOMAIN, 'nobody', { password: 'secret12-long-enough' }))).toEqual({ status: 404, details: 'Credentials not found' });
  expect(await sdkError(credentials().update(DOMAIN, 'alice', { password: 'abc' }))).toEqual({ status: 400, details: `Password is too short. ${RULE}` });
  expect(await canLogIn(`alice@${DOMAIN}`, 'alice-new-secret-2')).toBe(true);
});

it("uses the same store for the domain's postmaster: smtp_password on create and on PUT /v4/domains", async () => {
  expect(await canLogIn(`postmaster@${DOMAIN}`, 'postmaster-secret')).toBe(true);
  await mg.domains.update(DOMAIN, { smtp_password: 'postmaster-new-pass' } as never);
  expect(await canLogIn(`postmaster@${DOMAIN}`, 'postmaster-secret')).toBe(false);
  expect(await canLogIn(`postmaster@${DOMAIN}`, 'postmaster-new-pass')).toBe(true);
  expect(await logins()).toContain(`postmaster@${DOMAIN}`);
  expect((await mg.domains.get(DOMAIN)).smtp_login).toBe(`postmaster@${DOMAIN}`);
});

it('deletes one login, never the system postmaster mailbox', async () => {
  expect(await credentials().destroy(DOMAIN, `dave@${DOMAIN}`)).toEqual({ status: 200, message: 'Credentials have been deleted', spec: `dave@${DOMAIN}` });
  expect(await canLogIn(`dave@${DOMAIN}`, 'dave-secret-passwd')).toBe(false);
  expect(await sdkError(credentials().destroy(DOMAIN, 'dave'))).toEqual({ status: 404, details: 'Credentials not found' });
  expect(await sdkError(credentials().destroy(DOMAIN, 'postmaster'))).toEqual({ status: 400, details: `Cannot delete system mailbox: postmaster@${DOMAIN}` });
  expect(await logins()).toContain(`postmaster@${DOMAIN}`);
});

it('deletes all logins of the domain but the system ones, answering the count', async () => {
  const before = await logins();
  const deletable = before.filter((login) => login !== `postmaster@${DOMAIN}`);
  expect(await credentials().destroyAll(DOMAIN)).toEqual({ status: 200, message: 'All domain credentials have been deleted', count: deletable.length });
  expect(await logins()).toEqual([`postmaster@${DOMAIN}`]);
  expect(await credentials().destroyAll(DOMAIN)).toMatchObject({ count: 0 });
});

it("goes with its domain: a deleted domain's logins no longer log in", async () => {
  await mg.domains.create({ name: 'gone.example.com', dkim_key_size: '1024' } as never);
  await credentials().create('gone.example.com', { login: 'temp', password: 'temp-secret-password' });
  expect(await canLogIn('temp@gone.example.com', 'temp-secret-password')).toBe(true);
  await mg.domains.destroy('gone.example.com');
  expect(await canLogIn('temp@gone.example.com', 'temp-secret-password')).toBe(false);
  const items = await scanTable(platform.us);
  expect(items.filter((item) => String(item.sk).startsWith('CREDENTIAL#gone.example.com#'))).toEqual([]);
});
