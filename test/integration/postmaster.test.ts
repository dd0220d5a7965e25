import { handler as fetchJob } from '../../functions/optimize/postmaster/fetch-job';
import { PostmasterApiError, postmasterApi } from '../../functions/optimize/postmaster/postmaster-api';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, sdk, startTestPlatform } from '../support/platform';
import { fakeServiceAccount, PostmasterStandIn } from '../support/postmaster-standin';

// Google Postmaster data end to end: a loopback stand-in of Postmaster Tools API v2 (with its
// OAuth token endpoint verifying the service account's signed assertion) feeds the daily fetch,
// and the GPT routes show exactly its figures, mapped as contract 2.6 says.
const DAY_MS = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
const [yesterday, twoDaysAgo, longAgo] = [day(1), day(2), day(20)];

const SPF = 'AUTH_SUCCESS_RATE auth_type = "spf"';
const account = fakeServiceAccount('placeholder');
let standIn: PostmasterStandIn;
let platform: LocalPlatform;

const compliance = {
  rowData: [
    { requirement: 'SPF', status: { status: 'COMPLIANT' } },
    { requirement: 'DMARC_POLICY', status: { status: 'NEEDS_WORK' } },
  ],
  oneClickUnsubscribeVerdict: { status: { status: 'COMPLIANT' } },
  honorUnsubscribeVerdict: { status: { status: 'NEEDS_WORK' }, reason: 'unsubscribe requests honoured late' },
};

beforeAll(async () => {
  standIn = await new PostmasterStandIn({
    clientEmail: account.key.client_email,
    publicKey: account.publicKey,
    // Fewer stats a page than asked for, as Google may answer: the fetch has to follow nextPageToken.
    maxPageSize: 5,
    domains: {
      'mail.example.com': {
        days: {
          [yesterday]: {
            SPAM_RATE: 0.0012,
            [SPF]: 0.99,
            'AUTH_SUCCESS_RATE auth_type = "dkim"': 1,
            'AUTH_SUCCESS_RATE auth_type = "dmarc"': 0.98,
            'TLS_ENCRYPTION_RATE traffic_direction = "inbound"': 0.995,
            // Outbound TLS is not a field of Mailgun's record: it must not end up anywhere.
            'TLS_ENCRYPTION_RATE traffic_direction = "outbound"': 0.5,
            DELIVERY_ERROR_RATE: 0.004,
            'DELIVERY_ERROR_RATE error_type = "reject" AND error_reason = "ip_in_rbls"': 0.003,
            'DELIVERY_ERROR_RATE error_type = "temp_fail" AND error_reason = "anomalous_traffic_pattern"': 0.001,
            FEEDBACK_LOOP_ID: ['campaign-a', 'campaign-b'],
            'FEEDBACK_LOOP_SPAM_RATE feedback_loop_id = "campaign-a"': 0.02,
            'FEEDBACK_LOOP_SPAM_RATE feedback_loop_id = "campaign-b"': 0.005,
          },
          // A low-volume day: Google has a spam rate and SPF, nothing else.
          [twoDaysAgo]: { SPAM_RATE: 0.002, [SPF]: 0.97 },
          // Older than the fetch window (POSTMASTER_FETCH_DAYS, 14 by default): never asked for.
          [longAgo]: { SPAM_RATE: 0.5 },
        },
        compliance,
      },
    },
    denied: ['denied.example.com'],
    unavailable: ['flaky.example.com'],
  }).start();
  // The key's own token_uri names the stand-in's token endpoint, as a key file names Google's.
  const key = { ...account.key, token_uri: standIn.tokenUrl };
  platform = await startTestPlatform({ env: { POSTMASTER_SERVICE_ACCOUNT_JSON: JSON.stringify(key), POSTMASTER_API_URL: standIn.url } });
  // Managed domains, verified at once as active sending domains of the account; one left pending.
  for (const name of ['mail.example.com', 'denied.example.com', 'unknown.example.com', 'flaky.example.com']) {
    await sdk(platform.us.url).domains.create({ name });
    await sdk(platform.us.url).domains.verify(name);
    expect((await call(`${platform.us.url}/v1/inboxready/domains?domain=${name}`, { method: 'POST' })).json).toMatchObject({ domain: { verified: { status: 'sending' } } });
  }
  expect((await call(`${platform.us.url}/v1/inboxready/domains?domain=pending.example.org`, { method: 'POST' })).status).toBe(200);
});
afterAll(async () => {
  await platform?.close();
  await standIn?.close();
});

const url = () => platform.us.url;
const range = () => `offset=0&limit=100&timeRangeStart=${Math.floor((Date.now() - 10 * DAY_MS) / 1000)}&timeRangeEnd=${Math.floor(Date.now() / 1000)}`;
const gpt = (path: string, query = range()) => call(`${url()}/v1/reputationanalytics/gpt/${path}${query ? `?${query}` : ''}`);

test('before the first fetch a domain says it has not been fetched yet', async () => {
  const res = await gpt('domains/mail.example.com');
  expect(res.json).toMatchObject({ domain: 'mail.example.com', data: [], total: 0, source_status: 'not_fetched' });
});

test('the fetch signs in with the service account, pages through domainStats:query and stores each day once', async () => {
  const summary = await platform.us.run(() => fetchJob());
  expect(summary).toEqual({ configured: true, domains: 4, days: 2, unavailable: 2, failed: 1 });
  expect(standIn.issuedTokens).toBeGreaterThanOrEqual(1);
  expect(standIn.unauthenticatedCalls).toBe(0);
  expect(standIn.refusedAssertions).toEqual([]);
  const queries = standIn.queries.filter((q) => q.domain === 'mail.example.com');
  // The daily metrics in pages of five (11 stats over the two days: 3 pages), then the two feedback loops' rates.
  expect(queries.map((q) => Boolean(q.body.pageToken))).toEqual([false, true, true, false]);
  expect(queries[0]!.body).toMatchObject({ aggregationGranularity: 'DAILY', timeQuery: { dateRanges: { dateRanges: [{ end: { day: Number(yesterday.slice(8)) } }] } } });
  // Run again: the same days are overwritten, not added.
  await platform.us.run(() => fetchJob());
  expect((await gpt('domains/mail.example.com')).json.total).toBe(2);
});

test("a domain's days are Google's figures in Mailgun's record; what v2 lacks is neutral, what Google did not give is null", async () => {
  const res = await gpt('domains/mail.example.com');
  expect(res.status).toBe(200);
  const accountId = (res.json.data as Array<{ account_id: string }>)[0]!.account_id;
  expect(res.json).toEqual({
    domain: 'mail.example.com',
    total: 2,
    source_status: 'ok',
    data: [
      {
        account_id: accountId,
        name: 'mail.example.com',
        user_reported_spam_ratio: 0.002,
        spf_success_ratio: 0.97,
        dkim_success_ratio: null,
        dmarc_success_ratio: null,
        inbound_encryption_ratio: null,
        delivery_error_ratio: null,
        delivery_errors: [],
        reputation: 0,
        date: `${twoDaysAgo}T00:00:00Z`,
        ip_counts: [],
        feedback_loops: [],
      },
      {
        account_id: accountId,
        name: 'mail.example.com',
        user_reported_spam_ratio: 0.0012,
        spf_success_ratio: 0.99,
        dkim_success_ratio: 1,
        dmarc_success_ratio: 0.98,
        inbound_encryption_ratio: 0.995,
        delivery_error_ratio: 0.004,
        delivery_errors: [
          { error_class: 'PERMANENT_ERROR', error_type: 'IP_IN_RBLS', error_ratio: 0.003 },
          { error_class: 'TEMPORARY_ERROR', error_type: 'ANOMALOUS_TRAFFIC_PATTERN', error_ratio: 0.001 },
        ],
        reputation: 0,
        date: `${yesterday}T00:00:00Z`,
        ip_counts: [],
        feedback_loops: [
          { id: 'campaign-a', spam_ratio: 0.02 },
          { id: 'campaign-b', spam_ratio: 0.005 },
        ],
      },
    ],
  });
  // All domains: the same two days (the other domains have none); paging by offset and limit.
  const all = await gpt('domains', `offset=1&limit=1&timeRangeStart=0&timeRangeEnd=${Math.floor(Date.now() / 1000)}`);
  expect(all.json).toMatchObject({ total: 2, source_status: 'ok', data: [{ name: 'mail.example.com', date: `${yesterday}T00:00:00Z` }] });
  // A range that ends before yesterday leaves yesterday out.
  const early = await gpt('domains/mail.example.com', `offset=0&limit=10&timeRangeStart=0&timeRangeEnd=${Math.floor(Date.parse(`${twoDaysAgo}T12:00:00Z`) / 1000)}`);
  expect(early.json).toMatchObject({ total: 1, data: [{ date: `${twoDaysAgo}T00:00:00Z` }] });

  expect((await gpt('domains_list')).json).toEqual({ data: [{ name: 'mail.example.com', date: `${yesterday}T00:00:00Z` }], total: 1, source_status: 'ok' });
  const loops = [
    { name: 'mail.example.com', id: 'campaign-a', ratio: 0.02, date: `${yesterday}T00:00:00Z` },
    { name: 'mail.example.com', id: 'campaign-b', ratio: 0.005, date: `${yesterday}T00:00:00Z` },
  ];
  expect((await gpt('domainsfbl')).json).toEqual({ data: loops, total: 2, source_status: 'ok' });
  expect((await gpt('domainsfbl/mail.example.com')).json).toEqual({ data: loops, total: 2, source_status: 'ok' });
});

test('summaries average the days Google reported; sortBy, orderBy and searchField apply', async () => {
  const domains = (await gpt('summary/domains', `${range()}&sortBy=user_reported_spam_ratio&orderBy=desc`)).json;
  expect(domains).toEqual({
    summary: [
      {
        name: 'mail.example.com',
        user_reported_spam_ratio: (0.0012 + 0.002) / 2,
        spf_success_ratio: (0.99 + 0.97) / 2,
        dkim_success_ratio: 1,
        dmarc_success_ratio: 0.98,
        inbound_encryption_ratio: 0.995,
        reputation: 0,
      },
    ],
    total: 1,
    source_status: 'ok',
  });
  expect((await gpt('summary/errors')).json).toEqual({ summary: [{ name: 'mail.example.com', delivery_error_ratio: 0.004 }], total: 1, source_status: 'ok' });
  expect((await gpt('summary', `${range()}&searchField=mail`)).json).toMatchObject({ summary: { user_reported_spam_ratio: (0.0012 + 0.002) / 2, delivery_error_ratio: 0.004, reputation: 0 }, total: 2 });
  expect((await gpt('summary/domains', `${range()}&searchField=nothing-like-it`)).json).toMatchObject({ summary: [], total: 0 });
  const badSort = await gpt('summary/domains', `${range()}&sortBy=colour`);
  expect(badSort.status).toBe(400);
  expect(String(badSort.json.Reason)).toContain("'sortBy'");
});

test('v2 has no IP data: the address routes answer empty lists and say why', async () => {
  for (const path of ['addresses', 'addresses_list']) expect((await gpt(path)).json).toMatchObject({ data: [], total: 0, source_status: 'not_available' });
  expect((await gpt('addresses/192.0.2.10')).json).toMatchObject({ address: '192.0.2.10', data: [], total: 0, source_status: 'not_available' });
  expect((await gpt('domains/mail.example.com/addresses')).json).toMatchObject({ domain: 'mail.example.com', data: [], total: 0 });
  expect((await gpt('summary/addresses')).json).toMatchObject({ summary: [], ip_counts: {}, total: 0 });
  expect((await gpt('addresses/not-an-ip')).status).toBe(400);
});

test("the compliance extension shows Google's compliance status; domains Google refuses say so and hold no figures", async () => {
  const res = await gpt('domains/mail.example.com/compliance', '');
  expect(res.json).toMatchObject({
    domain: 'mail.example.com',
    source_status: 'ok',
    compliance: {
      domain: 'mail.example.com',
      requirements: [
        { requirement: 'SPF', status: 'COMPLIANT' },
        { requirement: 'DMARC_POLICY', status: 'NEEDS_WORK' },
      ],
      one_click_unsubscribe: { status: 'COMPLIANT', reason: '' },
      honor_unsubscribe: { status: 'NEEDS_WORK', reason: 'unsubscribe requests honoured late' },
    },
  });
  expect(String(res.json.fetched_at)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const denied = await gpt('domains/denied.example.com');
  expect(denied.json).toMatchObject({ data: [], total: 0, source_status: 'access_denied' });
  expect(String(denied.json.source_reason)).toContain('give it access');
  const unknown = await gpt('domains/unknown.example.com');
  expect(unknown.json).toMatchObject({ data: [], total: 0, source_status: 'domain_not_found' });
  expect((await gpt('domains/unknown.example.com/compliance', '')).json).toMatchObject({ compliance: null, source_status: 'domain_not_found' });
  // Google failing is not a figure either: nothing stored, and the reason quotes Google.
  const flaky = await gpt('domains/flaky.example.com');
  expect(flaky.json).toMatchObject({ data: [], total: 0, source_status: 'fetch_failed' });
  expect(String(flaky.json.source_reason)).toContain('UNAVAILABLE: The service is currently unavailable.');
});

test('bad queries are 400 {Reason}; domains that are not verified managed domains are 404 {Description}', async () => {
  const missing = await gpt('domains', 'offset=0&limit=10');
  expect(missing.status).toBe(400);
  expect(missing.json.Reason).toBe("Missing parameter 'timeRangeStart'");
  const backwards = await gpt('domains', 'offset=0&limit=10&timeRangeStart=200&timeRangeEnd=100');
  expect(backwards.status).toBe(400);
  expect(String(backwards.json.Reason)).toContain('timeRangeEnd');
  expect((await gpt('domains', 'offset=-1&limit=10&timeRangeStart=0&timeRangeEnd=1')).status).toBe(400);
  expect((await gpt('summary/domains', `${range()}&orderBy=sideways`)).status).toBe(400);

  for (const path of ['domains/nowhere.example.net', 'domains/pending.example.org', 'domainsfbl/nowhere.example.net', 'domains/nowhere.example.net/addresses']) {
    const res = await gpt(path);
    expect(res.status).toBe(404);
    expect(String(res.json.Description)).toContain('not a verified managed domain');
  }
  expect((await gpt('domains/nowhere.example.net/compliance', '')).status).toBe(404);
});

test('the token endpoint refuses an assertion signed with another key, and no reply carries the key or a token', async () => {
  const stranger = fakeServiceAccount(standIn.tokenUrl, account.key.client_email);
  const api = postmasterApi(stranger.key, { apiUrl: standIn.url });
  const error = await api.complianceStatus('mail.example.com').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PostmasterApiError);
  expect((error as PostmasterApiError).message).toBe('token endpoint: invalid_grant: Invalid JWT Signature.');
  expect(standIn.refusedAssertions).toContain('Invalid JWT Signature.');

  const replies = await Promise.all(['domains', 'domains/mail.example.com', 'summary/domains'].map((path) => gpt(path)));
  for (const reply of replies) {
    expect(reply.text).not.toContain('PRIVATE KEY');
    expect(reply.text).not.toContain('ya29.');
    expect(reply.text).not.toContain(account.key.client_email);
  }
});
