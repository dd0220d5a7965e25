import { putItem, putItems, queryAll, queryPage } from '../../functions/data/store';
import type { LocalPlatform } from '../../lib/local/platform';
import { startTestPlatform } from '../support/platform';

// queryPage against dynalite: the key-range paging every Mailgun-style list is built on.
let platform: LocalPlatform;
const pk = 'TEST#paging';
const addresses = ['a@x.com', 'a@x.com.au', 'b@x.com', 'c@x.com', 'd@x.com'];

beforeAll(async () => {
  platform = await startTestPlatform();
  await platform.us.run(async () => {
    for (const address of addresses) await putItem({ pk, sk: `ADDR#${address}` }, { address });
    await putItem({ pk, sk: 'OTHER#zzz' }, { address: 'not in the prefix' });
    await putItem({ pk, sk: 'ADDR#e@x.com' }, { address: 'e@x.com', ttl: 1 });
  });
});
afterAll(() => platform.close());

const page = (query: Partial<Parameters<typeof queryPage>[1]>) =>
  platform.us.run(async () =>
    (await queryPage<{ address: string }>(pk, { prefix: 'ADDR#', ascending: true, limit: 10, keep: (i) => !i.ttl, ...query })).map((i) => i.address),
  );

it('pages forward after a pivot, strictly, including longer keys that share it', async () => {
  expect(await page({ limit: 2 })).toEqual(['a@x.com', 'a@x.com.au']);
  expect(await page({ after: 'a@x.com', limit: 2 })).toEqual(['a@x.com.au', 'b@x.com']);
  expect(await page({ after: 'd@x.com' })).toEqual([]);
});

it('pages backward before a pivot, strictly, nearest first', async () => {
  expect(await page({ ascending: false, before: 'c@x.com', limit: 2 })).toEqual(['b@x.com', 'a@x.com.au']);
  expect(await page({ ascending: false, limit: 1 })).toEqual(['d@x.com']);
});

it('narrows by a longer prefix and skips what keep refuses', async () => {
  expect(await page({ prefix: 'ADDR#a' })).toEqual(['a@x.com', 'a@x.com.au']);
  expect(await page({})).not.toContain('e@x.com');
});

it('writes more items than one batch call takes, all of them', async () => {
  const many = Array.from({ length: 60 }, (_, i) => ({ key: { pk: 'TEST#batch', sk: `N#${String(i).padStart(2, '0')}` }, item: { n: i } }));
  const stored = await platform.us.run(async () => {
    await putItems(many);
    return queryAll<{ n: number }>({ pk: 'TEST#batch' }, 'N#');
  });
  expect(stored.map((item) => item.n)).toEqual(many.map((_, i) => i));
});
