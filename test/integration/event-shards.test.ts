import { queryPage } from '../../functions/data/store';
import { accountLogPartition, dayOf, eventPartition, hourOf, newEvent, recordEvent } from '../../functions/events/event-store';
import { readLog } from '../../functions/logs/log-reader';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// A domain's events spread over partitions (EVENT_SHARDS, docs/capacity.md): on DynamoDB one
// partition takes about 1,000 writes a second, so a domain's day (and an account's hour on the
// index) is split over 4 shards here. The items land in several shards, and the events API and
// the logs API still walk every event exactly once, in order, page by page.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
const SENT = 12;
const since = new Date(Date.now() - 3_600_000);
type Ev = { id: string; event: string; timestamp: number; recipient: string };

beforeAll(async () => {
  platform = await startTestPlatform({ env: { EVENT_SHARDS: '4' } });
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
  for (let i = 0; i < SENT; i++) await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: `shard${i}@example.com`, subject: `S${i}`, text: 't', 'o:testmode': 'yes' } as never);
  await eventually(async () => ((await call(`${platform.us.url}/v3/${sandbox}/events?event=delivered&limit=300`)).json.items as Ev[]).length === SENT);
});
afterAll(() => platform.close());

const ordered = (times: number[], ascending: boolean) => expect(times).toEqual([...times].sort((a, b) => (ascending ? a - b : b - a)));

test('the events API pages over every shard: each event once, in order, either way', async () => {
  const all = (await call(`${platform.us.url}/v3/${sandbox}/events?limit=300`)).json.items as Ev[];
  expect(all).toHaveLength(2 * SENT);
  for (const ascending of [true, false]) {
    const seen: Ev[] = [];
    let url = `${platform.us.url}/v3/${sandbox}/events?limit=5&ascending=${ascending ? 'yes' : 'no'}`;
    for (let pages = 0; pages < 20; pages++) {
      const page = await call(url);
      const items = page.json.items as Ev[];
      if (!items.length) break;
      seen.push(...items);
      url = (page.json.paging as Record<string, string>).next!;
    }
    expect(seen.map((e) => e.id).sort()).toEqual(all.map((e) => e.id).sort());
    ordered(seen.map((e) => e.timestamp), ascending);
  }
  // A filter applies across the shards too.
  const delivered = (await call(`${platform.us.url}/v3/${sandbox}/events?event=delivered&limit=4&ascending=yes`)).json.items as Ev[];
  expect(delivered.map((e) => e.event)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  ordered(delivered.map((e) => e.timestamp), true);
});

test('the logs API pages over every shard: each event once, in order, either way', async () => {
  for (const sort of ['timestamp:asc', 'timestamp:desc']) {
    const pages = [await mg.logs.list({ start: since, pagination: { sort, limit: 5 } })];
    while (pages.at(-1)!.items.length) pages.push(await mg.logs.list({ start: since, pagination: { sort, limit: 5, token: pages.at(-1)!.pagination.next } }));
    const walked = pages.flatMap((p) => p.items);
    expect(walked).toHaveLength(2 * SENT);
    expect(new Set(walked.map((item) => item.id)).size).toBe(2 * SENT);
    ordered(walked.map((item) => item['@timestamp'].getTime()), sort === 'timestamp:asc');
  }
});

test('the items really spread: several shards of the day partition and the hour index hold events', async () => {
  const accountId = (await mg.logs.list({ start: since, pagination: { limit: 1 } })).items[0]!.account!.id;
  const events = (await call(`${platform.us.url}/v3/${sandbox}/events?limit=300`)).json.items as Ev[];
  const days = [...new Set(events.map((e) => dayOf(e.timestamp * 1000)))];
  const hours = [...new Set(events.map((e) => hourOf(e.timestamp * 1000)))];
  const count = (pk: string, onIndex: boolean) => platform.us.run(() => queryPage(pk, { prefix: '', ascending: true, limit: 1000, onIndex }));
  const perShard = async (partition: (shard: number) => string[], onIndex: boolean) =>
    Promise.all([0, 1, 2, 3].map(async (shard) => (await Promise.all(partition(shard).map((pk) => count(pk, onIndex)))).reduce((sum, items) => sum + items.length, 0)));
  const byDay = await perShard((shard) => days.map((day) => eventPartition(accountId, sandbox, day, shard)), false);
  const byHour = await perShard((shard) => hours.map((hour) => accountLogPartition(accountId, hour, shard)), true);
  expect(byDay.reduce((a, b) => a + b)).toBe(2 * SENT);
  expect(byHour).toEqual(byDay);
  expect(byDay.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
});

test('readLog examines the shards merged in order: the budget stops where it would with one partition', async () => {
  const account = 'shards000000000000000000';
  const now = Date.now();
  // Eight over a day and more, eight within one hour (so within one hour's shards).
  const instants = [...Array.from({ length: 8 }, (_, i) => Math.round(now - (30 - i * 3.5) * 3_600_000)), ...Array.from({ length: 8 }, (_, i) => now - 1_800_000 + i * 10_000)];
  await platform.us.run(async () => {
    for (const [i, at] of instants.entries()) await recordEvent(account, i % 2 ? 'b.example' : 'a.example', newEvent('delivered', { recipient: `r${i}@x.example` }, at));
  });
  const read = (options: Partial<Parameters<typeof readLog>[0]>) =>
    platform.us.run(() => readLog({ accountId: account, from: now - 2 * 86_400_000, to: now, ascending: true, limit: 100, keep: () => true, budget: 1000, ...options }));
  const all = await read({});
  expect(all.found.map((f) => f.event.data.recipient)).toEqual(instants.map((_, i) => `r${i}@x.example`));
  const down = await read({ ascending: false });
  expect(down.found.map((f) => f.sk)).toEqual(all.found.map((f) => f.sk).reverse());
  expect((await read({ after: all.found[5]!.sk, limit: 3 })).found.map((f) => f.sk)).toEqual(all.found.slice(6, 9).map((f) => f.sk));
  expect((await read({ ascending: false, after: all.found[5]!.sk, limit: 3 })).found.map((f) => f.sk)).toEqual(all.found.slice(2, 5).map((f) => f.sk).reverse());
  expect(await read({ keep: () => false, budget: 7 })).toEqual({ found: [], stoppedAt: all.found[6]!.sk, examined: 7 });
  // Odd-numbered events only, two to a page, a budget of 5: every page resumes where the last stopped.
  const odd = (event: { data: Record<string, unknown> }) => /[13579]@/.test(String(event.data['recipient']));
  const walked: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 30; pages++) {
    const page = await read({ keep: odd, limit: 2, budget: 5, after });
    walked.push(...page.found.map((f) => String(f.event.data.recipient)));
    after = page.stoppedAt ?? page.found.at(-1)?.sk;
    if (!page.stoppedAt && page.found.length < 2) break;
  }
  expect(walked).toEqual(instants.map((_, i) => `r${i}@x.example`).filter((_, i) => i % 2));
});
