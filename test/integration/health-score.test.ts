import type { LocalPlatform } from '../../lib/local/platform';
import { bucketStart } from '../../functions/analytics/buckets';
import { addToCounters } from '../../functions/analytics/counter-store';
import { call, primaryAccountId, startTestPlatform } from '../support/platform';

// The health score as docs/optimization.md's formula says, recomputed here by hand from counters the test seeds
// (what the event stream would have added for a month of mail).
let platform: LocalPlatform;
let accountId: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  accountId = await primaryAccountId(platform.us);
});
afterAll(() => platform.close());

const url = () => platform.us.url;

test('too little mail has no score: 422 with a Reason', async () => {
  const res = await call(`${url()}/v1/maverick-score/total`);
  expect(res.status).toBe(422);
  expect(String(res.json.Reason)).toContain('not enough data');
});

test('the score is 100 minus five capped impacts, each from its own counter; grouped by domain and day', async () => {
  const today = bucketStart(Date.now(), 'day');
  const counts = { processed: 10_000, delivered_smtp: 9_000, hard_bounces: 200, complained: 9, mailbox_full: 100, trap_typo: 5 };
  await platform.us.run(() =>
    addToCounters(
      [
        { accountId, kind: [], values: [], resolution: 'day', bucket: today, counts },
        { accountId, kind: ['domain'], values: ['news.example.com'], resolution: 'day', bucket: today, counts },
        { accountId, kind: ['domain'], values: ['tiny.example.com'], resolution: 'day', bucket: today, counts: { processed: 10, delivered_smtp: 10 } },
      ],
      'health-seed',
    ),
  );
  // By hand: bounces 200/10,000 = 2% -> 30 x 2/5 = 12; complaints 9/9,000 = 0.1% -> 35 x 0.1/0.3 = 11.7 -> 12;
  // 5 suspected typo-trap hits 0.05% -> 15 x 0.05/0.1 = 7.5 -> 8; mailbox full 1% -> 5 x 1/2 = 2.5 -> 3;
  // no content refusals -> 0. 100 - 35 = 65.
  const rates = { bounce_rate: 12, complaint_rate: 12, trap_rate: 8, full_mailbox_rate: 3, bad_failure_rate: 0 };
  const total = (await call(`${url()}/v1/maverick-score/total`)).json;
  expect(total).toMatchObject({ score: 65, rates, counters: { delivered: 9_000 }, window_days: 30 });
  expect(String((total.sources as Record<string, string>)['trap_hits'])).toContain('declared sources only');

  const byDomain = (await call(`${url()}/v1/maverick-score/grouped?group=domain`)).json;
  // The domain with ten messages is below the volume a score needs: left out.
  expect(byDomain).toEqual({ items: [{ group_key: 'news.example.com', account_id: accountId, score: 65, rates, counters: { delivered: 9_000 } }], total: 1 });
  const byDay = (await call(`${url()}/v1/maverick-score/grouped?group=timestamp`)).json as { items: Array<{ group_key: string; score: number }> };
  expect(byDay.items).toEqual([expect.objectContaining({ group_key: new Date(today).toISOString().slice(0, 10), score: 65 })]);
  expect((await call(`${url()}/v1/maverick-score/grouped?group=ip`)).status).toBe(400);
  expect((await call(`${url()}/v1/maverick-score/grouped?sort=colour:asc`)).status).toBe(400);
});

test('term[]=domain:<name> filters to one domain, so grouping by day charts that domain over time', async () => {
  const today = bucketStart(Date.now(), 'day');
  const yesterday = today - 86_400_000;
  const clean = { processed: 20_000, delivered_smtp: 20_000 };
  const bouncy = { processed: 20_000, delivered_smtp: 19_000, hard_bounces: 1_000 };
  await platform.us.run(() =>
    addToCounters(
      [
        { accountId, kind: [], values: [], resolution: 'day', bucket: yesterday, counts: { processed: 40_000, delivered_smtp: 39_000, hard_bounces: 1_000 } },
        { accountId, kind: ['domain'], values: ['news.example.com'], resolution: 'day', bucket: yesterday, counts: clean },
        { accountId, kind: ['domain'], values: ['other.example.com'], resolution: 'day', bucket: yesterday, counts: bouncy },
      ],
      'health-days',
    ),
  );
  type Grouped = { items: Array<{ group_key: string; score: number; rates: Record<string, number>; counters: { delivered: number } }>; total: number };
  const grouped = async (query: string) => (await call(`${url()}/v1/maverick-score/grouped?${query}`)).json as unknown as Grouped;
  const day = (bucket: number) => new Date(bucket).toISOString().slice(0, 10);

  // news.example.com: a clean day yesterday (100), today's 65 of the test above.
  const news = await grouped('group=timestamp&sort=timestamp:asc&term=domain:news.example.com');
  expect(news.items.map((i) => [i.group_key, i.score, i.counters.delivered])).toEqual([
    [day(yesterday), 100, 20_000],
    [day(today), 65, 9_000],
  ]);
  // other.example.com sent yesterday only: its one day scores as the domain does over the window.
  const other = await grouped('group=timestamp&term[]=domain:Other.Example.com');
  const otherDomain = await grouped('group=domain&term=domain:other.example.com');
  expect(otherDomain.items).toHaveLength(1);
  expect(other.items).toEqual([{ ...otherDomain.items[0]!, group_key: day(yesterday) }]);
  // The account's own days are both domains together.
  const account = await grouped('group=timestamp&sort=timestamp:asc');
  expect(account.items.map((i) => i.counters.delivered)).toEqual([39_000, 9_000]);
  // A day filter, and fields that are not there.
  expect((await grouped(`group=domain&term=timestamp:${day(yesterday)}`)).items.map((i) => i.group_key).sort()).toEqual(['news.example.com', 'other.example.com']);
  expect((await call(`${url()}/v1/maverick-score/grouped?term=ip:192.0.2.1`)).status).toBe(400);
  expect((await call(`${url()}/v1/maverick-score/grouped?term=colour:red`)).json).toMatchObject({ Reason: "Invalid parameter 'term': colour is not a field; one of domain, subaccount, timestamp, as field:value" });
});
