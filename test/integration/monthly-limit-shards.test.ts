import { getItem } from '../../functions/data/store';
import { monthOf, monthlyLimitKeys } from '../../functions/accounts/monthly-limit';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, sandboxOf, sdk, sdkError, startTestPlatform } from '../support/platform';

// The monthly cap's count spread over shards (MONTHLY_LIMIT_SHARDS, docs/capacity.md): on DynamoDB
// one item takes about 1,000 writes a second, and every send of a capped account writes its count.
// Here 4 shards of a 1,000-recipient limit (250 each) take concurrent sends: the writes land on all
// four, the month never passes the limit, and what room is left can still be used to the last one.
let platform: LocalPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { MONTHLY_LIMIT_SHARDS: '4' } });
});
afterAll(() => platform.close());

const LIMIT = 1000;
const addresses = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}@example.com`);

test('concurrent sends spread over the shards, never pass the limit together, and the room left is usable to the last recipient', async () => {
  const parent = sdk(platform.us.url);
  const sub = (await parent.subaccounts.create('Capped')).subaccount;
  const client = sdk(platform.us.url);
  client.setSubaccount(sub.id);
  const sandbox = await sandboxOf(client);
  const limitUrl = `${platform.us.url}/v5/accounts/subaccounts/${sub.id}/limit/custom/monthly?limit=${LIMIT}`;
  expect((await call(limitUrl, { method: 'PUT' })).status).toBe(200);

  // 12 sends of 90 recipients at once: 1,080 asked for, at most 1,000 fit.
  const outcomes = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      client.messages.create(sandbox, { from: `news@${sandbox}`, to: addresses(90, `batch${i}-`), subject: 'Capped', text: 'Hello', 'o:testmode': 'yes' }).then(
        () => 'accepted' as const,
        (error: { status: number; details: string }) => error,
      ),
    ),
  );
  const accepted = outcomes.filter((o) => o === 'accepted').length;
  const refused = outcomes.filter((o) => o !== 'accepted');
  expect(accepted * 90).toBeLessThanOrEqual(LIMIT);
  expect(accepted).toBeGreaterThanOrEqual(10);
  for (const refusal of refused) {
    expect(refusal).toMatchObject({ status: 429 });
    expect((refusal as { details: string }).details).toContain(`custom monthly limit of ${LIMIT} messages is reached`);
  }

  // Every shard took some of it, none more than its share, and together they are what was accepted.
  const month = monthOf(Date.now());
  const shards = await platform.us.run(() =>
    Promise.all([0, 1, 2, 3].map(async (k) => (await getItem<{ count: number }>(k === 0 ? monthlyLimitKeys.monthlyCount(sub.id, month) : monthlyLimitKeys.monthlyCountShard(sub.id, month, k)))?.count ?? 0)),
  );
  for (const count of shards) {
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(LIMIT / 4);
  }
  expect(shards.reduce((a, b) => a + b, 0)).toBe(accepted * 90);
  const current = () => call(`${platform.us.url}/v5/accounts/subaccounts/${sub.id}/limit/custom/monthly`).then((res) => res.json['current'] as number);
  expect(await current()).toBe(accepted * 90);

  // The room left, spread over the shards in pieces smaller than a send, takes one send exactly.
  const left = LIMIT - accepted * 90;
  expect(left).toBeGreaterThan(0);
  await client.messages.create(sandbox, { from: `news@${sandbox}`, to: addresses(left, 'last-'), subject: 'Capped', text: 'Hello', 'o:testmode': 'yes' });
  expect(await current()).toBe(LIMIT);
  const over = await sdkError(client.messages.create(sandbox, { from: `news@${sandbox}`, to: 'one-more@example.com', subject: 'Capped', text: 'Hello', 'o:testmode': 'yes' }));
  expect(over.status).toBe(429);
  expect(await current()).toBe(LIMIT);
}, 120_000);
