import type { LocalPlatform } from '../../lib/local/platform';
import { bucketStart } from '../../functions/analytics/buckets';
import { addToCounters } from '../../functions/analytics/counter-store';
import { reassess } from '../../functions/sending-ips/dynamic-pools';
import { call, eventsOf, eventually, primaryAccountId, sdk, sdkError, startTestPlatform } from '../support/platform';

// Dynamic IP pools as an account meets them: three reputation bands of its dedicated IPs, a domain
// enrolled at the band its own record earns (the analytics counters), moved when its record
// changes, pinned by an override; its mail leaves from its band's IPs.
let platform: LocalPlatform;
let accountId: string;
const [GOOD, POOR, NEW] = ['192.0.2.20', '192.0.2.21', '192.0.2.22'];

beforeAll(async () => {
  platform = await startTestPlatform({ env: { LOCAL_DEDICATED_IPS: [GOOD, POOR, NEW].join(',') } });
  accountId = await primaryAccountId(platform.us);
});
afterAll(() => platform.close());

const url = () => platform.us.url;
const form = (fields: Record<string, string | readonly string[]>) => {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
  return { contentType: 'application/x-www-form-urlencoded', body: body.toString() };
};

async function sendingIpOf(domain: string): Promise<string | undefined> {
  const id = (await sdk(url()).messages.create(domain, { from: `news@${domain}`, to: 'reader@example.com', subject: 'Hello', text: 'x' })).id!;
  const delivered = await eventually(async () => (await eventsOf<{ event: string; envelope: Record<string, string> }>(url(), domain, id)).find((e) => e.event === 'delivered'));
  return delivered.envelope['sending-ip'];
}

test('the bands take the account\'s IPs, one band each, each with an IP that is not warming', async () => {
  expect((await call(`${url()}/v3/dynamic_pools`)).json).toEqual({ pools: [], good_reputation: [], poor_reputation: [], new_senders: [] });
  const bad = [
    [{ good_reputation: GOOD, poor_reputation: POOR }, 'dynamic_new needs at least one IP that is not warming up'],
    [{ good_reputation: [GOOD, POOR], poor_reputation: POOR, new_senders: NEW }, `IP ${POOR} cannot be in both dynamic_good and dynamic_poor`],
    [{ good_reputation: '203.0.113.1', poor_reputation: POOR, new_senders: NEW }, 'IP 203.0.113.1 is not a dedicated IP of this account'],
  ] as const;
  for (const [fields, message] of bad) expect((await call(`${url()}/v3/dynamic_pools/all`, { method: 'POST', ...form(fields) })).json).toEqual({ message });
  const set = await call(`${url()}/v3/dynamic_pools/all`, { method: 'POST', ...form({ good_reputation: GOOD, poor_reputation: POOR, new_senders: NEW }) });
  expect(set.json).toEqual({ good_reputation: [GOOD], poor_reputation: [POOR], new_senders: [NEW] });
  const listed = (await call(`${url()}/v3/dynamic_pools`)).json as { pools: Array<{ name: string; ips: string[]; account_id: string }> };
  expect(listed.pools.map((p) => [p.name, p.ips, p.account_id])).toEqual([['dynamic_good', [GOOD], accountId], ['dynamic_poor', [POOR], accountId], ['dynamic_new', [NEW], accountId]]);
  expect((await call(`${url()}/v3/dynamic_pools/dynamic_best`, { method: 'PATCH', ...form({ add_ip: GOOD }) })).status).toBe(404);
});

test('a domain is enrolled at the band its record earns, sends from it, moves when its record changes, and can be pinned', async () => {
  const mg = sdk(url());
  await mg.domains.create({ name: 'dynamic.example.com' });
  await mg.domains.verify('dynamic.example.com');
  expect(((await call(`${url()}/v3/domains/dynamic_pools/assignable`)).json.items as Array<{ name: string }>).map((d) => d.name)).toContain('dynamic.example.com');
  expect((await call(`${url()}/v3/domains/dynamic.example.com/dynamic_pools`, { method: 'POST' })).json).toEqual({ message: 'success' });
  expect((await call(`${url()}/v3/domains/dynamic.example.com/dynamic_pools`, { method: 'POST' })).status).toBe(400);

  // No record yet: a new sender.
  const preview = (await call(`${url()}/v1/dynamic_pools/domains/dynamic.example.com/preview`)).json;
  expect(preview).toEqual({ pool: 'dynamic_new', metrics: { bounce_rate: { value: 0, band: 'dynamic_good' }, complaint_rate: { value: 0, band: 'dynamic_good' }, processed_count: { value: 0, band: 'dynamic_new' } } });
  expect(await sendingIpOf('dynamic.example.com')).toBe(NEW);

  // The message just sent is counted by the event stream a moment later; then a month of mail with
  // 10% hard bounces is added, as the analytics counters would hold it; the daily reassessment moves it.
  await eventually(async () => ((await call(`${url()}/v1/dynamic_pools/domains/dynamic.example.com/preview`)).json.metrics as { processed_count: { value: number } }).processed_count.value === 1);
  const today = bucketStart(Date.now(), 'day');
  await platform.us.run(() => addToCounters([{ accountId, kind: ['domain'], values: ['dynamic.example.com'], resolution: 'day', bucket: today, counts: { processed: 1999, delivered_smtp: 1800, hard_bounces: 200 } }], 'seeded-record'));
  await platform.us.run(() => reassess(accountId, Date.now() + 25 * 3600_000));
  const listed = (await call(`${url()}/v1/dynamic_pools/domains`)).json as { items: Array<Record<string, unknown>>; total_items: number };
  expect(listed.total_items).toBe(1);
  expect(listed.items[0]).toMatchObject({ name: 'dynamic.example.com', pool: 'dynamic_poor', processed_count: 2000, bounce_rate: 0.1, complaint_rate: 0 });
  expect(await sendingIpOf('dynamic.example.com')).toBe(POOR);
  const history = (await call(`${url()}/v1/dynamic_pools/domains/dynamic.example.com/history`)).json.items as Array<Record<string, unknown>>;
  expect(history.map((h) => [h['prev_band'], h['new_band']])).toEqual([['dynamic_new', 'dynamic_poor'], ['', 'dynamic_new']]);
  expect(history[0]).toMatchObject({ reason: 'bounce rate in poor threshold', processed_count: 2000, domain_name: 'dynamic.example.com' });
  expect(((await call(`${url()}/v1/dynamic_pools/history?moved_to=dynamic_poor`)).json.items as unknown[]).length).toBe(1);

  // An override pins it, whatever its record says.
  expect((await call(`${url()}/v1/dynamic_pools/domains/dynamic.example.com/override`, { method: 'PUT', ...form({ pool: 'dynamic_good' }) })).json).toEqual({ message: 'success' });
  expect(await sendingIpOf('dynamic.example.com')).toBe(GOOD);
  expect((await call(`${url()}/v1/dynamic_pools/domains/dynamic.example.com/override`, { method: 'PUT', ...form({ pool: 'dynamic_best' }) })).status).toBe(404);

  // The pools cannot go while a domain is in them; a domain leaves with a replacement.
  expect((await call(`${url()}/v3/dynamic_pools/all`, { method: 'DELETE' })).status).toBe(400);
  expect((await call(`${url()}/v3/domains/dynamic.example.com/dynamic_pools`, { method: 'DELETE' })).status).toBe(400);
  expect((await call(`${url()}/v3/domains/dynamic.example.com/dynamic_pools?replacement_ip=shared`, { method: 'DELETE' })).json).toEqual({ message: 'success' });
  expect(await sendingIpOf('dynamic.example.com')).toBeUndefined();
  expect((await call(`${url()}/v3/dynamic_pools/all`, { method: 'DELETE' })).json).toEqual({ message: 'success' });
  expect((await sdkError(sdk(url()).ips.get('203.0.113.1'))).status).toBe(404);
});
