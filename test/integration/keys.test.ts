import { sha256Hex } from '../../functions/platform/secrets';
import type { LocalPlatform } from '../../lib/local/platform';
import { apiKeys, call, sdk, sdkError, startTestPlatform } from '../support/platform';
import { scanTable } from '../support/table';

// /v1/keys through mailgun.js, and what a key can then do (contract §12.1).
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  await mg.domains.create({ name: 'keys.example.com', dkim_key_size: '1024' } as never);
});
afterAll(() => platform.close());

const createKey = (form: Record<string, string>) => apiKeys(mg).create(form);

it('creates a key whose secret works once shown, and is never shown again', async () => {
  const key = await createKey({ role: 'developer', description: 'ci' });
  expect(key).toMatchObject({ role: 'developer', kind: 'user' });
  expect(key.secret).toMatch(new RegExp(`^[0-9a-f]{32}-${key.id}$`));
  expect(Number.isNaN(key.created_at.getTime())).toBe(false);
  const raw = await call(`${platform.us.url}/v1/keys`);
  expect(raw.text).not.toContain(key.secret);
  const listed = (raw.json.items as Array<Record<string, unknown>>).find((k) => k.id === key.id)!;
  expect(listed).toMatchObject({ description: 'ci', role: 'developer', kind: 'user', is_disabled: false, domain_name: null, requestor: null, user_name: null });
  expect(listed.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  expect(listed).not.toHaveProperty('expires_at');
  await expect(sdk(platform.us.url, key.secret).domains.list()).resolves.toEqual(expect.any(Array));
});

it('replies with the key both wrapped (mailgun-go) and at the top level (mailgun.js)', async () => {
  const res = await call(`${platform.us.url}/v1/keys`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'role=basic&description=wrapped' });
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ message: 'great success', role: 'basic', key: { role: 'basic', description: 'wrapped' } });
  expect((res.json.key as { secret: string }).secret).toBe(res.json.secret);
});

it('stores only the hash of each secret', async () => {
  const key = await createKey({ role: 'basic' });
  const items = await scanTable(platform.us);
  const item = items.find((k) => k.keyId === key.id)!;
  expect(item.pk).toBe(`APIKEY#${sha256Hex(key.secret)}`);
  expect(item.secretHash).toBe(sha256Hex(key.secret));
  expect(JSON.stringify(items)).not.toContain(key.secret);
});

it('deletes a key, after which it is refused', async () => {
  const key = await createKey({ role: 'admin' });
  expect(await apiKeys(mg).destroy(key.id)).toMatchObject({ message: 'key deleted' });
  expect(await sdkError(sdk(platform.us.url, key.secret).domains.list())).toEqual({ status: 401, details: 'Invalid private key' });
  expect(await sdkError(apiKeys(mg).destroy(key.id))).toEqual({ status: 404, details: 'no key matching id' });
});

it('refuses an expired key', async () => {
  const key = await createKey({ role: 'basic', expiration: '1' });
  expect(key.expires_at).toBeInstanceOf(Date);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect((await sdkError(sdk(platform.us.url, key.secret).domains.list())).status).toBe(401);
});

it('filters the list by kind and domain, and names the allowed kinds when one is wrong', async () => {
  await createKey({ role: 'sending', kind: 'domain', domain_name: 'keys.example.com' });
  const domainKeys = await apiKeys(mg).list({ kind: 'domain' });
  expect(domainKeys.items.length).toBeGreaterThan(0);
  expect(domainKeys.items.every((k) => k.kind === 'domain')).toBe(true);
  const byDomain = await call(`${platform.us.url}/v1/keys?domain_name=keys.example.com`);
  expect((byDomain.json.items as Array<{ domain_name: string }>).every((k) => k.domain_name === 'keys.example.com')).toBe(true);
  const bad = await call(`${platform.us.url}/v1/keys?kind=robot`);
  expect(bad).toMatchObject({ status: 400, json: { message: "Invalid parameter 'kind': expected `kind` param to be one of [domain user web] or absent" } });
});

describe('web keys', () => {
  it('expire within a day and need email and user_id', async () => {
    const before = Date.now();
    const key = await createKey({ role: 'basic', kind: 'web', email: 'jane@example.com', user_id: 'u1', user_name: 'Jane' });
    const lifetime = key.expires_at!.getTime() - before;
    expect(lifetime).toBeGreaterThan(86_000_000);
    expect(lifetime).toBeLessThanOrEqual(86_401_000);
    expect(await sdkError(createKey({ role: 'basic', kind: 'web', email: 'jane@example.com', user_id: 'u1', expiration: '90000' }))).toEqual({
      status: 400,
      details: 'Web keys expire within 1 day (expiration at most 86400)',
    });
    expect(await sdkError(createKey({ role: 'basic', kind: 'web' }))).toEqual({ status: 400, details: "Web keys need 'email' and 'user_id'" });
  });
});

describe('refusals', () => {
  it.each([
    [{}, "Missing parameter 'role'"],
    [{ role: 'owner' }, "Invalid parameter 'role': must be one of admin, developer, support, basic, sending"],
    [{ role: 'sending' }, "The 'sending' role is for domain keys (kind=domain)"],
    [{ role: 'sending', kind: 'domain' }, "Missing parameter 'domain_name': domain keys are bound to a domain"],
    [{ role: 'admin', kind: 'domain', domain_name: 'keys.example.com' }, "Domain keys take the role 'sending'"],
    [{ role: 'admin', domain_name: 'keys.example.com' }, "'domain_name' applies to domain keys only"],
    [{ role: 'basic', expiration: '0' }, "Invalid parameter 'expiration': must be greater than 0"],
  ])('%j → 400', async (form, message) => {
    // Keys that expire (an earlier test's 1-second key) may drop out meanwhile: count the others.
    const lasting = async () => (await apiKeys(mg).list()).items.filter((k) => !(k as { expires_at?: Date }).expires_at).length;
    const before = await lasting();
    expect(await sdkError(createKey(form as Record<string, string>))).toEqual({ status: 400, details: message });
    expect(await lasting()).toBe(before);
  });

  it('a domain key for an unknown domain → 404', async () => {
    expect(await sdkError(createKey({ role: 'sending', kind: 'domain', domain_name: 'nope.example.com' }))).toEqual({ status: 404, details: 'Domain not found' });
  });
});
