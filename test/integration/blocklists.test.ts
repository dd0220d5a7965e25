import { createHmac } from 'node:crypto';
import type { LocalPlatform } from '../../lib/local/platform';
import { startDnsServer } from '../support/dns-server';
import { call, eventually, sdk, startTestPlatform } from '../support/platform';
import { WebhookReceiver } from '../support/webhook-receiver';

// Blocklist monitoring against real DNS: a loopback server serves fixture zones for every list of
// the catalogue (with RFC 5782 test points, so each run's self-test passes), the platform asks it
// through BLOCKLIST_RESOLVERS, and the test lists, errs and delists an IP and a domain by editing
// the zones. Checks run every second here (BLOCKLIST_CHECK_INTERVAL=1).
const IP_ZONES = ['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org', 'dnsbl-1.uceprotect.net'];
const TEST_POINTS: Array<[string, string]> = [
  ...IP_ZONES.map((zone): [string, string] => [`2.0.0.127.${zone}`, '127.0.0.2']),
  ['dbltest.com.dbl.spamhaus.org', '127.0.1.2'],
  // URIBL's test domain is on all its lists (black, grey, red); SURBL's on all of its.
  ['test.uribl.com.multi.uribl.com', '127.0.0.14'],
  ['test.surbl.org.multi.surbl.org', '127.0.0.216'],
];

let dns: Awaited<ReturnType<typeof startDnsServer>>;
let receiver: WebhookReceiver;
let platform: LocalPlatform;
const url = () => platform.us.url;

beforeAll(async () => {
  dns = await startDnsServer();
  for (const [name, address] of TEST_POINTS) dns.set(name, { a: [address] });
  receiver = await new WebhookReceiver().start();
  platform = await startTestPlatform({ periodicJobEveryMs: 250, env: { BLOCKLIST_RESOLVERS: dns.address, BLOCKLIST_CHECK_INTERVAL: '1' } });
});
afterAll(async () => {
  await platform.close();
  await dns.close();
  await receiver.close();
});

type IpAddress = { ip: string; ip_pool: string; description: string; state: string; listed: Array<{ list: string; name: string; comments: string[]; first_seen: string | null; last_seen: string; delist_requested_at: string }>; unknown_lists: unknown[] };
const ipOf = async (ip: string) => (await call(`${url()}/v1/inboxready/ip_addresses/${ip}`)).json as unknown as IpAddress;
const ipEvents = async () => ((await call(`${url()}/v1/blocklist-monitoring/events?limit=50`)).json as { items: Array<{ ip: string; event: string; blocklist: string }> }).items;

/** Polls `read` until `ok` holds of what it read; on timeout, says what it read last. */
async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  let last: T | undefined;
  try {
    return await eventually(async () => {
      last = await read();
      return ok(last) ? { value: last } : undefined;
    }).then((found) => found.value);
  } catch {
    throw new Error(`condition not met in time; last read: ${JSON.stringify(last)}`);
  }
}

/** Waits out at least `runs` more completed checks of an IP. */
async function afterChecks(ip: string, runs: number) {
  const checkedAt = async () => ((await call(`${url()}/v1/inboxready/ip_addresses/${ip}`)).json as { last_checked_at: string }).last_checked_at;
  for (let i = 0; i < runs; i++) {
    const before = await checkedAt();
    await waitFor(checkedAt, (at) => at !== before);
  }
}

test('an IP is checked once added, listed after two agreeing runs, kept through resolver errors, delisted after two clean runs; each change is a signed alert', async () => {
  for (const event_type of ['ip_listed', 'ip_delisted']) {
    const setting = await call(`${url()}/v1/alerts/settings/events`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ event_type, channel: 'webhook', settings: { url: `${receiver.url}/alerts` } }) });
    expect(setting.status).toBe(200);
  }
  const signingKey = ((await call(`${url()}/v1/alerts/settings`)).json as { webhooks: { signing_key: string } }).webhooks.signing_key;
  const added = await call(`${url()}/v1/inboxready/ip_addresses`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ ip: '203.0.113.77', ip_pool: 'pool-a', description: 'outbound' }) });
  expect(added.status).toBe(201);
  expect(added.json).toMatchObject({ ip: '203.0.113.77', ip_pool: 'pool-a', description: 'outbound', listed: [] });
  expect((await call(`${url()}/v1/inboxready/ip_addresses`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ ip: '203.0.113.77' }) })).status).toBe(409);
  expect((await call(`${url()}/v1/inboxready/ip_addresses`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ ip: 'not-an-ip' }) })).status).toBe(400);
  await waitFor(() => ipOf('203.0.113.77'), (ip) => ip.state === 'healthy');

  // Spamhaus lists it, with a reason in TXT.
  dns.set('77.113.0.203.zen.spamhaus.org', { a: ['127.0.0.2'], txt: ['https://check.spamhaus.org/sbl/query/SBL123'] });
  await waitFor(() => ipOf('203.0.113.77'), (ip) => ip.state === 'listed');
  const listed = await ipOf('203.0.113.77');
  expect(listed.listed).toEqual([
    {
      list: 'zen.spamhaus.org',
      name: 'Spamhaus ZEN',
      comments: ['https://check.spamhaus.org/results/?query=203.0.113.77', '127.0.0.2 SBL', 'https://check.spamhaus.org/sbl/query/SBL123'],
      first_seen: expect.any(String),
      last_seen: expect.any(String),
      delist_requested_at: '0001-01-01T00:00:00Z',
    },
  ]);
  expect(await ipEvents()).toEqual([expect.objectContaining({ ip: '203.0.113.77', event: 'ip_listed', blocklist: 'Spamhaus ZEN' })]);
  // Runs that find it as it was confirm it (one write per account and task) instead of rewriting
  // it: its check time and the listing's last_seen move on, first_seen stays.
  await afterChecks('203.0.113.77', 2);
  const confirmed = await ipOf('203.0.113.77');
  expect(confirmed.listed.map((l) => l.first_seen)).toEqual(listed.listed.map((l) => l.first_seen));
  expect(confirmed.listed[0]!.last_seen > listed.listed[0]!.last_seen).toBe(true);

  // Errors change nothing: a SERVFAIL, then Spamhaus's "public resolver" code, are not delistings.
  dns.set('77.113.0.203.zen.spamhaus.org', { servfail: true });
  await afterChecks('203.0.113.77', 2);
  dns.set('77.113.0.203.zen.spamhaus.org', { servfail: false, a: ['127.255.255.254'], txt: [] });
  await afterChecks('203.0.113.77', 2);
  expect((await ipOf('203.0.113.77')).state).toBe('listed');
  expect(await ipEvents()).toHaveLength(1);

  // Gone from the zone (NXDOMAIN): delisted after two clean runs, the second event.
  dns.delete('77.113.0.203.zen.spamhaus.org');
  await waitFor(() => ipOf('203.0.113.77'), (ip) => ip.state === 'healthy');
  const events = await ipEvents();
  expect(events.map((e) => e.event)).toEqual(['ip_listed', 'ip_delisted']);
  // One alert per change, signed over the exact bytes with the account's alerts key.
  const alerts = await waitFor(async () => receiver.on('/alerts').filter((p) => p.method === 'POST'), (posts) => posts.length >= 2);
  expect(alerts.map((p) => (JSON.parse(p.raw) as { event_data: { event: string; ip: string; blocklist: string } }).event_data)).toEqual([
    expect.objectContaining({ event: 'ip_listed', ip: '203.0.113.77', blocklist: 'Spamhaus ZEN' }),
    expect.objectContaining({ event: 'ip_delisted', ip: '203.0.113.77', blocklist: 'Spamhaus ZEN' }),
  ]);
  for (const alert of alerts) expect(alert.headers['x-sign']).toBe(createHmac('sha256', signingKey).update(alert.raw).digest('hex'));
  // Each run counts in the stats of the account.
  const stats = (await call(`${url()}/v3/stats/total?event=ip_blocklist_monitoring&duration=1d`)).json as { stats: Array<{ ip_blocklist_monitoring: { total: number } }> };
  expect(stats.stats.reduce((n, s) => n + s.ip_blocklist_monitoring.total, 0)).toBeGreaterThanOrEqual(6);
});

test('the IP routes: update, filters on events, the lists, removal with 204', async () => {
  await call(`${url()}/v1/inboxready/ip_addresses`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ ip: '198.51.100.9' }) });
  const updated = await call(`${url()}/v1/inboxready/ip_addresses/198.51.100.9`, { method: 'PUT', contentType: 'application/json', body: JSON.stringify({ description: 'marketing' }) });
  expect(updated.json).toMatchObject({ ip: '198.51.100.9', description: 'marketing' });
  expect((await call(`${url()}/v1/inboxready/ip_addresses/198.51.100.9`, { method: 'PUT', contentType: 'application/json', body: '{}' })).status).toBe(400);
  expect(((await call(`${url()}/v1/blocklist-monitoring/events?ip=198.51.100.9`)).json as { items: unknown[] }).items).toEqual([]);
  expect(((await call(`${url()}/v1/blocklist-monitoring/events?event=ip_delisted`)).json as { items: Array<{ event: string }> }).items.map((e) => e.event)).toEqual(['ip_delisted']);
  expect((await call(`${url()}/v1/blocklist-monitoring/events?event=listed`)).status).toBe(400);
  expect(((await call(`${url()}/v1/blocklist-monitoring/blocklists`)).json as { items: Array<{ blocklist: string }> }).items.map((l) => l.blocklist)).toEqual(IP_ZONES);
  const removed = await call(`${url()}/v1/inboxready/ip_addresses/198.51.100.9`, { method: 'DELETE' });
  expect(removed.status).toBe(204);
  expect((await call(`${url()}/v1/inboxready/ip_addresses/198.51.100.9`)).status).toBe(404);
  const items = ((await call(`${url()}/v1/inboxready/ip_addresses`)).json as { items: IpAddress[] }).items.map((i) => i.ip);
  expect(items).not.toContain('198.51.100.9');
  // The local SES stand-in leases dedicated IPs: the sweep monitors them for their owner.
  expect(items).toEqual(expect.arrayContaining(['192.0.2.10', '192.0.2.11']));
});

test('a verified managed domain is monitored on the domain lists: listed, its events and blocklists', async () => {
  const domain = 'news.example.com';
  await sdk(url()).domains.create({ name: domain });
  await sdk(url()).domains.verify(domain);
  expect((await call(`${url()}/v1/inboxready/domains?domain=${domain}`, { method: 'POST' })).status).toBe(200);
  const monitored = async () => ((await call(`${url()}/v1/monitoring/domains`)).json as { domains: Array<{ domain: string; state: string; listed: Array<{ list: string }> }> }).domains.find((d) => d.domain === domain);
  await waitFor(monitored, (d) => d?.state === 'healthy');

  // The DBL lists the exact name; URIBL and SURBL are asked for the registered domain.
  dns.set(`${domain}.dbl.spamhaus.org`, { a: ['127.0.1.2'] });
  await waitFor(monitored, (d) => d?.state === 'listed');
  expect((await monitored())?.listed.map((l) => l.list)).toEqual(['dbl.spamhaus.org']);
  // The lists every domain is checked on: listed on one, unknown on none, so not listed on the others; and when it was checked.
  const reply = (await call(`${url()}/v1/monitoring/domains`)).json as { blocklists: Array<{ list: string; name: string }>; domains: Array<{ domain: string; unknown_lists: unknown[]; last_checked_at: string }> };
  expect(reply.blocklists).toEqual([
    { list: 'dbl.spamhaus.org', name: 'Spamhaus DBL' },
    { list: 'multi.uribl.com', name: 'URIBL' },
    { list: 'multi.surbl.org', name: 'SURBL' },
  ]);
  const checked = reply.domains.find((d) => d.domain === domain)!;
  expect(checked.unknown_lists).toEqual([]);
  expect(Date.parse(checked.last_checked_at)).toBeGreaterThan(Date.parse('2020-01-01'));
  const blocklists = (await call(`${url()}/v1/monitoring/domains/${domain}/blocklists`)).json as { blocklists: Array<{ list: string; name: string; comments: string[] }> };
  expect(blocklists.blocklists).toEqual([expect.objectContaining({ list: 'dbl.spamhaus.org', name: 'Spamhaus DBL', comments: expect.arrayContaining(['127.0.1.2 spam domain']) })]);
  const events = (await call(`${url()}/v1/monitoring/domains/${domain}/events`)).json as { events: Array<{ event: string; domain: string; list: string }>; paging: { next: string } };
  expect(events.events).toEqual([expect.objectContaining({ event: 'domain_listed', domain, list: 'dbl.spamhaus.org' })]);
  expect(events.paging.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/monitoring\/domains\/news\.example\.com\/events\?page=next&pivot=/);
  expect(((await call(`${url()}/v1/monitoring/domains/events`)).json as { events: unknown[] }).events).toHaveLength(1);
  expect((await call(`${url()}/v1/monitoring/domains/unknown.example.com/blocklists`)).status).toBe(404);

  // No longer a managed domain: no longer monitored.
  await call(`${url()}/v1/inboxready/domains?domain=${domain}`, { method: 'DELETE' });
  expect(await monitored()).toBeUndefined();
});

test('a domain listing raises an alert that GET /v1/alerts/history lists with each channel’s delivery; another account sees none of it', async () => {
  const domain = 'history.example.com';
  // The webhook takes the save-time GET and refuses the alert itself; the email goes out.
  receiver.answer('/history', (post) => (post.method === 'GET' ? { status: 200 } : { status: 500, body: 'down for maintenance' }));
  const json = (body: unknown) => ({ method: 'POST', contentType: 'application/json', body: JSON.stringify(body) });
  const webhook = (await call(`${url()}/v1/alerts/settings/events`, json({ event_type: 'domain_listed', channel: 'webhook', settings: { url: `${receiver.url}/history` } }))).json as { id: string };
  const email = (await call(`${url()}/v1/alerts/settings/events`, json({ event_type: 'domain_listed', channel: 'email', settings: { emails: ['history@example.com'] } }))).json as { id: string };
  await sdk(url()).domains.create({ name: domain });
  await sdk(url()).domains.verify(domain);
  expect((await call(`${url()}/v1/inboxready/domains?domain=${domain}`, { method: 'POST' })).status).toBe(200);
  dns.set(`${domain}.dbl.spamhaus.org`, { a: ['127.0.1.2'] });

  type Delivery = { setting_id: string; channel: string; state: string; attempts: number; last_error?: string; next_attempt_at?: string; updated_at: string };
  type HistoryPage = { items: Array<{ id: string; event: string; subject: string; list: string; list_name: string; message: string; timestamp: string; deliveries: Delivery[] }>; paging: Record<string, string> };
  const history = async (query = '', headers: Record<string, string> = {}) => (await call(`${url()}/v1/alerts/history${query}`, { headers })).json as unknown as HistoryPage;
  const ours = (page: HistoryPage) => page.items.find((item) => item.subject === domain);
  const settled = await waitFor(
    async () => ours(await history('?event=domain_listed&limit=100')),
    (item) => item?.deliveries.find((d) => d.channel === 'email')?.state === 'delivered' && item.deliveries.find((d) => d.channel === 'webhook')?.state === 'retrying',
  );
  expect(settled).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    event: 'domain_listed',
    subject: domain,
    list: 'dbl.spamhaus.org',
    list_name: 'Spamhaus DBL',
    message: `Domain ${domain} was blocklisted by Spamhaus DBL`,
    timestamp: expect.any(String),
    deliveries: expect.arrayContaining([
      { setting_id: email.id, channel: 'email', state: 'delivered', attempts: 1, updated_at: expect.any(String) },
      { setting_id: webhook.id, channel: 'webhook', state: 'retrying', attempts: 1, last_error: 'HTTP 500', next_attempt_at: expect.any(String), updated_at: expect.any(String) },
    ]),
  });
  expect(settled!.deliveries).toHaveLength(2);
  // The email said to be delivered was taken by the sending pipeline, and goes out.
  await eventually(async () => platform.us.ses.sent.some((m) => m.destinations.includes('history@example.com') && m.raw.toString().includes(domain)));
  // Where an alert delivers is not in its history, nor any key.
  const signingKey = ((await call(`${url()}/v1/alerts/settings`)).json as { webhooks: { signing_key: string } }).webhooks.signing_key;
  const raw = JSON.stringify(await history('?limit=100'));
  expect(raw).not.toContain(receiver.url);
  expect(raw).not.toContain(signingKey);

  // A time range and pivot pages, as the events routes have them.
  const all = (await history('?limit=100')).items;
  expect(all.map((item) => item.timestamp)).toEqual([...all.map((item) => item.timestamp)].sort());
  const after = encodeURIComponent(new Date(Date.parse(settled!.timestamp) + 1).toISOString());
  expect((await history(`?timerangeStart=${after}`)).items).toEqual([]);
  expect((await history(`?timerangeEnd=${after}&limit=100`)).items.map((item) => item.id)).toContain(settled!.id);
  const last = await history('?page=last&limit=1');
  expect(last.items.map((item) => item.id)).toEqual([all.at(-1)!.id]);
  if (all.length > 1) expect((await call(last.paging['previous']!)).json).toMatchObject({ items: [{ id: all.at(-2)!.id }] });
  expect((await call(`${url()}/v1/alerts/history?event=listed`)).status).toBe(400);
  expect((await call(`${url()}/v1/alerts/history?timerangeStart=${after}&timerangeEnd=${encodeURIComponent(settled!.timestamp)}`)).status).toBe(400);

  // A subaccount has a history of its own: empty.
  const sub = (await sdk(url()).subaccounts.create('history-sub')).subaccount;
  expect((await history('?limit=100', { 'x-mailgun-on-behalf-of': sub.id })).items).toEqual([]);
});

test('without a resolver every list is unknown, with its reason, never healthy', async () => {
  const bare = await startTestPlatform();
  try {
    await call(`${bare.us.url}/v1/inboxready/ip_addresses`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ ip: '203.0.113.5' }) });
    type Unknown = { state: string; last_checked_at: string; unknown_lists: Array<{ list: string; reason: string }> };
    const ip = await waitFor(async () => (await call(`${bare.us.url}/v1/inboxready/ip_addresses/203.0.113.5`)).json as unknown as Unknown, (i) => i.last_checked_at !== '0001-01-01T00:00:00Z');
    expect(ip.state).toBe('unknown');
    expect(ip.unknown_lists.map((l) => l.list)).toEqual(IP_ZONES);
    expect(ip.unknown_lists[0]!.reason).toContain('BLOCKLIST_RESOLVERS');
  } finally {
    await bare.close();
  }
});
