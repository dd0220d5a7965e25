import { randomUUID } from 'node:crypto';
import type { LocalPlatform } from '../../lib/local/platform';
import { recordEvent } from '../../functions/events/event-store';
import { call, eventually, primaryAccountId, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// Spam-trap counts from declared sources only: an operator trap list (an address, a whole domain),
// a typo domain with no mail server, and an address that once bounced as unknown and later accepts
// mail. Messages go through local mode's real pipeline; the event stream counts them.
let platform: LocalPlatform;
let sandbox: string;
const url = () => platform.us.url;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  platform = await startTestPlatform({ env: { SPAM_TRAP_LIST: 'pristine:trap@traps.example.net, harvested:@harvest.example.org' } });
  sandbox = await sandboxOf(sdk(url()));
});
afterAll(() => platform.close());

type V2 = { items: Array<{ dimensions: Array<{ dimension: string; value: string }>; metrics: Record<string, number> }>; pagination: { total: number }; data_sources: string[] };

test('each declared source counts its hits, and the reply names the sources; nothing else counts', async () => {
  const accountId = await primaryAccountId(platform.us);
  // The receiver once said this address does not exist (the failure the notifications worker records).
  await platform.us.run(() =>
    recordEvent(accountId, sandbox, {
      id: randomUUID(),
      event: 'failed',
      severity: 'permanent',
      reason: 'bounce',
      recipient: 'old.friend@example.com',
      timestamp: Date.now() / 1000 - 3600,
      'delivery-status': { code: 550, message: 'smtp; 550 5.1.1 user unknown', description: 'General' },
    }),
  );
  const recipients = ['trap@traps.example.net', 'anyone@harvest.example.org', 'someone@gmial.com', 'old.friend@example.com', 'customer@example.com'];
  await sdk(url()).messages.create(sandbox, { from: `news@${sandbox}`, to: recipients, subject: 'Hello', text: 'hi' } as never);

  const totals = async () => ((await call(`${url()}/v2/spamtraps?limit=10`)).json as unknown as V2);
  const reply = await eventually(async () => {
    const r = await totals();
    return r.items[0]?.metrics['total_count'] === 4 ? r : undefined;
  });
  expect(reply.items).toEqual([{ dimensions: [{ dimension: 'timestamp', value: today, display_value: today }], metrics: { pristine_count: 1, recycled_count: 1, typo_count: 1, harvested_count: 1, total_count: 4 } }]);
  expect(reply.data_sources).toEqual(['operator_trap_list', 'typo_heuristic', 'recycled_heuristic']);

  const byDomain = (await call(`${url()}/v2/spamtraps?limit=10&dimension=domain_name`)).json as unknown as V2;
  expect(byDomain.items.map((i) => i.dimensions[0]!.value)).toEqual([sandbox]);
  expect(((await call(`${url()}/v2/spamtraps?limit=10&domain=other.example.com`)).json as unknown as V2).items).toEqual([]);

  // v1: dated totals, and grouped by domain.
  const v1 = (await call(`${url()}/v1/spamtraps?start=${today}&end=${today}&limit=10`)).json as { items: unknown[]; paging: { next: string } };
  expect(v1.items).toEqual([{ date: today, pristine: 1, recycled: 1, typo: 1, harvested: 1, total: 4 }]);
  expect(v1.paging.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/spamtraps\?/);
  const grouped = (await call(`${url()}/v1/spamtraps?start=${today}&end=${today}&limit=10&groupby=domain`)).json as { items: unknown[] };
  expect(grouped.items).toEqual([{ [sandbox]: [{ date: today, pristine: 1, recycled: 1, typo: 1, harvested: 1, total: 4 }] }]);
});

test('what the counters do not keep is refused, not answered with zeros', async () => {
  for (const query of ['dimension=ip', 'dimension=sender', 'dimension=from', 'ip=203.0.113.5', 'from[]=a@b.c']) {
    const res = await call(`${url()}/v2/spamtraps?limit=10&${query}`);
    expect([query, res.status]).toEqual([query, 400]);
  }
  expect((await call(`${url()}/v2/spamtraps`)).status).toBe(400);
  expect((await call(`${url()}/v2/spamtraps?limit=10&sort=nonsense:asc`)).status).toBe(400);
  expect((await call(`${url()}/v1/spamtraps?start=${today}&end=${today}&limit=10&groupby=ip`)).status).toBe(400);
  expect((await call(`${url()}/v1/spamtraps?start=yesterday&end=${today}&limit=10`)).status).toBe(400);
});
