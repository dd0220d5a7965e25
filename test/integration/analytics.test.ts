import { ensurePrimaryAccount } from '../../functions/accounts/bootstrap';
import { eventCounter } from '../../functions/analytics/count-events';
import { COUNT_SOURCES } from '../../functions/event-stream/handler';
import { readEvents } from '../../functions/events/event-store';
import type { LocalPlatform } from '../../lib/local/platform';
import { IPHONE, linksIn, mimeOf } from '../support/mail';
import { ADMIN_KEY, call, eventually, sandboxOf, sdk, startTestPlatform } from '../support/platform';

/*
 * Counts in stats, metrics and aggregates equal what was sent: test-mode sends (delivered without
 * SES), real sends to the SES stand-in's simulator (a bounce, a complaint), and a tracked message
 * opened twice and clicked once from an iPhone in the US.
 */
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
let accountId: string;
const startedAt = Date.now();

const eventCount = async (query: string) => ((await call(`${platform.us.url}/v3/${sandbox}/events?${query}&limit=300`)).json.items as unknown[]).length;

/** A number at a dotted path of a JSON reply (`failed.permanent.bounce`). */
type Json = Record<string, unknown>;
const at = (value: unknown, path: string): number => path.split('.').reduce<unknown>((v, k) => (v as Json | undefined)?.[k], value) as number;
const total = (items: unknown, path: string) => (items as unknown[]).reduce<number>((n, item) => n + at(item, path), 0);

const metrics = (body: Record<string, unknown>) => call(`${platform.us.url}/v1/analytics/metrics`, { method: 'POST', body: JSON.stringify(body), contentType: 'application/json' });

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
  accountId = (await platform.us.run(() => ensurePrimaryAccount({ adminKey: ADMIN_KEY }))).accountId;

  // 3 recipients in test mode: accepted and delivered, never handed to SES.
  await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: ['a@gmail.com', 'b@yahoo.com', 'c@example.org'], subject: 'Test', text: 'hi', 'o:tag': 'launch', 'o:testmode': 'yes' } as never);
  // SES's simulator: one bounce (a hard bounce), one delivery followed by a complaint.
  await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: ['bounce@simulator.amazonses.com', 'complaint@simulator.amazonses.com'], subject: 'Sim', text: 'hi', 'o:tag': 'sim' } as never);
  // A tracked message, opened twice and clicked once from an iPhone at a US address.
  const tracked = await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: 'reader@gmail.com', subject: 'Tracked', html: '<a href="https://example.com/x">x</a>', 'o:tag': 'launch', 'o:tracking': 'yes' } as never);
  const mime = await mimeOf(platform.us, tracked.id!, 'reader@gmail.com');
  const headers = { 'user-agent': IPHONE, 'x-forwarded-for': '8.8.8.8' };
  await fetch(linksIn(platform.us, mime, 'o')[0]!, { headers });
  await fetch(linksIn(platform.us, mime, 'o')[0]!, { headers });
  expect((await fetch(linksIn(platform.us, mime, 'c')[0]!, { headers, redirect: 'manual' })).status).toBe(302);

  // Everything has been recorded: 6 accepted, 5 delivered, 1 failed, 1 complaint, 2 opens, 1 click.
  await eventually(async () => (await eventCount('event=delivered')) === 5 && (await eventCount('event=failed')) === 1 && (await eventCount('event=complained')) === 1);
  await eventually(async () => (await eventCount('event=opened')) === 2 && (await eventCount('event=clicked')) === 1);
  // Counted through the event stream: every accepted event and every open reached the counters.
  await eventually(async () => {
    const m = (await metrics({ duration: '1d', metrics: ['accepted_count', 'delivered_count', 'opened_count', 'clicked_count', 'complained_count'] })).json.items as Array<{ metrics: Json }>;
    return JSON.stringify(m[0]?.metrics) === JSON.stringify({ accepted_count: 6, delivered_count: 5, opened_count: 2, clicked_count: 1, complained_count: 1 });
  });
});
afterAll(() => platform.close());

describe('events recorded, as counted', () => {
  it('carry the country of the opening address', async () => {
    const opened = (await call(`${platform.us.url}/v3/${sandbox}/events?event=opened`)).json.items as Array<Record<string, unknown>>;
    expect(opened[0]).toMatchObject({ geolocation: { country: 'US' }, 'client-info': { 'device-type': 'mobile' } });
  });
});

describe('stats (mailgun.js stats client)', () => {
  it('domain totals equal what was sent', async () => {
    const stats = await mg.stats.getDomain(sandbox, { event: ['accepted', 'delivered', 'failed', 'opened', 'clicked', 'complained', 'unsubscribed', 'stored'], duration: '1d', resolution: 'hour' } as never);
    expect(stats.resolution).toBe('hour');
    // The hours overlapping the last 24: the partial first and current hours included.
    expect(stats.stats.length).toBeGreaterThanOrEqual(24);
    expect(stats.stats.length).toBeLessThanOrEqual(25);
    const expected = {
      'accepted.outgoing': 6,
      'accepted.total': 6,
      'delivered.smtp': 5,
      'delivered.total': 5,
      'failed.permanent.bounce': 1,
      'failed.permanent.total': 1,
      'failed.temporary.total': 0,
      'complained.total': 1,
      'opened.total': 2,
      'opened.unique': 1,
      'clicked.total': 1,
      'clicked.unique': 1,
    };
    expect(Object.fromEntries(Object.keys(expected).map((path) => [path, total(stats.stats, path)]))).toEqual(expected);
    expect(stats.stats[0]!.time).toBeInstanceOf(Date);
  });

  it('account totals at day resolution, with only the events asked for', async () => {
    const raw = await call(`${platform.us.url}/v3/stats/total?event=accepted&event=delivered&duration=2d`);
    expect(raw.status).toBe(200);
    const stats = raw.json.stats as Json[];
    expect(stats.length).toBeGreaterThanOrEqual(2);
    expect(raw.json.start).toMatch(/^\w{3}, \d{2} \w{3} \d{4} 00:00:00 UTC$/);
    expect(total(stats, 'accepted.total')).toBe(6);
    expect(total(stats, 'delivered.total')).toBe(5);
    expect(stats[0]).not.toHaveProperty('opened');
  });

  it('per domain for one day, and filtered and grouped', async () => {
    const day = Math.floor(Date.now() / 1000);
    const domains = await call(`${platform.us.url}/v3/stats/total/domains?event=delivered&timestamp=${day}`);
    expect(domains.json.stats).toEqual([expect.objectContaining({ domain: sandbox, delivered: expect.objectContaining({ total: 5 }) })]);
    const byTag = await call(`${platform.us.url}/v3/stats/filter?event=delivered&event=accepted&filter=domain:${sandbox}&group=tag&duration=1d`);
    const tags = Object.fromEntries((byTag.json.stats as Json[]).map((s) => [s['tag'], at(s, 'delivered.total')]));
    expect(tags).toEqual({ launch: 4, sim: 1 });
    const byProvider = await call(`${platform.us.url}/v3/stats/filter?event=accepted&group=provider&duration=1d`);
    const providers = Object.fromEntries((byProvider.json.stats as Json[]).map((s) => [s['provider'], at(s, 'accepted.total')]));
    expect(providers).toEqual({ 'gmail.com': 2, 'yahoo.com': 1, 'example.org': 1, 'simulator.amazonses.com': 2 });
  });

  it('refuse what they cannot answer with a 400', async () => {
    expect((await call(`${platform.us.url}/v3/stats/total`)).status).toBe(400);
    expect((await call(`${platform.us.url}/v3/stats/total?event=bogus`)).json.message).toMatch(/event/);
    expect((await call(`${platform.us.url}/v3/stats/total?event=sent&duration=1w`)).status).toBe(400);
    expect((await call(`${platform.us.url}/v3/stats/total?event=accepted&duration=1w`)).json.message).toMatch(/duration/);
    expect((await call(`${platform.us.url}/v3/stats/total?event=accepted&resolution=hour&duration=365d`)).json.message).toMatch(/coarser/);
    expect((await call(`${platform.us.url}/v3/stats/filter?event=accepted&group=ip`)).status).toBe(400);
    expect((await call(`${platform.us.url}/v3/nosuch.example/stats/total?event=accepted`)).status).toBe(404);
  });
});

describe('metrics (mailgun.js metrics client)', () => {
  it('counts and rates over a time series, with aggregates', async () => {
    const end = new Date(Date.now() + 3_600_000).toUTCString();
    const result = await mg.metrics.getAccount({
      end,
      duration: '3d',
      resolution: 'day',
      dimensions: ['time'],
      metrics: ['accepted_count', 'delivered_count', 'sent_count', 'opened_count', 'unique_opened_count', 'clicked_count', 'complained_count', 'hard_bounces_count', 'delivered_rate', 'opened_rate', 'bounce_rate'],
      include_aggregates: true,
    } as never);
    const body = result as unknown as { items: Array<{ dimensions: unknown[] }>; aggregates: { metrics: unknown }; start: unknown; pagination: unknown };
    expect(body.items.length).toBeGreaterThanOrEqual(3);
    expect(body.items[0].dimensions[0]).toMatchObject({ dimension: 'time', value: expect.stringMatching(/ 00:00:00 \+0000$/) });
    expect(body.aggregates.metrics).toEqual({
      accepted_count: 6,
      delivered_count: 5,
      sent_count: 6,
      opened_count: 2,
      unique_opened_count: 1,
      clicked_count: 1,
      complained_count: 1,
      hard_bounces_count: 1,
      delivered_rate: '83.33',
      opened_rate: '40.00',
      bounce_rate: '16.67',
    });
    expect(body.start).toBeInstanceOf(Date);
    expect(body.pagination).toMatchObject({ sort: 'time:asc', skip: 0, total: body.items.length });
  });

  it('by tag, provider and country, filtered by domain and tag', async () => {
    const byTag = await metrics({ duration: '1d', dimensions: ['tag'], metrics: ['delivered_count', 'opened_count'], pagination: { sort: 'delivered_count:desc' } });
    expect(byTag.json.items).toEqual([
      { dimensions: [{ dimension: 'tag', value: 'launch', display_value: 'launch' }], metrics: { delivered_count: 4, opened_count: 2 } },
      { dimensions: [{ dimension: 'tag', value: 'sim', display_value: 'sim' }], metrics: { delivered_count: 1, opened_count: 0 } },
    ]);
    // Rates are strings on the wire but sort as numbers: 100.00 above 50.00.
    const byRate = await metrics({ duration: '1d', dimensions: ['tag'], metrics: ['delivered_rate'], pagination: { sort: 'delivered_rate:desc' } });
    expect(byRate.json.items).toEqual([
      { dimensions: [{ dimension: 'tag', value: 'launch', display_value: 'launch' }], metrics: { delivered_rate: '100.00' } },
      { dimensions: [{ dimension: 'tag', value: 'sim', display_value: 'sim' }], metrics: { delivered_rate: '50.00' } },
    ]);
    const gmail = await metrics({
      duration: '1d',
      dimensions: ['recipient_provider'],
      metrics: ['accepted_count'],
      filter: { AND: [{ attribute: 'domain', comparator: '=', values: [{ label: sandbox, value: sandbox }] }, { attribute: 'tag', comparator: '=', values: [{ label: 'launch', value: 'launch' }] }] },
    });
    expect(gmail.json.items).toEqual(
      expect.arrayContaining([
        { dimensions: [{ dimension: 'recipient_provider', value: 'Gmail', display_value: 'Gmail' }], metrics: { accepted_count: 2 } },
        { dimensions: [{ dimension: 'recipient_provider', value: 'Yahoo', display_value: 'Yahoo' }], metrics: { accepted_count: 1 } },
      ]),
    );
    const countries = await metrics({ duration: '1d', dimensions: ['country'], metrics: ['opened_count', 'unique_clicked_count'] });
    expect(countries.json.items).toEqual([{ dimensions: [{ dimension: 'country', value: 'US', display_value: 'US' }], metrics: { opened_count: 2, unique_clicked_count: 1 } }]);
    const notSim = await metrics({ duration: '1d', metrics: ['accepted_count'], filter: { AND: [{ attribute: 'tag', comparator: '!=', values: [{ label: 'sim', value: 'sim' }] }] } });
    expect(notSim.json.items).toEqual([{ dimensions: [], metrics: { accepted_count: 4 } }]);
  });

  it('usage: messages processed, and nothing that is not metered', async () => {
    const usage = (await mg.metrics.getAccountUsage({ duration: '1d', resolution: 'month', dimensions: ['time'], metrics: ['processed_count'], include_aggregates: true } as never)) as unknown as { aggregates: { metrics: unknown } };
    expect(usage.aggregates.metrics).toEqual({ processed_count: 6 });
    const refused = await call(`${platform.us.url}/v1/analytics/usage/metrics`, { method: 'POST', body: JSON.stringify({ metrics: ['email_validation_count'] }), contentType: 'application/json' });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/processed_count/);
  });

  it('refuse, with a 400 naming the problem, what the counters cannot answer', async () => {
    for (const [body, message] of [
      [{ metrics: ['delivered_count'], dimensions: ['device', 'country'] }, /cannot be combined/],
      [{ metrics: ['delivered_count'], dimensions: ['ip'] }, /not available/],
      [{ metrics: ['nope_count'] }, /Unknown metric/],
      [{ metrics: [] }, /metrics/],
      [{ metrics: ['delivered_count'], resolution: 'week' }, /resolution/],
      [{ metrics: ['delivered_count'], start: 'yesterday' }, /start/],
      [{ metrics: ['delivered_count'], filter: { AND: [{ attribute: 'domain', comparator: 'like', values: [{ label: 'x', value: 'x' }] }] } }, /comparator/],
      [{ metrics: ['delivered_count'], filter: { OR: [] } }, /filter/],
      [{ metrics: ['delivered_count'], pagination: { limit: 5000 } }, /limit/],
      // Windows too large to walk are refused before any bucket list is built.
      [{ metrics: ['delivered_count'], resolution: 'hour', duration: '200000000h' }, /more than 1500 hours/],
      [{ metrics: ['delivered_count'], duration: '99999999999999d' }, /out of range/],
      [{ metrics: ['delivered_count'], end: '99999999999999999' }, /end/],
    ] as const) {
      const res = await metrics(body);
      expect([res.status, res.json.message]).toEqual([400, expect.stringMatching(message)]);
    }
    const form = await call(`${platform.us.url}/v1/analytics/metrics`, { method: 'POST', body: 'metrics=delivered_count', contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(400);
  });
});

describe('tag stats and aggregates (mailgun.js domainTags client)', () => {
  it('a tag\'s stats, by path and by query', async () => {
    const stat = await mg.domains.domainTags.statistic(sandbox, 'launch', { event: ['delivered', 'opened'], duration: '1d', resolution: 'day' } as never);
    expect(stat.tag).toBe('launch');
    expect(total(stat.stats, 'delivered.total')).toBe(4);
    const byQuery = await call(`${platform.us.url}/v3/${sandbox}/tag/stats?tag=launch&event=opened&country=US&duration=1d`);
    expect(total(byQuery.json.stats, 'opened.total')).toBe(2);
  });

  it('countries, providers and devices of a tag, with the singular top key', async () => {
    expect(await mg.domains.domainTags.countries(sandbox, 'launch')).toEqual({ tag: 'launch', country: { us: { clicked: 1, complained: 0, opened: 2, unique_clicked: 1, unique_opened: 1, unsubscribed: 0 } } });
    expect(await mg.domains.domainTags.devices(sandbox, 'launch')).toEqual({ tag: 'launch', device: { mobile: { clicked: 1, complained: 0, opened: 2, unique_clicked: 1, unique_opened: 1, unsubscribed: 0 } } });
    const providers = await mg.domains.domainTags.providers(sandbox, 'launch');
    expect((providers as unknown as { provider: Json }).provider['gmail.com']).toMatchObject({ accepted: 2, delivered: 2, opened: 2, clicked: 1 });
    const byQuery = await call(`${platform.us.url}/v3/${sandbox}/tag/stats/aggregates?tag=launch&type=device`);
    expect(byQuery.json).toEqual({ tag: 'launch', device: { mobile: expect.objectContaining({ opened: 2 }) } });
  });

  it('domain aggregates', async () => {
    const providers = await call(`${platform.us.url}/v3/${sandbox}/aggregates/providers`);
    expect(providers.json.providers).toMatchObject({ 'gmail.com': { accepted: 2, delivered: 2 }, 'simulator.amazonses.com': { accepted: 2, complained: 1 } });
    expect((await call(`${platform.us.url}/v3/${sandbox}/aggregates/countries`)).json).toEqual({ countries: { us: expect.objectContaining({ opened: 2 }) } });
    expect((await call(`${platform.us.url}/v3/${sandbox}/aggregates/browsers`)).status).toBe(404);
  });
});

describe('counting', () => {
  it('a batch offered twice is counted once', async () => {
    const before = (await metrics({ duration: '1d', metrics: ['accepted_count'] })).json.items;
    await platform.us.run(async () => {
      const again = await readEvents(accountId, sandbox, { from: startedAt - 1000, to: Date.now() + 1000, ascending: true, limit: 10_000 });
      const all = again.map((e) => ({ accountId, domain: sandbox, data: e.data }));
      // The same events as one new batch twice: the second is refused by every counter it reaches.
      const batch = all.filter((e) => e.data.event === 'accepted').slice(0, 2);
      const countEvents = eventCounter(COUNT_SOURCES);
      await countEvents(batch);
      await countEvents(batch);
    });
    const after = (await metrics({ duration: '1d', metrics: ['accepted_count'] })).json.items as Array<{ metrics: { accepted_count: number } }>;
    expect(after[0]!.metrics.accepted_count).toBe((before as typeof after)[0]!.metrics.accepted_count + 2);
  });
});
