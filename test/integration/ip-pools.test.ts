import Mailgun from 'mailgun.js';
import type { LocalPlatform } from '../../lib/local/platform';
import { addToCounter } from '../../functions/data/store';
import { sesDedicatedIps } from '../../functions/sending-ips/ses-resources';
import { advanceWarmups, MIN_STAGE_MS, startWarmup, warmupKeys } from '../../functions/sending-ips/warmup';
import { ADMIN_KEY, call, eventsOf, eventually, primaryAccountId, sdk, sdkError, sesSendsOf, startTestPlatform } from '../support/platform';

// Dedicated IPs, DIPPs, delegation and warm-up as an account meets them with mailgun.js (its ips
// and ip_pools clients; raw requests where it has none), over the SES stand-in's two leased
// documentation addresses: which IP a message leaves from is what SES recorded and what the
// delivered event says.
let platform: LocalPlatform;
let accountId: string;
const [IP_A, IP_B] = ['192.0.2.10', '192.0.2.11'];

beforeAll(async () => {
  platform = await startTestPlatform();
  accountId = await primaryAccountId(platform.us);
});
afterAll(() => platform.close());

const url = () => platform.us.url;
/**
 * DIPP edits and deletes name who asks (X-Service-* headers); mailgun.js sends them as client
 * headers (its `headers` option, which its typings leave out).
 */
const withServiceHeaders = (account = accountId) => {
  const headers = { 'X-Service-Account-Id': account, 'X-Service-Requestor': 'ops@example.com', 'X-Service-Requestor-Client': 'ip-pools.test' };
  return new Mailgun(FormData).client({ username: 'api', key: ADMIN_KEY, url: url(), ...{ headers } });
};
/** GET /v3/ips as mailgun.js returns it (its typings lack `details` and type the assignable list as a boolean). */
const listIps = async () => (await sdk(url()).ips.list({ dedicated: true })) as unknown as { items: string[]; total_count: number; assignable_to_pools: string[]; details: Array<{ ip: string; is_on_warmup: boolean }> };

async function activeDomain(name: string, client = sdk(url())): Promise<string> {
  await client.domains.create({ name });
  await client.domains.verify(name);
  return name;
}

async function send(domain: string, to: string[], extra: Record<string, string> = {}): Promise<string> {
  const sent = await sdk(url()).messages.create(domain, { from: `billing@${domain}`, to, subject: 'Statement', text: 'Hello', ...extra });
  return sent.id!;
}

/** The sending IP of each delivered event of a message, once `count` have arrived. */
async function deliveredFrom(domain: string, id: string, count = 1): Promise<Array<{ ip?: string; pool?: string }>> {
  return eventually(async () => {
    const delivered = (await eventsOf<{ event: string; envelope: Record<string, string> }>(url(), domain, id)).filter((e) => e.event === 'delivered');
    return delivered.length >= count && delivered.map((e) => ({ ip: e.envelope['sending-ip'], pool: e.envelope['i-ip-pool-id'] }));
  });
}

test("the account's dedicated IPs are the ones SES leases; each has its details", async () => {
  const mg = sdk(url());
  const list = await listIps();
  expect(list).toMatchObject({ items: [IP_A, IP_B], total_count: 2, assignable_to_pools: [IP_A, IP_B] });
  expect(await mg.ips.get(IP_A)).toMatchObject({ ip: IP_A, dedicated: true, rdns: '' });
  expect((await sdkError(mg.ips.get('203.0.113.9'))).status).toBe(404);
  // SES does not name its shared addresses: asking for shared ones lists none.
  expect((await call(`${url()}/v3/ips?dedicated=false`)).json).toMatchObject({ items: [], total_count: 0 });
});

test('a domain linked to a DIPP sends from its IP: SES records it and the delivered event names it', async () => {
  const domain = await activeDomain('pool-linked.example.com');
  const created = await sdk(url()).ip_pools.create({ name: 'transactional', description: 'receipts', ips: [IP_A] });
  expect(created).toMatchObject({ status: 200, message: 'success', pool_id: expect.stringMatching(/^[0-9a-f]{24}$/) });
  const poolId = created.pool_id;
  expect(await withServiceHeaders().ip_pools.update(poolId, { link_domain: domain })).toMatchObject({ message: 'success' });

  expect((await sdk(url()).ip_pools.get(poolId)).details).toMatchObject({ name: 'transactional', ips: [IP_A], is_linked: true, linked_domains: [domain] });
  expect((await call(`${url()}/v3/domains/${domain}/ips`)).json).toEqual({ items: [IP_A], total_count: 1 });
  const listed = (await call(`${url()}/v3/ip_pools`)).json.ip_pools as Array<{ pool_id: string; metadata: { assignments: Record<string, unknown> } }>;
  expect(listed.find((p) => p.pool_id === poolId)!.metadata.assignments[domain]).toEqual({ linked_at: expect.any(String) });
  expect((await listIps()).assignable_to_pools).toEqual([IP_B]);

  const id = await send(domain, ['alice@example.com', 'bob@example.com']);
  expect(await deliveredFrom(domain, id, 2)).toEqual([{ ip: IP_A, pool: poolId }, { ip: IP_A, pool: poolId }]);
  expect(sesSendsOf(platform.us, id.slice(1, -1)).map((m) => m.sendingIp)).toEqual([IP_A]);

  // A domain with neither pool nor IPs sends from SES's shared addresses, which SES does not name.
  const shared = await activeDomain('shared-only.example.com');
  const plain = await send(shared, ['carol@example.com']);
  expect(await deliveredFrom(shared, plain)).toEqual([{ ip: undefined, pool: undefined }]);
  expect(sesSendsOf(platform.us, plain.slice(1, -1))[0]!.sendingIp).toBeUndefined();
});

test('DIPP edits follow the rules: the three headers, no empty edit, only the account\'s IPs outside other pools', async () => {
  const pool = (await sdk(url()).ip_pools.create({ name: 'edits', description: 'rules' })).pool_id;
  const noHeaders = await sdkError(sdk(url()).ip_pools.update(pool, { description: 'x' }));
  expect(noHeaders).toEqual({ status: 400, details: "Missing header 'X-Service-Account-Id'" });
  expect(await sdkError(withServiceHeaders('0'.repeat(24)).ip_pools.update(pool, { description: 'x' }))).toMatchObject({ status: 403 });
  expect(await sdkError(withServiceHeaders().ip_pools.update(pool, { description: 'rules' }))).toEqual({ status: 400, details: 'The edit changes nothing' });
  expect((await sdkError(withServiceHeaders().ip_pools.update(pool, { add_ip: '203.0.113.9' }))).details).toBe('IP 203.0.113.9 is not a dedicated IP of this account');
  const first = (await sdk(url()).ip_pools.list()).ip_pools as unknown as Array<{ pool_id: string; ips: string[] }>;
  const holder = first.find((p) => p.ips.includes(IP_A))!;
  expect((await sdkError(withServiceHeaders().ip_pools.update(pool, { add_ip: IP_A }))).details).toBe(`IP ${IP_A} is already in the IP pool ${holder.pool_id}`);
  expect(await withServiceHeaders().ip_pools.update(pool, { add_ip: IP_B, name: 'edited' })).toMatchObject({ message: 'success' });
  expect((await sdk(url()).ip_pools.get(pool)).details).toMatchObject({ name: 'edited', ips: [IP_B], is_linked: false });
  expect(await withServiceHeaders().ip_pools.update(pool, { remove_ip: IP_B })).toMatchObject({ message: 'success' });
  // An empty pool may go without a replacement (rule 5).
  expect(await withServiceHeaders().ip_pools.destroy(pool, {})).toMatchObject({ message: 'started' });
  await eventually(async () => (await call(`${url()}/v3/ip_pools/${pool}`)).status === 404);
});

test('a pool name or description beyond its maximum is a 400 naming the field, and nothing is stored', async () => {
  const before = (await call(`${url()}/v3/ip_pools`)).json.ip_pools as unknown[];
  const create = (fields: Record<string, string>) => call(`${url()}/v3/ip_pools`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() });
  for (const [fields, message] of [
    [{ name: 'x'.repeat(1024 * 1024), description: 'd' }, "Invalid parameter 'name': must be at most 256 characters"],
    [{ name: 'x'.repeat(400_000), description: 'd' }, "Invalid parameter 'name': must be at most 256 characters"],
    [{ name: 'long description', description: 'x'.repeat(1025) }, "Invalid parameter 'description': must be at most 1024 characters"],
  ] as const) {
    const res = await create(fields);
    expect([res.status, res.json]).toEqual([400, { message }]);
  }
  expect((await call(`${url()}/v3/ip_pools`)).json.ip_pools).toHaveLength(before.length);
  // At the limits themselves, a pool is made.
  const made = await create({ name: 'n'.repeat(256), description: 'd'.repeat(1024) });
  expect(made.status).toBe(200);
  const edit = await withServiceHeaders().ip_pools.update(String(made.json.pool_id), { name: 'short' });
  expect(edit).toMatchObject({ message: 'success' });
  expect(await sdkError(withServiceHeaders().ip_pools.update(String(made.json.pool_id), { name: 'x'.repeat(257) }))).toEqual({ status: 400, details: "Invalid parameter 'name': must be at most 256 characters" });
  expect(await withServiceHeaders().ip_pools.destroy(String(made.json.pool_id), {})).toMatchObject({ message: 'started' });
  await eventually(async () => (await call(`${url()}/v3/ip_pools/${String(made.json.pool_id)}`)).status === 404);
});

test('deleting a DIPP needs a valid replacement; its domains move to it after the reply', async () => {
  const domain = await activeDomain('moving.example.com');
  const from = (await sdk(url()).ip_pools.create({ name: 'old', description: 'to delete' })).pool_id;
  const to = (await sdk(url()).ip_pools.create({ name: 'new', description: 'replacement' })).pool_id;
  const pools = (await sdk(url()).ip_pools.list()).ip_pools as unknown as Array<{ pool_id: string; ips: string[] }>;
  const poolOfA = pools.find((p) => p.ips.includes(IP_A))!.pool_id;
  // IP_A moves from the first test's pool (its domain unlinked in the same edit) to the pool to delete.
  await withServiceHeaders().ip_pools.update(poolOfA, { unlink_domain: 'pool-linked.example.com', remove_ip: IP_A });
  await withServiceHeaders().ip_pools.update(from, { add_ip: IP_A, link_domain: domain });

  expect((await sdkError(withServiceHeaders().ip_pools.destroy(from, {}))).details).toMatch(/only with a replacement/);
  expect((await sdkError(withServiceHeaders().ip_pools.destroy(from, { pool_id: to }))).details).toBe(`The replacement IP pool ${to} has no IPs`);
  expect((await sdkError(withServiceHeaders().ip_pools.destroy(from, { ip: '203.0.113.9' }))).status).toBe(400);
  expect(await withServiceHeaders().ip_pools.update(to, { add_ip: IP_B })).toMatchObject({ message: 'success' });
  const reply = await withServiceHeaders().ip_pools.destroy(from, { pool_id: to });
  expect(reply).toMatchObject({ message: 'started' });

  await eventually(async () => ((await call(`${url()}/v3/domains/${domain}/ips`)).json.items as string[])[0] === IP_B);
  expect((await call(`${url()}/v3/ip_pools/${from}`)).status).toBe(404);
  const id = await send(domain, ['dave@example.com']);
  expect(await deliveredFrom(domain, id)).toEqual([{ ip: IP_B, pool: to }]);

  // The IP's domains: searched on any word of the query, ordered by domain id (rule 8).
  const byIp = (await call(`${url()}/v3/ips/${IP_B}/domains?limit=10&skip=0&search=nothing,moving`)).json;
  expect(byIp).toEqual({ items: [{ domain, ips: [IP_B] }], total_count: 1 });
});

test('a domain takes IPs of its own, or the shared addresses back, through the domain IP routes', async () => {
  const domain = await activeDomain('own-ips.example.com');
  const pools = (await sdk(url()).ip_pools.list()).ip_pools as unknown as Array<{ pool_id: string; ips: string[] }>;
  const inPool = pools.flatMap((p) => p.ips);
  const free = [IP_A, IP_B].find((ip) => !inPool.includes(ip)) ?? IP_A;
  expect((await call(`${url()}/v3/domains/${domain}/ips`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: `ip=${free}` })).json).toEqual({ message: 'success' });
  expect((await call(`${url()}/v3/domains/${domain}/ips`)).json).toEqual({ items: [free], total_count: 1 });
  const bogus = await call(`${url()}/v3/domains/${domain}/ips`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'ip=203.0.113.9' });
  expect(bogus).toMatchObject({ status: 400, json: { message: 'IP 203.0.113.9 is not a dedicated IP of this account' } });
  const id = await send(domain, ['erin@example.com']);
  expect(await deliveredFrom(domain, id)).toEqual([{ ip: free, pool: undefined }]);

  // One message may name its own address (o:sending-ip); an address the account lacks is refused, nothing accepted.
  const other = free === IP_A ? IP_B : IP_A;
  const chosen = await send(domain, ['frank@example.com'], { 'o:sending-ip': other });
  expect(await deliveredFrom(domain, chosen)).toEqual([{ ip: other, pool: undefined }]);
  const refused = await sdkError(send(domain, ['grace@example.com'], { 'o:sending-ip': '203.0.113.9' }));
  expect(refused).toEqual({ status: 400, details: "'o:sending-ip': 203.0.113.9 is not a dedicated IP of this account" });

  expect((await call(`${url()}/v3/domains/${domain}/ips/all`, { method: 'DELETE' })).json).toEqual({ message: 'success' });
  expect((await call(`${url()}/v3/domains/${domain}/ips`)).json).toEqual({ items: [], total_count: 0 });
});

test('a pool delegated to a subaccount is used, not changed, by it; revoking moves its domains to the shared addresses', async () => {
  const parent = sdk(url());
  const sub = (await parent.subaccounts.create('Agency')).subaccount.id;
  const asSub = sdk(url());
  asSub.setSubaccount(sub);
  const pools = (await parent.ip_pools.list()).ip_pools as unknown as Array<{ pool_id: string; ips: string[] }>;
  const shared = pools.find((p) => p.ips.length)!;
  expect(await parent.ip_pools.delegate(shared.pool_id, sub)).toMatchObject({ message: 'success' });
  expect((await call(`${url()}/v5/accounts/subaccounts/ip_pools/all`)).json).toEqual({ items: [{ pool_id: shared.pool_id, subaccount_id: sub }], total_count: 1 });

  const seen = (await asSub.ip_pools.list()).ip_pools as unknown as Array<{ pool_id: string; is_inherited: boolean }>;
  expect(seen).toEqual([expect.objectContaining({ pool_id: shared.pool_id, is_inherited: true })]);
  const subWithHeaders = withServiceHeaders(sub);
  subWithHeaders.setSubaccount(sub);
  expect((await sdkError(subWithHeaders.ip_pools.update(shared.pool_id, { description: 'mine now' }))).details).toBe('An IP pool inherited from the parent account cannot be edited');
  expect((await sdkError(subWithHeaders.ip_pools.destroy(shared.pool_id, { ip: 'shared' }))).details).toBe('An IP pool inherited from the parent account cannot be deleted');

  const subDomain = await activeDomain('agency.example.com', asSub);
  expect((await call(`${url()}/v3/domains/${subDomain}/ips`, { method: 'POST', headers: { 'x-mailgun-on-behalf-of': sub }, contentType: 'application/x-www-form-urlencoded', body: `pool_id=${shared.pool_id}` })).json).toEqual({ message: 'success' });
  // Rule 4: the parent cannot hand the subaccount an address in place of the pool.
  expect((await sdkError(withServiceHeaders().ip_pools.destroy(shared.pool_id, { ip: shared.ips[0]! }))).details).toMatch(/cannot be replaced by an IP/);

  expect(await parent.ip_pools.revokeDelegation(shared.pool_id, sub)).toMatchObject({ message: 'started' });
  await eventually(async () => ((await call(`${url()}/v3/domains/${subDomain}/ips`, { headers: { 'x-mailgun-on-behalf-of': sub } })).json.total_count as number) === 0);
  expect((await asSub.ip_pools.list()).ip_pools).toEqual([]);
  await eventually(async () => ((await call(`${url()}/v5/accounts/subaccounts/ip_pools/all`)).json.total_count as number) === 0);
});

test("a pool delegated from the subaccount's side replaces the pool it had; from the pool's side it is one more", async () => {
  const parent = sdk(url());
  const sub = (await parent.subaccounts.create('Switcher')).subaccount.id;
  const first = ((await parent.ip_pools.list()).ip_pools as unknown as Array<{ pool_id: string; ips: string[] }>).find((p) => p.ips.length)!;
  const second = (await parent.ip_pools.create({ name: 'Second', description: 'the replacement' })) as unknown as { pool_id: string };
  const third = (await parent.ip_pools.create({ name: 'Third', description: 'one more' })) as unknown as { pool_id: string };
  const delegations = async () =>
    ((await call(`${url()}/v5/accounts/subaccounts/ip_pools/all`)).json.items as Array<{ pool_id: string; subaccount_id: string }>)
      .filter((item) => item.subaccount_id === sub)
      .map((item) => item.pool_id)
      .sort();
  const fromSubaccount = (poolId: string) => call(`${url()}/v5/accounts/subaccounts/${sub}/ip_pool`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: `pool_id=${poolId}` });

  expect((await fromSubaccount(first.pool_id)).json).toMatchObject({ message: 'started' });
  expect(await delegations()).toEqual([first.pool_id]);
  expect((await fromSubaccount(second.pool_id)).json).toMatchObject({ message: 'started' });
  await eventually(async () => JSON.stringify(await delegations()) === JSON.stringify([second.pool_id]));
  expect(await parent.ip_pools.delegate(third.pool_id, sub)).toMatchObject({ message: 'success' });
  expect(await delegations()).toEqual([second.pool_id, third.pool_id].sort());
});

test('an IP delegated to a subaccount is its own to use; one in a pool of the parent is refused, as Mailgun refuses it', async () => {
  const parent = sdk(url());
  const sub = (await parent.subaccounts.create('Reseller')).subaccount.id;
  const subIps = async () => (await call(`${url()}/v3/ips`, { headers: { 'x-mailgun-on-behalf-of': sub } })).json.items;
  const delegate = (ip: string) => call(`${url()}/v5/accounts/subaccounts/${sub}/ip`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: `ip=${ip}` });
  const pooled = ((await parent.ip_pools.list()).ip_pools as unknown as Array<{ name: string; ips: string[] }>).find((pool) => pool.ips.length)!;
  const refused = await delegate(pooled.ips[0]!);
  expect([refused.status, refused.json]).toEqual([400, { message: `IP ${pooled.ips[0]} is in the IP pool ${pooled.name}: an IP in a pool cannot be delegated` }]);
  expect(await subIps()).toEqual([]);
  expect((await delegate('203.0.113.9')).json).toEqual({ message: 'IP 203.0.113.9 is not a dedicated IP of this account' });

  const free = (await listIps()).assignable_to_pools[0]!;
  expect((await delegate(free)).json).toEqual({ message: 'success' });
  expect(await subIps()).toEqual([free]);
});

test('a warming IP sends no more than its stage allows in an hour; the rest waits, unsent', async () => {
  const domain = await activeDomain('warming.example.com');
  const start = await call(`${url()}/v3/ip_warmups/${IP_A}`, { method: 'POST' });
  expect(start.json).toEqual({ message: 'success' });
  expect((await call(`${url()}/v3/ip_warmups/${IP_A}`, { method: 'POST' })).status).toBe(400);
  const details = (await call(`${url()}/v3/ip_warmups/${IP_A}`)).json.details as Record<string, unknown>;
  expect(details).toMatchObject({ ip: IP_A, stage_number: 1, stage: 1, stage_volume_limit: 200, stage_limit: 200, throttle: 20, hourly_limit: 20, sent_within_stage: '0%', total_stages: 15 });
  expect((await listIps()).details).toContainEqual({ ip: IP_A, is_on_warmup: true });

  // Three messages of ten at once from the warming address (o:sending-ip keeps the test independent
  // of the pools above): their workers share the hour's 20 between them, never more.
  const ids = await Promise.all([0, 1, 2].map((m) => send(domain, Array.from({ length: 10 }, (_, i) => `reader${m}-${i}@example.com`), { 'o:sending-ip': IP_A })));
  const deliveredCount = async () => {
    const all = await Promise.all(ids.map((id) => eventsOf<{ event: string; envelope: Record<string, string> }>(url(), domain, id)));
    return all.flat();
  };
  const delivered = await eventually(async () => {
    const events = (await deliveredCount()).filter((e) => e.event === 'delivered');
    return events.length >= 20 && events;
  });
  expect(new Set(delivered.map((e) => e.envelope['sending-ip']))).toEqual(new Set([IP_A]));
  // The other ten are held back: not failed, not sent from another address, not sent at all.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const events = await deliveredCount();
  expect(events.filter((e) => e.event === 'delivered')).toHaveLength(20);
  expect(events.filter((e) => e.event === 'failed')).toHaveLength(0);
  expect(ids.flatMap((id) => sesSendsOf(platform.us, id.slice(1, -1)).flatMap((m) => m.destinations))).toHaveLength(20);
  expect((await call(`${url()}/v3/ip_warmups/${IP_A}`)).json.details).toMatchObject({ sent_this_hour: 20, sent_within_stage: '10%' });

  expect((await call(`${url()}/v3/ip_warmups/${IP_A}`, { method: 'DELETE' })).json).toEqual({ message: 'success' });
  expect((await call(`${url()}/v3/ip_warmups/${IP_A}`)).status).toBe(404);
});

test('the periodic job moves a warming IP on once a stage has lasted a day and sent its volume, and tells SES', async () => {
  const dayAgo = new Date(Date.now() - MIN_STAGE_MS - 60_000);
  const percentOf = async (ip: string) => (await platform.us.run(() => sesDedicatedIps())).find((d) => d.Ip === ip)!;
  await platform.us.run(() => startWarmup(IP_B, accountId, dayAgo));
  expect(await percentOf(IP_B)).toMatchObject({ WarmupStatus: 'IN_PROGRESS', WarmupPercentage: 1 });

  // A day without the stage's volume sent: it stays.
  await platform.us.run(() => advanceWarmups());
  expect((await call(`${url()}/v3/ip_warmups/${IP_B}`)).json.details).toMatchObject({ stage_number: 1 });
  await platform.us.run(() => addToCounter(warmupKeys.ipWarmup(IP_B), 'sentInStage', 200));
  await platform.us.run(() => advanceWarmups());
  const details = (await call(`${url()}/v3/ip_warmups/${IP_B}`)).json.details as Record<string, unknown>;
  expect(details).toMatchObject({ stage_number: 2, stage_volume_limit: 500, hourly_limit: 50, stage_start_volume: 200, sent_within_stage: '0%' });
  expect(details['stage_history']).toEqual([{ first_updated_at: dayAgo.toISOString(), completed_at: expect.any(String), limit: 200 }]);
  expect(await percentOf(IP_B)).toMatchObject({ WarmupStatus: 'IN_PROGRESS', WarmupPercentage: 7 });

  await call(`${url()}/v3/ip_warmups/${IP_B}`, { method: 'DELETE' });
  expect(await percentOf(IP_B)).toMatchObject({ WarmupStatus: 'DONE', WarmupPercentage: 100 });
});
