import type { LocalPlatform } from '../../lib/local/platform';
import { apiKeys, call, sdk, sdkError, startTestPlatform } from '../support/platform';

// Subaccounts as a parent meets them with mailgun.js: create, list, read, act on one with
// X-Mailgun-On-Behalf-Of (setSubaccount), disable (its keys stop working) and enable, delete.
let platform: LocalPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.close());

const parent = () => sdk(platform.us.url);
const onBehalfOf = (id: string) => {
  const client = sdk(platform.us.url);
  client.setSubaccount(id);
  return client;
};

test('a parent creates, lists, reads and pages its subaccounts', async () => {
  const a = await parent().subaccounts.create('Agency A');
  const b = await parent().subaccounts.create('Agency B');
  expect(a.subaccount).toMatchObject({ name: 'Agency A', status: 'open', features: { sending: { enabled: true } } });
  expect(a.subaccount.id).toMatch(/^[0-9a-f]{24}$/);
  expect(a.subaccount.created_at).toBeInstanceOf(Date);
  const list = await parent().subaccounts.list({ limit: 1, sort: 'desc' });
  expect(list.total).toBeGreaterThanOrEqual(2);
  expect(list.subaccounts).toHaveLength(1);
  expect((await parent().subaccounts.get(b.subaccount.id)).subaccount.name).toBe('Agency B');
  const missing = await sdkError(parent().subaccounts.get('0'.repeat(24)));
  expect(missing.status).toBe(404);
  const noName = await call(`${platform.us.url}/v5/accounts/subaccounts`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: '' });
  expect(noName.status).toBe(400);
});

test('a parent acts on a subaccount through the header; the subaccount sees only its own data, never the parent\'s or a sibling\'s', async () => {
  const sub = (await parent().subaccounts.create('Tenant')).subaccount;
  const sibling = (await parent().subaccounts.create('Sibling')).subaccount;
  const parentDomains = (await parent().domains.list()).map((d) => d.name);
  const subDomains = (await onBehalfOf(sub.id).domains.list()).map((d) => d.name);
  expect(subDomains).toHaveLength(1);
  expect(subDomains[0]).toMatch(/^sandbox[0-9a-f]+\./);
  expect(parentDomains).not.toContain(subDomains[0]);

  // The subaccount's own key, made by the parent on its behalf.
  const key = await apiKeys(onBehalfOf(sub.id)).create({ role: 'admin', kind: 'user', description: 'tenant admin' });
  const own = sdk(platform.us.url, key.secret);
  expect((await own.domains.list()).map((d) => d.name)).toEqual(subDomains);
  // Neither the parent's data nor a sibling's: not by header, not by name.
  const asSibling = sdk(platform.us.url, key.secret);
  asSibling.setSubaccount(sibling.id);
  expect((await sdkError(asSibling.domains.list())).status).toBe(404);
  expect((await sdkError(own.domains.get(parentDomains[0]!))).status).toBe(404);
  // include_subaccounts: the parent sees its subaccounts' domains beside its own, each marked.
  const all = await call(`${platform.us.url}/v4/domains?include_subaccounts=true&limit=1000`);
  const items = all.json.items as Array<{ name: string; subaccount_id?: string }>;
  expect(items.find((d) => d.name === subDomains[0])?.subaccount_id).toBe(sub.id);
  expect(items.filter((d) => parentDomains.includes(d.name)).every((d) => d.subaccount_id === undefined)).toBe(true);
  expect((await call(`${platform.us.url}/v4/domains?limit=1000`)).json.items as unknown[]).toHaveLength(parentDomains.length);
  // A subaccount has no subaccounts of its own.
  expect((await sdkError(own.subaccounts.list())).status).toBe(403);
});

test('disabling a subaccount stops its keys and the parent\'s header; enabling brings back what it stopped', async () => {
  const sub = (await parent().subaccounts.create('Paused')).subaccount;
  const key = await apiKeys(onBehalfOf(sub.id)).create({ role: 'developer', kind: 'user' });
  const own = sdk(platform.us.url, key.secret);
  await own.domains.list();

  const disabled = await call(`${platform.us.url}/v5/accounts/subaccounts/${sub.id}/disable?reason=billing&note=unpaid`, { method: 'POST' });
  expect((disabled.json.subaccount as { status: string }).status).toBe('disabled');
  expect((await call(`${platform.us.url}/v5/accounts/subaccounts/${sub.id}/disable`, { method: 'POST' })).json).toEqual({ message: 'subaccount is already disabled' });
  expect((await sdkError(own.domains.list())).status).toBe(401);
  expect((await sdkError(onBehalfOf(sub.id).domains.list())).status).toBe(403);
  expect((await parent().subaccounts.list({ enabled: false })).subaccounts.map((s) => s.id)).toContain(sub.id);

  expect((await parent().subaccounts.enable(sub.id)).subaccount.status).toBe('open');
  expect((await own.domains.list()).length).toBe(1);
});

test('features are set per subaccount from JSON strings, as the dashboard sends them', async () => {
  const sub = (await parent().subaccounts.create('Featured')).subaccount;
  const res = await call(`${platform.us.url}/v5/accounts/subaccounts/${sub.id}/features`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams({ validations: '{"enabled":true}' }).toString() });
  expect((res.json.features as Record<string, { enabled: boolean }>)['validations']).toEqual({ enabled: true });
  expect((await parent().subaccounts.get(sub.id)).subaccount.features.validations).toEqual({ enabled: true });
  const none = await call(`${platform.us.url}/v5/accounts/subaccounts/${sub.id}/features`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: 'colour=blue' });
  expect(none).toMatchObject({ status: 400, json: { message: 'No valid updates provided' } });
});

test('deleting a subaccount (named by the header) closes it: gone from the list, its keys refused', async () => {
  const sub = (await parent().subaccounts.create('Leaving')).subaccount;
  const key = await apiKeys(onBehalfOf(sub.id)).create({ role: 'admin', kind: 'user' });
  await call(`${platform.us.url}/v5/accounts/subaccounts/${sub.id}/disable`, { method: 'POST' });
  expect(await parent().subaccounts.destroy(sub.id)).toEqual({ message: 'Subaccount successfully deleted' });
  expect((await parent().subaccounts.list({ limit: 1000 })).subaccounts.map((s) => s.id)).not.toContain(sub.id);
  const closed = await call(`${platform.us.url}/v5/accounts/subaccounts?closed=true&limit=1000`);
  expect((closed.json.subaccounts as Array<{ id: string; status: string }>).find((s) => s.id === sub.id)?.status).toBe('closed');
  expect((await sdkError(sdk(platform.us.url, key.secret).domains.list())).status).toBe(401);
  expect((await sdkError(parent().subaccounts.get(sub.id))).status).toBe(404);
  const noHeader = await call(`${platform.us.url}/v5/accounts/subaccounts`, { method: 'DELETE' });
  expect(noHeader.status).toBe(400);
});
