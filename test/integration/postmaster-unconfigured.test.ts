import { handler as fetchJob } from '../../functions/optimize/postmaster/fetch-job';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, sdk, startTestPlatform } from '../support/platform';

// A platform whose operator configured no Google service account (local mode's default): the fetch
// does nothing, and every GPT route answers empty data with the reason, never figures.
let platform: LocalPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
  await sdk(platform.us.url).domains.create({ name: 'mail.example.com' });
  await sdk(platform.us.url).domains.verify('mail.example.com');
  expect((await call(`${platform.us.url}/v1/inboxready/domains?domain=mail.example.com`, { method: 'POST' })).status).toBe(200);
});
afterAll(() => platform.close());

const query = `offset=0&limit=10&timeRangeStart=0&timeRangeEnd=${Math.floor(Date.now() / 1000)}`;
const gpt = (path: string, q = query) => call(`${platform.us.url}/v1/reputationanalytics/gpt/${path}${q ? `?${q}` : ''}`);

test('without credentials the fetch does nothing and the routes say why their data is empty', async () => {
  expect(await platform.us.run(() => fetchJob())).toEqual({ configured: false, domains: 0, days: 0, unavailable: 0, failed: 0 });
  const reason = expect.stringContaining('no Google Postmaster Tools service account is configured');
  for (const path of ['domains', 'domains/mail.example.com', 'domains_list', 'domainsfbl', 'domainsfbl/mail.example.com', 'addresses', 'addresses_list', 'addresses/192.0.2.1', 'domains/mail.example.com/addresses']) {
    const res = await gpt(path);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ data: [], total: 0, source_status: 'not_configured', source_reason: reason });
  }
  for (const path of ['summary/domains', 'summary/errors', 'summary/addresses']) expect((await gpt(path)).json).toMatchObject({ summary: [], total: 0, source_status: 'not_configured' });
  expect((await gpt('summary')).json).toMatchObject({ summary: { user_reported_spam_ratio: null, reputation: 0 }, total: 0, source_status: 'not_configured' });
  expect((await gpt('domains/mail.example.com/compliance', '')).json).toEqual({ domain: 'mail.example.com', compliance: null, source_status: 'not_configured', source_reason: reason });
  // Input is still checked, and unknown domains are still 404.
  expect((await gpt('domains', 'offset=0')).status).toBe(400);
  expect((await gpt('domains/other.example.com')).status).toBe(404);
});
