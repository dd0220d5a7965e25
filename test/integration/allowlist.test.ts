import nodemailer from 'nodemailer';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// The IP allowlist (/v2/ip_whitelist) as an account meets it: once it holds an address, API keys
// (but web keys) and SMTP logins work from listed addresses and ranges only. Local mode believes
// X-Forwarded-For from this machine only, which is how this test stands in for remote clients.
let platform: LocalPlatform;
const PASSWORD = 'allowlist-secret-1';

beforeAll(async () => {
  platform = await startTestPlatform();
  const mg = sdk(platform.us.url);
  await mg.domains.domainCredentials.create(await sandboxOf(mg), { login: 'relay', password: PASSWORD });
});
afterAll(() => platform.close());

const OFFICE = '10.1.2.3';
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const list = (ip = OFFICE) => call(`${platform.us.url}/v2/ip_whitelist`, { headers: from(ip) });
const change = (method: string, fields: Record<string, string>, ip = OFFICE) =>
  call(`${platform.us.url}/v2/ip_whitelist${method === 'DELETE' ? `?${new URLSearchParams(fields)}` : ''}`, {
    method,
    headers: from(ip),
    ...(method === 'DELETE' ? {} : { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() }),
  });

async function smtpLogin(): Promise<boolean> {
  const mg = sdk(platform.us.url);
  const sandbox = await sandboxOf(mg).catch(() => undefined);
  const { host, port } = platform.us.smtp;
  const transport = nodemailer.createTransport({ host, port, requireTLS: true, auth: { user: `relay@${sandbox ?? ''}`, pass: PASSWORD }, tls: { ca: platform.ca.certificatePem } });
  try {
    return await transport.verify();
  } catch {
    return false;
  } finally {
    transport.close();
  }
}

test('an empty list binds nothing; a bad entry is refused with Mailgun\'s 400', async () => {
  expect((await list('198.51.100.9')).json).toEqual({ addresses: [] });
  expect((await change('POST', { address: '10.0.0.300' })).json).toEqual({ message: 'Invalid IP Address or CIDR' });
  expect((await change('POST', { address: '10.0.0.0/33' })).status).toBe(400);
  expect(await smtpLogin()).toBe(true);
});

test('with entries, keys work from listed addresses and ranges only; web keys are exempt', async () => {
  expect((await change('POST', { address: '10.0.0.0/8', description: 'Office' })).json).toEqual({ addresses: [{ ip_address: '10.0.0.0/8', description: 'Office' }] });
  const both = (await change('POST', { address: '2001:DB8::/32', description: 'v6' })).json.addresses as Array<{ ip_address: string }>;
  expect(both.map((a) => a.ip_address)).toEqual(['10.0.0.0/8', '2001:db8::/32']);

  expect((await list('10.200.0.1')).status).toBe(200);
  expect((await list('2001:db8::42')).status).toBe(200);
  const outside = await list('198.51.100.9');
  expect(outside.status).toBe(401);
  expect(String(outside.json.message)).toContain('198.51.100.9');
  // This machine is not on the list either: SMTP logins from it are refused now.
  expect(await smtpLogin()).toBe(false);

  // A web key (the dashboard's session key) is not bound by the list.
  const inside = (await call(`${platform.us.url}/v1/keys`, { method: 'POST', headers: from(OFFICE), contentType: 'application/x-www-form-urlencoded', body: 'role=admin&kind=web&expiration=3600&email=owner%40example.com&user_id=u-1' })).json as { key: { secret: string } };
  const webSecret = inside.key.secret;
  expect(webSecret).toBeTruthy();
  const webCall = await call(`${platform.us.url}/v2/ip_whitelist`, { key: webSecret, headers: from('198.51.100.9') });
  expect(webCall.status).toBe(200);
});

test('PUT changes a description, DELETE removes an entry, and an emptied list binds nothing again', async () => {
  expect(((await change('PUT', { address: '10.0.0.0/8', description: 'HQ' })).json.addresses as Array<{ description: string }>)[0]!.description).toBe('HQ');
  expect((await change('PUT', { address: '192.0.2.0/24', description: 'x' })).status).toBe(404);
  await change('DELETE', { address: '2001:db8::/32' });
  expect(((await change('DELETE', { address: '10.0.0.0/8' })).json.addresses as unknown[]).length).toBe(0);
  expect((await list('198.51.100.9')).status).toBe(200);
  expect(await smtpLogin()).toBe(true);
});
