import type { LocalPlatform } from '../../lib/local/platform';
import { apiKeys, call, eventually, sdk, sdkError, startTestPlatform } from '../support/platform';

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
  // The parent's web key (the console's) may act for it too; a domain's sending key may not.
  const web = sdk(platform.us.url, (await apiKeys(parent()).create({ role: 'admin', kind: 'web', email: 'ops@example.com', user_id: 'ops' })).secret);
  web.setSubaccount(sub.id);
  expect((await web.domains.list()).map((d) => d.name)).toEqual(subDomains);
  const sending = sdk(platform.us.url, (await apiKeys(parent()).create({ role: 'sending', kind: 'domain', domain_name: parentDomains[0]! })).secret);
  sending.setSubaccount(sub.id);
  expect(await sdkError(sending.messages.create(parentDomains[0]!, { from: `me@${parentDomains[0]}`, to: ['x@example.com'], subject: 'as a subaccount', text: 'x' }))).toEqual({ status: 403, details: 'Only user and web keys may act on behalf of a subaccount' });
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

test('a subaccount whose sending feature is off cannot send: 403 at accept, nothing stored; on again, it sends', async () => {
  const sub = (await parent().subaccounts.create('Quiet')).subaccount;
  const sandbox = (await onBehalfOf(sub.id).domains.list()).find((d) => d.type === 'sandbox')!.name;
  const setSending = (enabled: boolean) =>
    call(`${platform.us.url}/v5/accounts/subaccounts/${sub.id}/features`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams({ sending: JSON.stringify({ enabled }) }).toString() });
  await setSending(false);
  const refused = await sdkError(onBehalfOf(sub.id).messages.create(sandbox, { from: `a@${sandbox}`, to: 'x@example.com', subject: 's', text: 't' }));
  expect(refused).toEqual({ status: 403, details: `Domain ${sandbox} is not allowed to send: sending is turned off for this account` });
  expect((await call(`${platform.us.url}/v3/${sandbox}/events`, { headers: { 'x-mailgun-on-behalf-of': sub.id } })).json.items).toEqual([]);
  await setSending(true);
  expect((await onBehalfOf(sub.id).messages.create(sandbox, { from: `a@${sandbox}`, to: 'x@example.com', subject: 's', text: 't' })).message).toBe('Queued. Thank you.');
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

describe('the custom monthly limit', () => {
  const limitUrl = (sub?: string) => `${platform.us.url}/v5/accounts${sub ? `/subaccounts/${sub}` : ''}/limit/custom/monthly`;

  test('is a hard cap: of 20 concurrent sends of 60 recipients against a limit of 1000, 16 pass and the count stops at 960', async () => {
    const sub = (await parent().subaccounts.create('Capped')).subaccount;
    const mg = onBehalfOf(sub.id);
    const sandbox = (await mg.domains.list())[0]!.name;
    expect((await call(limitUrl(sub.id))).json).toEqual({ message: 'No threshold for account' });
    expect((await call(`${limitUrl(sub.id)}?limit=999`, { method: 'PUT' })).status).toBe(400);
    expect((await call(`${limitUrl(sub.id)}?limit=1000`, { method: 'PUT' })).json).toEqual({ success: true });

    const to = Array.from({ length: 60 }, (_, i) => `r${i}@example.com`);
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => mg.messages.create(sandbox, { from: `me@${sandbox}`, to, subject: `send ${i}`, text: 'x' })));
    const passed = results.filter((r) => r.status === 'fulfilled').length;
    expect(passed).toBe(16);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as { status: number }).status).toBe(429);
    expect(String((refused.reason as { details: string }).details)).toContain('monthly limit of 1000');
    expect((await call(limitUrl(sub.id))).json).toMatchObject({ limit: 1000, current: 960, period: '1m', enabled: true });
    // 40 more fit exactly; one more does not.
    await mg.messages.create(sandbox, { from: `me@${sandbox}`, to: to.slice(0, 40), subject: 'exactly', text: 'x' });
    expect((await sdkError(mg.messages.create(sandbox, { from: `me@${sandbox}`, to: ['one@example.com'], subject: 'over', text: 'x' }))).status).toBe(429);
    expect((await call(limitUrl(sub.id))).json).toMatchObject({ current: 1000 });

    // Removing the limit lets it send again.
    expect((await call(limitUrl(sub.id), { method: 'DELETE' })).json).toEqual({ success: true });
    await mg.messages.create(sandbox, { from: `me@${sandbox}`, to: ['again@example.com'], subject: 'free', text: 'x' });
  });

  test("a limit set mid-month starts from the month's accepted recipients, as the analytics counters have them", async () => {
    const sub = (await parent().subaccounts.create('Seeded')).subaccount;
    const mg = onBehalfOf(sub.id);
    const sandbox = (await mg.domains.list())[0]!.name;
    await mg.messages.create(sandbox, { from: `me@${sandbox}`, to: ['a@example.com', 'b@example.com', 'c@example.com'], subject: 'before the limit', text: 'x' });
    // The counters follow the event stream a moment after the send.
    const accepted = () =>
      call(`${platform.us.url}/v1/analytics/metrics`, { method: 'POST', headers: { 'x-mailgun-on-behalf-of': sub.id }, contentType: 'application/json', body: JSON.stringify({ duration: '1d', resolution: 'day', metrics: ['accepted_outgoing_count'], include_aggregates: true }) });
    await eventually(async () => ((await accepted()).json.aggregates as { metrics: { accepted_outgoing_count: number } }).metrics.accepted_outgoing_count === 3);
    await call(`${limitUrl(sub.id)}?limit=1000`, { method: 'PUT' });
    expect((await call(limitUrl(sub.id))).json).toMatchObject({ limit: 1000, current: 3 });
  });

  test("a subaccount's sends count toward its parent's limit as well", async () => {
    const sub = (await parent().subaccounts.create('Counted')).subaccount;
    const mg = onBehalfOf(sub.id);
    const sandbox = (await mg.domains.list())[0]!.name;
    // The earlier tests' subaccounts sent over a thousand this month, which the parent's count starts from.
    expect((await call(`${limitUrl()}?limit=1000000`, { method: 'PUT' })).json).toEqual({ success: true });
    const before = (await call(limitUrl())).json.current as number;
    expect(before).toBeGreaterThanOrEqual(1000);
    await mg.messages.create(sandbox, { from: `me@${sandbox}`, to: ['a@example.com', 'b@example.com'], subject: 'counted', text: 'x' });
    expect((await call(limitUrl())).json.current).toBe(before + 2);
    expect((await call(`${platform.us.url}/v5/accounts/limit/custom/enable`, { method: 'PUT' })).json).toEqual({ success: true });
    await call(limitUrl(), { method: 'DELETE' });
    expect((await call(limitUrl())).status).toBe(404);
  });
});

describe('users', () => {
  test("an account's users: its owner from the start, and whoever keys are issued to", async () => {
    const me = (await call(`${platform.us.url}/v5/users/me`)).json;
    expect(me).toMatchObject({ role: 'admin', is_master: true, activated: true, is_disabled: false, name: 'Account owner' });
    expect(me.account_id).toBe(me.id);
    await apiKeys(parent()).create({ role: 'developer', kind: 'user', user_id: 'u-dev', user_name: 'Dana Dev', email: 'dana@example.com' } as never);
    const dev = (await call(`${platform.us.url}/v5/users/u-dev`)).json;
    expect(dev).toMatchObject({ id: 'u-dev', name: 'Dana Dev', email: 'dana@example.com', role: 'developer', is_master: false, email_details: { parts: { local_part: 'dana', domain: 'example.com' } } });
    const developers = (await call(`${platform.us.url}/v5/users?role=developer`)).json as { users: Array<{ id: string }>; total: number };
    expect(developers.users.map((u) => u.id)).toEqual(['u-dev']);
    expect((await call(`${platform.us.url}/v5/users/nobody`)).json).toEqual({ message: 'No such user exists' });
  });

  test('a subaccount has its own owner, named after it', async () => {
    const sub = (await parent().subaccounts.create('Studio')).subaccount;
    const users = (await call(`${platform.us.url}/v5/users`, { headers: { 'x-mailgun-on-behalf-of': sub.id } })).json as { users: Array<{ name: string; is_master: boolean; account_id: string }> };
    expect(users.users).toEqual([expect.objectContaining({ name: 'Studio', is_master: true, account_id: sub.id })]);
  });
});

test("metrics with include_subaccounts add the subaccounts' counts to the parent's", async () => {
  const sub = (await parent().subaccounts.create('Measured')).subaccount;
  const mg = onBehalfOf(sub.id);
  const sandbox = (await mg.domains.list())[0]!.name;
  await mg.messages.create(sandbox, { from: `me@${sandbox}`, to: ['m1@example.com', 'm2@example.com', 'm3@example.com'], subject: 'measured', text: 'x' });
  const accepted = async (include: boolean) => {
    const res = await call(`${platform.us.url}/v1/analytics/metrics`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ duration: '1d', resolution: 'day', metrics: ['accepted_count'], include_aggregates: true, include_subaccounts: include }) });
    return (res.json.aggregates as { metrics: { accepted_count: number } }).metrics.accepted_count;
  };
  await eventually(async () => (await accepted(true)) - (await accepted(false)) >= 3);
});

test("logs with include_subaccounts merge the subaccounts' events into the parent's, in time order, each naming its account", async () => {
  const sub = (await parent().subaccounts.create('Logged')).subaccount;
  const parentSandbox = (await parent().domains.list()).find((d) => d.type === 'sandbox')!.name;
  const subSandbox = (await onBehalfOf(sub.id).domains.list())[0]!.name;
  await parent().messages.create(parentSandbox, { from: `me@${parentSandbox}`, to: ['p@example.com'], subject: 'logged-parent', text: 'x' });
  await onBehalfOf(sub.id).messages.create(subSandbox, { from: `me@${subSandbox}`, to: ['s@example.com'], subject: 'logged-sub', text: 'x' });
  type LogItem = { '@timestamp': string; account: { id: string; 'parent-id'?: string }; message: { headers: { subject: string } } };
  // Newest first: the two just sent lead, whatever the earlier tests sent.
  const logs = async (include: boolean, limit = 50, token?: string) =>
    (await call(`${platform.us.url}/v1/analytics/logs`, {
      method: 'POST',
      contentType: 'application/json',
      body: JSON.stringify({ duration: '1h', events: ['accepted'], include_subaccounts: include, include_totals: true, pagination: { sort: 'timestamp:desc', limit, ...(token ? { token } : {}) } }),
    })).json as { items: LogItem[]; pagination: { next: string; total: number } };
  const subjects = (items: LogItem[]) => items.map((i) => i.message.headers.subject).filter((s) => s.startsWith('logged-'));
  const merged = await eventually(async () => {
    const res = await logs(true);
    return subjects(res.items).length === 2 && res;
  });
  expect(subjects(merged.items)).toEqual(['logged-sub', 'logged-parent']);
  const parentId = (await call(`${platform.us.url}/v5/users/me`)).json.account_id;
  expect(merged.items.find((i) => i.message.headers.subject === 'logged-sub')!.account).toEqual({ id: sub.id, 'parent-id': parentId });
  expect(merged.items.map((i) => i['@timestamp'])).toEqual([...merged.items.map((i) => i['@timestamp'])].sort().reverse());
  // Pages walk the merged listing without a gap or a repeat; the total counts the subaccounts' too.
  // Events of the earlier tests' messages may still be landing, so the pages are compared with
  // whole listings read just before and just after them, once those two agree.
  const ids = (items: LogItem[]) => items.map((i) => i['@timestamp'] + i.account.id);
  await eventually(async () => {
    const before = await logs(true);
    const first = await logs(true, 1);
    const second = await logs(true, 49, first.pagination.next);
    const after = await logs(true);
    if (JSON.stringify(ids(before.items)) !== JSON.stringify(ids(after.items))) return false;
    expect(ids([...first.items, ...second.items])).toEqual(ids(after.items));
    return true;
  });
  const own = await logs(false);
  expect(subjects(own.items)).toEqual(['logged-parent']);
  expect(merged.pagination.total).toBeGreaterThan(own.pagination.total);
});

test("account tags with include_subaccounts list the subaccounts' tags too, each naming its account", async () => {
  const sub = (await parent().subaccounts.create('Tagged')).subaccount;
  const mg = onBehalfOf(sub.id);
  const sandbox = (await mg.domains.list())[0]!.name;
  await mg.messages.create(sandbox, { from: `me@${sandbox}`, to: ['t@example.com'], subject: 'tagged', text: 'x', 'o:tag': ['sub-only-tag'] });
  const tags = async (include: boolean) =>
    (await call(`${platform.us.url}/v1/analytics/tags`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ include_subaccounts: include, pagination: { sort: 'tag:asc', limit: 100, include_total: true } }) })).json as { items: Array<{ tag: string; account_id: string; parent_account_id: string; account_name: string }>; pagination: { total: number } };
  const withSubs = await eventually(async () => {
    const res = await tags(true);
    return res.items.some((t) => t.tag === 'sub-only-tag') && res;
  });
  expect(withSubs.items.find((t) => t.tag === 'sub-only-tag')).toMatchObject({ account_id: sub.id, account_name: 'Tagged', parent_account_id: (await call(`${platform.us.url}/v5/users/me`)).json.account_id });
  const own = await tags(false);
  expect(own.items.some((t) => t.tag === 'sub-only-tag')).toBe(false);
  expect(withSubs.pagination.total).toBeGreaterThan(own.pagination.total);
});

test('PUT /v5/accounts renames the acting account (a subaccount through the header) and keeps its session settings, which GET /v5/accounts reads back', async () => {
  const sub = (await parent().subaccounts.create('Old name')).subaccount;
  const asSub = { headers: { 'x-mailgun-on-behalf-of': sub.id } };
  const before = await call(`${platform.us.url}/v5/accounts`, asSub);
  expect(before.json).toEqual({ account: { id: sub.id, name: 'Old name', status: 'open', created_at: expect.stringMatching(/ GMT$/), features: { webhooks_redact_pii: { enabled: false } } } });
  const res = await call(`${platform.us.url}/v5/accounts`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', ...asSub, body: 'name=New+name&inactive_session_timeout=1800' });
  expect(res.json).toEqual({ message: 'Account info has been updated' });
  expect((await parent().subaccounts.get(sub.id)).subaccount.name).toBe('New name');
  await call(`${platform.us.url}/v5/accounts`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', ...asSub, body: 'absolute_session_timeout=7200&logout_redirect_url=https%3A%2F%2Fexample.com%2Fbye' });
  await call(`${platform.us.url}/v5/accounts/features`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', ...asSub, body: 'webhooks_redact_pii=%7B%22enabled%22%3Atrue%7D' });
  // Each PUT kept what the other set; the parent's own settings are untouched.
  expect((await call(`${platform.us.url}/v5/accounts`, asSub)).json).toEqual({
    account: { ...(before.json.account as object), name: 'New name', inactive_session_timeout: 1800, absolute_session_timeout: 7200, logout_redirect_url: 'https://example.com/bye', features: { webhooks_redact_pii: { enabled: true } } },
  });
  const own = (await call(`${platform.us.url}/v5/accounts`)).json.account as Record<string, unknown>;
  expect(own).toMatchObject({ id: (await call(`${platform.us.url}/v5/users/me`)).json.account_id, features: { webhooks_redact_pii: { enabled: false } } });
  expect(own).not.toHaveProperty('logout_redirect_url');
  expect((await call(`${platform.us.url}/v5/accounts`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: '' })).status).toBe(400);
  expect((await call(`${platform.us.url}/v5/accounts`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: 'logout_redirect_url=nowhere' })).status).toBe(400);
});
