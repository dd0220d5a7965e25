import { existsSync } from 'node:fs';
import { request } from 'node:http';
import type { LocalPlatform } from '../../lib/local/platform';
import { CONSOLE_DIST } from '../../lib/console-build';
import { ADMIN_KEY, call, eventually, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// The console's host beside the API in local mode: its page with a strict policy, the config
// that names both regions, CORS for the consoles' origins only, and the outbox's JSON twin.
let platform: LocalPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { SANDBOX_RECIPIENTS: 'any' } });
});
afterAll(() => platform?.close());

function raw(url: string, method: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('serves console/config.json naming both regions as the browser reached this one', async () => {
  const config = await call(`${platform.us.url}/console/config.json`, { key: null });
  expect(config.json).toEqual({
    region: 'us',
    regions: [
      { id: 'us', label: 'US', api: platform.us.url },
      { id: 'eu', label: 'EU', api: platform.eu.url },
    ],
    outbox: true,
  });
  const port = new URL(platform.eu.url).port;
  const viaLocalhost = await raw(`${platform.eu.url}/console/config.json`, 'GET', { host: `localhost:${port}` });
  expect(JSON.parse(viaLocalhost.body).regions[1]).toEqual({ id: 'eu', label: 'EU', api: `http://localhost:${port}` });
});

it('serves the page with a Content-Security-Policy that allows no inline script and reaches only the APIs', async () => {
  const page = await raw(`${platform.us.url}/`, 'GET', {});
  const built = existsSync(`${CONSOLE_DIST}/index.html`);
  expect(page.status).toBe(built ? 200 : 503);
  if (!built) return;
  const policy = String(page.headers['content-security-policy']);
  expect(policy).toContain("script-src 'self'");
  expect(policy).not.toMatch(/script-src[^;]*unsafe/);
  expect(policy).toContain(`connect-src 'self' http://127.0.0.1:${new URL(platform.eu.url).port}`);
  expect(policy).toContain("frame-ancestors 'none'");
  expect(page.headers['x-content-type-options']).toBe('nosniff');
});

it('answers CORS for the consoles\' origins only, and leaves the API as it was', async () => {
  const preflight = await raw(`${platform.us.url}/v4/domains`, 'OPTIONS', { origin: platform.eu.url, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' });
  expect(preflight.status).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe(platform.eu.url);
  expect(String(preflight.headers['access-control-allow-headers'])).toContain('authorization');

  const stranger = await raw(`${platform.us.url}/v4/domains`, 'OPTIONS', { origin: 'https://evil.example', 'access-control-request-method': 'GET' });
  expect(stranger.status).toBe(404);
  expect(stranger.headers['access-control-allow-origin']).toBeUndefined();

  const listed = await raw(`${platform.us.url}/v4/domains`, 'GET', { origin: platform.eu.url, authorization: `Basic ${Buffer.from(`api:${ADMIN_KEY}`).toString('base64')}` });
  expect(listed.status).toBe(200);
  expect(listed.headers['access-control-allow-origin']).toBe(platform.eu.url);
  expect(JSON.parse(listed.body).items.length).toBeGreaterThan(0);
  // Paths no route has still answer as before.
  expect((await call(`${platform.us.url}/v9/nothing`)).status).toBe(404);
});

it('lists what SES was handed at /_local/outbox, to the sending account only, and clears it', async () => {
  const client = sdk(platform.us.url);
  const domain = (await client.domains.list()).find((d) => d.type === 'sandbox')!.name;
  await client.messages.create(domain, { from: `me@${domain}`, to: ['a@example.net', 'bounce@simulator.amazonses.com'], subject: 'Outbox =?check?= ü', text: 'Hi' });
  const listed = await eventually(async () => {
    const reply = await call(`${platform.us.url}/_local/outbox?search=outbox`);
    return (reply.json.messages as unknown[]).length ? reply : undefined;
  }, 15_000);
  const [entry] = listed.json.messages as Array<Record<string, unknown>>;
  expect(entry).toMatchObject({ subject: 'Outbox =?check?= ü', status: 'partly delivered' });
  expect(entry!.recipients).toEqual(expect.arrayContaining([{ address: 'a@example.net', outcome: 'delivered' }, { address: 'bounce@simulator.amazonses.com', outcome: 'bounced' }]));

  const one = await call(`${platform.us.url}/_local/outbox/${String(entry!.id)}`);
  expect(one.json).toMatchObject({ text: 'Hi\n', subject: 'Outbox =?check?= ü' });
  expect((one.json.headers as string[][]).map(([name]) => name)).toContain('Authentication-Results');
  const source = await raw(`${platform.us.url}/_local/outbox/${String(entry!.id)}/raw`, 'GET', { authorization: `Basic ${Buffer.from(`api:${ADMIN_KEY}`).toString('base64')}` });
  expect(source.headers['content-type']).toBe('message/rfc822');
  expect(source.body).toContain('X-Delivered-To: a@example.net');

  // The EU region's outbox is its own; no key, no list.
  expect((await call(`${platform.eu.url}/_local/outbox?search=outbox`)).json.messages).toEqual([]);
  expect((await call(`${platform.us.url}/_local/outbox`, { key: null })).status).toBe(401);
  expect((await call(`${platform.us.url}/_local/outbox`, { key: 'not-a-key' })).status).toBe(401);

  const cleared = await call(`${platform.us.url}/_local/outbox`, { method: 'DELETE' });
  expect(cleared.json).toMatchObject({ message: 'Outbox cleared' });
  expect((await call(`${platform.us.url}/_local/outbox`)).json.messages).toEqual([]);
});

it('shows a parent acting for a subaccount (X-Mailgun-On-Behalf-Of) that subaccount\'s outbox, as the API does', async () => {
  const sub = (await sdk(platform.us.url).subaccounts.create('Outbox tenant')).subaccount;
  const asSub = sdk(platform.us.url);
  asSub.setSubaccount(sub.id);
  const domain = await sandboxOf(asSub);
  await asSub.messages.create(domain, { from: `me@${domain}`, to: ['tenant-reader@example.net'], subject: 'Tenant outbox', text: 'Hi' });
  const behalf = { 'x-mailgun-on-behalf-of': sub.id };
  const listed = await eventually(async () => {
    const reply = await call(`${platform.us.url}/_local/outbox?search=tenant`, { headers: behalf });
    return (reply.json.messages as unknown[] | undefined)?.length ? reply : undefined;
  }, 15_000);
  const [entry] = listed.json.messages as Array<Record<string, unknown>>;
  expect(entry).toMatchObject({ subject: 'Tenant outbox' });
  expect((await call(`${platform.us.url}/_local/outbox/${String(entry!.id)}`, { headers: behalf })).json).toMatchObject({ subject: 'Tenant outbox' });
  // The parent's own outbox does not hold it; an account that is not its subaccount is refused as the API refuses it.
  expect((await call(`${platform.us.url}/_local/outbox?search=tenant`)).json.messages).toEqual([]);
  expect(await call(`${platform.us.url}/_local/outbox`, { headers: { 'x-mailgun-on-behalf-of': '0'.repeat(24) } })).toMatchObject({ status: 404, json: { message: 'Subaccount not found' } });

  expect((await call(`${platform.us.url}/_local/outbox`, { method: 'DELETE', headers: behalf })).json).toMatchObject({ message: 'Outbox cleared', count: 1 });
  expect((await call(`${platform.us.url}/_local/outbox?search=tenant`, { headers: behalf })).json.messages).toEqual([]);
});
