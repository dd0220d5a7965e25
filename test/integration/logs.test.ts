import { newEvent, recordEvent } from '../../functions/events/event-store';
import { readLog, readLogs } from '../../functions/logs/log-reader';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, sandboxOf, sdk, sdkError, startTestPlatform } from '../support/platform';

// POST /v1/analytics/logs: the account's events across domains, read from the hourly account
// index, with the SDK's query shape, AND filters, ordering and token paging.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
const since = new Date(Date.now() - 3_600_000);
const sentIds: string[] = [];

type Filter = { AND: Array<{ attribute: string; comparator: string; values: Array<{ label: string; value: string }> }> };
const where = (attribute: string, comparator: string, ...values: string[]): Filter['AND'][number] => ({ attribute, comparator, values: values.map((value) => ({ label: value, value })) });
const messageIdOf = (item: { message?: { headers?: { 'message-id': string } } }) => item.message?.headers?.['message-id'];

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
  // Five test-mode messages: each records accepted and delivered events (ten in all).
  for (let i = 0; i < 5; i++) {
    const sent = await mg.messages.create(sandbox, {
      from: `logs@${sandbox}`,
      to: `reader${i}@logs.example`,
      subject: `Log ${i}`,
      text: 'hello',
      'o:tag': i % 2 ? ['odd'] : ['even'],
      'v:order': String(i),
      'o:testmode': 'yes',
    } as never);
    sentIds.push(sent.id!.replace(/^<|>$/g, ''));
  }
  await eventually(async () => (await mg.logs.list({ start: since, events: ['delivered'], pagination: { limit: 100 } })).items.length === 5);
});
afterAll(() => platform.close());

describe('items', () => {
  it('are shaped as logs, not events: @timestamp, account and domain objects, storage url list, variables as JSON', async () => {
    const page = await mg.logs.list({ start: since, events: ['accepted'], filter: { AND: [where('recipient', '=', 'reader0@logs.example')] } });
    expect(page.items).toHaveLength(1);
    const item = page.items[0]!;
    expect(item).toMatchObject({ event: 'accepted', domain: { name: sandbox }, recipient: 'reader0@logs.example', tags: ['even'], 'user-variables': JSON.stringify({ order: '0' }) });
    expect(item['@timestamp']).toBeInstanceOf(Date);
    expect(item['@timestamp'].getTime()).toBeGreaterThanOrEqual(since.getTime());
    expect(item.account!.id).toMatch(/^[0-9a-f]{24}$/);
    expect(item.storage!.url).toEqual([`${platform.us.url}/v3/domains/${sandbox}/messages/${item.storage!.key}`]);
    expect(item).not.toHaveProperty('timestamp');
    expect(page.start.getTime()).toBe(Math.floor(since.getTime() / 1000) * 1000);
    // The stored message is where the URL says.
    expect((await call(item.storage!.url![0]!)).status).toBe(200);
  });

  it('answer in RFC 2822 on the wire, with end defaulting to now and start to a day before it', async () => {
    const res = await call(`${platform.us.url}/v1/analytics/logs`, { method: 'POST', contentType: 'application/json', body: '{}' });
    expect(res.status).toBe(200);
    expect(res.json.start).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} -0000$/);
    const span = Date.parse(res.json.end as string) - Date.parse(res.json.start as string);
    expect(span).toBe(86_400_000);
    expect((res.json.items as unknown[]).length).toBe(10);
    expect((res.json.items as Array<Record<string, string>>)[0]!['@timestamp']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

describe('filters', () => {
  const ids = async (filter?: Filter, events?: string[]) =>
    (await mg.logs.list({ start: since, ...(filter ? { filter } : {}), ...(events ? { events } : {}), pagination: { limit: 100, sort: 'timestamp:asc' } })).items.map((item) => `${item.event}:${item.recipient}`);

  it('select by tag, recipient, domain, event and message id, all conditions together', async () => {
    expect(await ids({ AND: [where('tag', '=', 'odd'), where('event', '=', 'delivered')] })).toEqual(['delivered:reader1@logs.example', 'delivered:reader3@logs.example']);
    expect(await ids({ AND: [where('recipient', '=', 'READER2@logs.example', 'reader4@logs.example')] }, ['delivered'])).toEqual(['delivered:reader2@logs.example', 'delivered:reader4@logs.example']);
    expect(await ids({ AND: [where('domain', '=', sandbox)] })).toHaveLength(10);
    expect(await ids({ AND: [where('domain', '!=', sandbox)] })).toEqual([]);
    expect(await ids({ AND: [where('message_id', '=', `<${sentIds[3]}>`)] })).toEqual(['accepted:reader3@logs.example', 'delivered:reader3@logs.example']);
    expect(await ids({ AND: [where('subject', 'contains', 'log 4')] }, ['accepted'])).toEqual(['accepted:reader4@logs.example']);
    expect(await ids({ AND: [where('tag', 'not contains', 'ev'), where('user_variables', '=', '3')] }, ['accepted'])).toEqual(['accepted:reader3@logs.example']);
    expect(await ids({ AND: [where('size', '>', '1'), where('recipient', '=', 'reader0@logs.example')] }, ['accepted'])).toEqual(['accepted:reader0@logs.example']);
    expect(await ids({ AND: [where('size', '<', '1')] })).toEqual([]);
  });

  it('take metric events as their definitions say', async () => {
    const page = await mg.logs.list({ start: since, metric_events: ['accepted_outgoing', 'delivered_smtp'], include_totals: true, pagination: { limit: 1 } });
    expect(page.items).toHaveLength(1);
    expect(page.pagination.total).toBe(10);
    expect(page.aggregates).toEqual({ all: 10, metrics: { accepted_outgoing: 5, delivered_smtp: 5 } });
  });
});

describe('paging', () => {
  type Page = Awaited<ReturnType<typeof mg.logs.list>>;
  const list = (sort: string, token?: string) => mg.logs.list({ start: since, pagination: { sort, limit: 3, ...(token ? { token } : {}) } });

  it('walks every event once in either order, over several pages, and back', async () => {
    for (const sort of ['timestamp:asc', 'timestamp:desc']) {
      const pages: Page[] = [await list(sort)];
      while (pages.at(-1)!.items.length) pages.push(await list(sort, pages.at(-1)!.pagination.next));
      expect(pages.map((p) => p.items.length)).toEqual([3, 3, 3, 1, 0]);
      const walked = pages.flatMap((p) => p.items);
      const times = walked.map((item) => item['@timestamp'].getTime());
      expect(times).toEqual([...times].sort((a, b) => (sort === 'timestamp:asc' ? a - b : b - a)));
      expect(new Set(walked.map((item) => item.id)).size).toBe(10);
      // Previous of the third page is the second; previous of the first is empty.
      expect((await list(sort, pages[2]!.pagination.previous)).items.map((i) => i.id)).toEqual(pages[1]!.items.map((i) => i.id));
      expect((await list(sort, pages[0]!.pagination.previous)).items).toEqual([]);
      // Last is the final page's worth, in the listing's order; tokens are stable.
      expect((await list(sort, pages[0]!.pagination.last)).items.map((i) => i.id)).toEqual(walked.slice(-3).map((i) => i.id));
      expect((await list(sort)).pagination).toEqual(pages[0]!.pagination);
    }
  });

  it('keeps messages of the same send together by message id', async () => {
    const first = await mg.logs.list({ start: since, filter: { AND: [where('message_id', '=', sentIds[0]!)] }, pagination: { sort: 'timestamp:asc' } });
    expect(first.items.map(messageIdOf)).toEqual([sentIds[0], sentIds[0]]);
    expect(first.items.map((item) => item.event)).toEqual(['accepted', 'delivered']);
  });
});

describe('the hourly index', () => {
  const HOUR = 3_600_000;
  // Another account's events, written by the platform's own recordEvent at chosen instants.
  const account = 'hours0000000000000000000';
  const now = Date.now();
  const instants = [50, 49.5, 26, 25.9, 2, 0.1].map((hoursAgo) => Math.round(now - hoursAgo * HOUR));
  const read = (options: Partial<Parameters<typeof readLog>[0]>) =>
    platform.us.run(() => readLog({ accountId: account, from: now - 3 * 86_400_000, to: now, ascending: true, limit: 100, keep: () => true, budget: 1000, ...options }));

  beforeAll(async () => {
    await platform.us.run(async () => {
      for (const [i, at] of instants.entries()) await recordEvent(account, i % 2 ? 'b.example' : 'a.example', newEvent('delivered', { recipient: `r${i}@x.example` }, at));
    });
  });

  it('reads across hours and days and domains, in either order, from a position, within a budget', async () => {
    const all = await read({});
    expect(all.found.map((f) => Math.round(f.event.data.timestamp * 1000))).toEqual(instants);
    expect(new Set(all.found.map((f) => f.event.domain))).toEqual(new Set(['a.example', 'b.example']));
    expect((await read({ ascending: false })).found.map((f) => f.event.data.recipient)).toEqual(['r5@x.example', 'r4@x.example', 'r3@x.example', 'r2@x.example', 'r1@x.example', 'r0@x.example']);
    expect((await read({ after: all.found[2]!.sk, limit: 2 })).found.map((f) => f.sk)).toEqual([all.found[3]!.sk, all.found[4]!.sk]);
    expect((await read({ ascending: false, after: all.found[2]!.sk })).found.map((f) => f.sk)).toEqual([all.found[1]!.sk, all.found[0]!.sk]);
    expect((await read({ from: instants[2]!, to: instants[4]! })).found).toHaveLength(3);
    // A filter that refuses everything stops at the budget and says where, so the next page resumes there.
    const cut = await read({ keep: () => false, budget: 4 });
    expect(cut).toEqual({ found: [], stoppedAt: all.found[3]!.sk, examined: 4 });
  });

  it('shares the budget across accounts: what quiet accounts leave goes to a busy one that stopped short', async () => {
    const quiet = Array.from({ length: 5 }, (_, i) => `quiet${i}`.padEnd(24, '0'));
    const delivered = (event: { data: { event: string } }) => event.data.event === 'delivered';
    // Six events in the busy account, a budget of 7 over six accounts: an even split (1 each)
    // would stop the busy account at its first event and cut the page there.
    const merged = await platform.us.run(() => readLogs([account, ...quiet], { from: now - 3 * 86_400_000, to: now, ascending: false, limit: 50, keep: delivered, budget: 7 }));
    expect(merged.stoppedAt).toBeUndefined();
    expect(merged.found.map((f) => f.event.data.recipient)).toEqual(['r5@x.example', 'r4@x.example', 'r3@x.example', 'r2@x.example', 'r1@x.example', 'r0@x.example']);
    // A budget too small for everything still ends the page at a position the next page resumes from.
    const short = await platform.us.run(() => readLogs([account, ...quiet], { from: now - 3 * 86_400_000, to: now, ascending: false, limit: 50, keep: delivered, budget: 4 }));
    expect(short.found.map((f) => f.event.data.recipient)).toEqual(['r5@x.example', 'r4@x.example', 'r3@x.example', 'r2@x.example']);
    expect(short.stoppedAt).toBe(short.found.at(-1)!.sk);
  });
});

describe('bad input', () => {
  const post = (body: unknown) => call(`${platform.us.url}/v1/analytics/logs`, { method: 'POST', contentType: 'application/json', body: JSON.stringify(body) });

  it('reads no further than now, however far away the end is', async () => {
    // Without the bound this walks one hour partition per hour until the year 5000.
    const far = await post({ start: new Date(Date.now() - 3600_000).toUTCString(), end: 'Wed, 01 Jan 5000 00:00:00 -0000', pagination: { limit: 1 } });
    expect(far).toMatchObject({ status: 200, json: { end: 'Wed, 01 Jan 5000 00:00:00 -0000' } });
  });

  it('gets a 4xx with a message', async () => {
    const cases: Array<[unknown, string]> = [
      [{ start: 'yesterday-ish' }, "Invalid parameter 'start': expected an RFC 2822 date"],
      [{ start: 'Wed, 03 Dec 2025 00:00:00 -0000', end: 'Tue, 02 Dec 2025 00:00:00 -0000' }, "Invalid parameter 'start': must not be after 'end'"],
      [{ duration: '3w' }, "Invalid parameter 'duration': expected a number followed by h, d or m, such as 1d or 2h"],
      [{ events: ['bounced'] }, expect.stringContaining("Invalid parameter 'events': bounced is not one of accepted,")],
      [{ events: ['unique_opened'] }, "Invalid parameter 'events': unique_opened is not supported by this server's logs; ask for opened"],
      [{ metric_events: ['seed_test'] }, expect.stringContaining("Invalid parameter 'metric_events': seed_test is not supported")],
      [{ filter: { AND: [] } }, "Invalid parameter 'filter.AND': must hold at least one condition"],
      [{ filter: { AND: [where('planet', '=', 'x')] } }, expect.stringContaining("Invalid parameter 'filter.AND.0.attribute': must be one of id, domain")],
      [{ filter: { AND: [where('tag', '~', 'x')] } }, "Invalid parameter 'filter.AND.0.comparator': must be one of =, !=, contains, not contains, <, >"],
      [{ filter: { AND: [{ attribute: 'tag', comparator: '=', values: [] }] } }, "Invalid parameter 'filter.AND.0.values': must name at least one value"],
      [{ filter: { AND: [where('recipient', '<', 'x')] } }, "Invalid parameter 'filter.AND.0': recipient cannot be compared with <"],
      [{ filter: { AND: [where('size', '=', '10')] } }, "Invalid parameter 'filter.AND.0': size takes only the < and > comparators"],
      [{ filter: { AND: [where('size', '>', 'big')] } }, "Invalid parameter 'filter.AND.0': size needs a number"],
      [{ filter: { AND: [where('recipients', '=', 'a@b.c')] } }, "Invalid parameter 'filter.AND.0': recipients takes only the contains and not contains comparators"],
      [{ pagination: { limit: 101 } }, "Invalid parameter 'pagination.limit': must be between 1 and 100"],
      [{ pagination: { sort: 'recipient:asc' } }, "Invalid parameter 'pagination.sort': must be one of timestamp:asc, timestamp:desc"],
      [{ pagination: { token: 'not-a-token' } }, "Invalid parameter 'pagination.token': not a token this server issued"],
      [{ duration: '99999999999999999d' }, "Invalid parameter 'duration': the window is out of range"],
    ];
    for (const [body, message] of cases) expect([body, await post(body)]).toEqual([body, expect.objectContaining({ status: 400, json: { message } })]);
    const ascToken = (await mg.logs.list({ start: since, pagination: { sort: 'timestamp:asc', limit: 1 } })).pagination.next!;
    expect(await post({ pagination: { sort: 'timestamp:desc', token: ascToken } })).toMatchObject({ status: 400, json: { message: "Invalid parameter 'pagination.token': it belongs to a listing in the other order" } });
    // The SDK surfaces the server's message.
    expect(await sdkError(mg.logs.list({ start: since, pagination: { limit: 500 } }))).toEqual({ status: 400, details: "Invalid parameter 'pagination.limit': must be between 1 and 100" });
  });
});
