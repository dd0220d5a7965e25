import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { findCopy } from '../../functions/optimize/inbox/imap-search';
import { findSeedMailbox, seedLogin } from '../../functions/optimize/inbox/seed-mailboxes';
import { withEnv } from '../../functions/platform/env';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, startTestPlatform } from '../support/platform';

// A seed mailbox's IMAP host is an address the platform connects to, so it follows the policy
// every user-given address does (functions/webhooks/address-policy.ts): checked when it is saved,
// and again when a poll connects (a name may resolve elsewhere by then, and a seed saved before
// the check existed is still stored). Loopback only where the operator allows it (local mode).

const seed = (host: string) => ({ email: 'ann@gmail.seed.test', provider: 'gmail.com', imap_host: host, imap_port: 993, password: 'app-password' });

const INTERNAL = [
  ['169.254.169.254', 'cloud metadata'],
  ['169.254.170.2', 'cloud metadata'],
  ['fd00:ec2::254', 'cloud metadata'],
  ['10.0.0.1', 'private'],
  ['192.168.1.20', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['fe80::1', 'link-local'],
  ['::ffff:169.254.169.254', 'cloud metadata'],
  ['0.0.0.0', 'unspecified'],
] as const;

describe('local mode (loopback allowed)', () => {
  let platform: LocalPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());
  const save = (body: unknown) => call(`${platform.us.url}/v1/inbox/seed-mailboxes`, { method: 'POST', contentType: 'application/json', body: JSON.stringify(body) });

  it.each(INTERNAL)('refuses an IMAP host at %s (%s) and stores nothing', async (host, category) => {
    const res = await save(seed(host));
    expect([res.status, res.json]).toEqual([400, { message: `Invalid parameter 'imap_host': ${host} resolves to a ${category} address, which seed mailboxes may not reach` }]);
    expect((await call(`${platform.us.url}/v1/inbox/seed-mailboxes`)).json).toEqual({ items: [] });
  });

  it('takes a seed on this machine, as a local IMAP server for trying placement out', async () => {
    const res = await save(seed('127.0.0.1'));
    expect(res.status).toBe(200);
    expect((await call(`${platform.us.url}/v1/inbox/seed-mailboxes`)).json.items).toEqual([expect.objectContaining({ imap_host: '127.0.0.1' })]);
  });

  it('edits a seed without its secret (the stored one stays, never shown), and wants one for a new seed', async () => {
    expect((await save(seed('127.0.0.1'))).status).toBe(200);
    const { password: _password, ...withoutSecret } = seed('127.0.0.1');
    const edited = await save({ ...withoutSecret, imap_port: 1143, first_name: 'Ann' });
    expect(edited.status).toBe(200);
    expect(edited.text).not.toContain('app-password');
    const listed = await call(`${platform.us.url}/v1/inbox/seed-mailboxes`);
    expect(listed.json.items).toEqual([expect.objectContaining({ email: 'ann@gmail.seed.test', imap_port: 1143, first_name: 'Ann', auth: 'password', password: '' })]);
    expect(listed.text).not.toContain('app-password');
    const stored = await platform.us.run(async () => seedLogin((await findSeedMailbox('ann@gmail.seed.test'))!));
    expect([stored.auth, stored.secret]).toEqual(['password', 'app-password']);

    const fresh = await save({ ...withoutSecret, email: 'new@gmail.seed.test' });
    expect([fresh.status, fresh.json]).toEqual([400, { message: "Missing parameter 'password': a new seed mailbox needs password (or an app password) or oauth2_token" }]);
    expect((await save({ ...seed('127.0.0.1'), oauth2_token: 'token' })).status).toBe(400);
    expect(((await call(`${platform.us.url}/v1/inbox/seed-mailboxes`)).json.items as unknown[]).length).toBe(1);
  });
});

describe('as deployed on AWS (loopback not allowed)', () => {
  let platform: LocalPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { WEBHOOK_ALLOW_LOOPBACK_URLS: 'false' } });
  });
  afterAll(() => platform.close());
  const save = (body: unknown) => call(`${platform.us.url}/v1/inbox/seed-mailboxes`, { method: 'POST', contentType: 'application/json', body: JSON.stringify(body) });

  it.each([
    ['127.0.0.1', "Invalid parameter 'imap_host': 127.0.0.1 resolves to a loopback address, which seed mailboxes may not reach"],
    ['localhost', "Invalid parameter 'imap_host': localhost resolves to a loopback address, which seed mailboxes may not reach"],
    ['no-such-host.invalid', "Invalid parameter 'imap_host': no-such-host.invalid: host not found"],
  ])('refuses %s', async (host, message) => {
    const res = await save(seed(host));
    expect([res.status, res.json]).toEqual([400, { message }]);
  });

  it('stored nothing', async () => {
    expect((await call(`${platform.us.url}/v1/inbox/seed-mailboxes`)).json).toEqual({ items: [] });
  });
});

describe('when a poll connects', () => {
  // Stands where an internal service would: it only counts who connects, and hangs up.
  let listener: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => listener.close(resolve)));
  /** A poll's search for a copy, run where loopback is allowed or not. */
  const poll = (allowLoopback: boolean, host: string, secure = false) =>
    withEnv({ TABLE_NAME: 't', WEBHOOK_ALLOW_LOOPBACK_URLS: String(allowLoopback) }, () => findCopy(login(host, secure), '<m@example.com>'));

  const login = (host: string, secure = false) => ({ email: 'ann@gmail.seed.test', provider: 'gmail.com', host, port, secure, user: 'ann', auth: 'password' as const, secret: 'app-password' });

  it.each([
    ['an address literal', '127.0.0.1', false],
    ['a name resolving to it', 'localhost', false],
    ['a name resolving to it, over TLS', 'localhost', true],
  ])('does not connect to a forbidden address given as %s', async (_, host, secure) => {
    await expect(poll(false, host, secure)).rejects.toThrow(/resolves to a loopback address, which seed mailboxes may not reach/);
    expect(connections).toBe(0);
  });

  it('connects where the policy allows it', async () => {
    await expect(poll(true, '127.0.0.1')).rejects.toThrow();
    expect(connections).toBe(1);
  });
});
