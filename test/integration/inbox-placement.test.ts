import packagedChromium from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';
import { updateItem } from '../../functions/data/store';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, primaryAccountId, sandboxOf, sdk, sdkError, sesSendsOf, startTestPlatform } from '../support/platform';
import { startSeedImap, type SeedImap } from '../support/seed-imap';
import { resultKeys } from '../../functions/optimize/inbox/results';

// Inbox placement as a user meets it: the operator adds three seed mailboxes on real IMAP servers
// (hoodiecrow, one per mailbox, each with INBOX and a special-use Junk folder; the first shaped as
// Gmail, with All Mail and an X-GM-RAW search for tabs), a seed list is made
// with mailgun.js, a placement test goes out through the platform's own pipeline, and the test files
// the copies the way providers would: one in INBOX, one in Junk, each with the Authentication-Results
// header that provider would have added, and none for the third. The poll workflow then reports
// inbox, spam and (at the deadline) missing, with those verdicts; the result is shared and its
// public page opened in a real Chromium.
let platform: LocalPlatform;
let browser: Browser;
const seeds: Record<'inbox' | 'junk' | 'lost', SeedImap | undefined> = { inbox: undefined, junk: undefined, lost: undefined };

beforeAll(async () => {
  seeds.inbox = await startSeedImap('ann@gmail.seed.test', undefined, { gmail: true });
  seeds.junk = await startSeedImap('bob@outlook.seed.test', undefined, { oauth2Token: OUTLOOK_TOKEN });
  seeds.lost = await startSeedImap('cat@yahoo.seed.test');
  // A deadline no test reaches: each ends its result's wait itself (deadlineNow), once the copies it filed were found.
  platform = await startTestPlatform({ env: { PLACEMENT_POLL_SECONDS: '1', PLACEMENT_DEADLINE_SECONDS: '3600' } });
  browser = await chromium.launch({ executablePath: process.env['CHROMIUM_PATH'] ?? (await packagedChromium.executablePath()), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'], headless: true });
});
afterAll(async () => {
  await browser?.close();
  await platform?.close();
  await Promise.all(Object.values(seeds).map((s) => s?.close()));
});

const url = (path: string) => `${platform.us.url}${path}`;

/**
 * Once the seeds named have been found, the result's deadline moves to now, so the next poll marks
 * the others missing: a deadline short enough to wait out could pass on a slow machine before the
 * test had filed its copies.
 */
async function deadlineNow(resultId: string, found: string[]): Promise<void> {
  await eventually(async () => {
    const seeds = ((await send('GET', `/v4/inbox/results/${resultId}`)).json as { result: ResultJson }).result.seed_results.filter((s) => found.includes(s.email));
    return seeds.length === found.length && seeds.every((s) => s.state !== 'pending');
  });
  const accountId = await primaryAccountId(platform.us);
  await platform.us.run(() => updateItem(resultKeys.placementResult(accountId, resultId), { deadline: new Date().toISOString() }));
}
const send = (method: string, path: string, body?: unknown, key?: string | null) => call(url(path), { method, contentType: 'application/json', body: body === undefined ? undefined : JSON.stringify(body), key });
const client = () => sdk(platform.us.url);

/** Bob's mailbox is signed in to with an OAuth2 access token (XOAUTH2), as Outlook.com requires. */
const OUTLOOK_TOKEN = 'ya29.outlook-seed-access-token';

const PROVIDERS = { inbox: 'gmail.com', junk: 'outlook.com', lost: 'yahoo.com' } as const;
const NAMES = { inbox: ['Ann', 'Archer'], junk: ['Bob', 'Baker'], lost: ['Cat', 'Cole'] } as const;

interface SeedResultJson {
  email: string;
  provider: string;
  destination: string;
  state: string;
  tags: string[];
  spf: string;
  dkim: string;
  dmarc: string;
  headers: Array<{ key: string; value: string }>;
  extensions: { category: string; ms_spam?: { scl: number | null; bcl: number | null } };
}
interface ResultJson {
  Id: string;
  status: string;
  subject: string;
  sender: string;
  body?: string;
  seed_results: SeedResultJson[];
  delivery_stats: Record<string, { total: number; inbox: number; spam: number; missing: number; pending: number; delivered: number }>;
  spamassassin: unknown;
}

test('with no seed mailboxes configured a placement test is refused and nothing is made', async () => {
  const sandbox = await sandboxOf(client());
  const refused = await send('POST', '/v4/inbox/tests', { from: `tester@${sandbox}`, subject: 'Hello', html: '<p>Hi</p>' });
  expect(refused.status).toBe(400);
  expect(refused.json).toEqual({ message: 'no seed mailboxes are configured' });
  expect((await sdkError(client().inboxPlacements.seedsLists.create({ name: 'Too early' }))).status).toBe(400);
  expect((await send('GET', '/v4/inbox/results')).json).toMatchObject({ items: [], total: 0 });
  expect((await send('GET', '/v4/inbox/providers')).json).toEqual({ items: [] });
});

test('the operator adds seed mailboxes; their secrets are never returned', async () => {
  for (const kind of ['inbox', 'junk', 'lost'] as const) {
    const seed = seeds[kind]!;
    const secret = kind === 'junk' ? { oauth2_token: OUTLOOK_TOKEN } : { password: seed.password };
    const added = await send('POST', '/v1/inbox/seed-mailboxes', { email: seed.email, provider: PROVIDERS[kind], imap_host: '127.0.0.1', imap_port: seed.port, imap_tls: false, ...secret, first_name: NAMES[kind][0], last_name: NAMES[kind][1] });
    expect(added.status).toBe(200);
    expect(added.text).not.toContain(seed.password);
    expect(added.text).not.toContain(OUTLOOK_TOKEN);
  }
  const listed = await send('GET', '/v1/inbox/seed-mailboxes');
  expect((listed.json.items as unknown[]).length).toBe(3);
  expect(listed.text).not.toContain('seed-app-password');
  expect(listed.text).not.toContain(OUTLOOK_TOKEN);
  // Bad input changes nothing.
  const bad = await send('POST', '/v1/inbox/seed-mailboxes', { email: 'not-an-address', provider: 'x.com', imap_host: 'h', password: 'p' });
  expect(bad.status).toBe(400);
  expect(((await send('GET', '/v1/inbox/seed-mailboxes')).json.items as unknown[]).length).toBe(3);
  // A subaccount's admin is not the operator.
  const sub = (await client().subaccounts.create('Agency')).subaccount.id;
  const asSub = await call(url('/v1/inbox/seed-mailboxes'), { headers: { 'X-Mailgun-On-Behalf-Of': sub } });
  expect(asSub.status).toBe(403);
  const providers = (await client().inboxPlacements.providers.list()) as unknown as { items: Array<{ domain: string }> };
  expect(providers.items.map((p) => p.domain)).toEqual(['gmail.com', 'outlook.com', 'yahoo.com']);
});

let target = '';

test('seed lists: create, get, list with filters and total, update with regen, attributes and filters', async () => {
  const lists = client().inboxPlacements.seedsLists;
  const created = await lists.create({ name: 'Newsletter seeds', remote_id: 'campaign-7' });
  expect(created.target_email).toMatch(/^ibp-[0-9a-f-]{36}@seeds\.localhost$/);
  expect(created.mailing_list.split(',')).toEqual([created.target_email, seeds.inbox!.email, seeds.junk!.email, seeds.lost!.email]);
  expect(created.Seeds?.every((s) => s.password === '' && s.totp.secret === '')).toBe(true);
  const onlyGmail = await lists.create({ name: 'Gmail only', provider_filter: 'gmail.com' });
  expect(onlyGmail.mailing_list.split(',').slice(1)).toEqual([seeds.inbox!.email]);
  expect((await sdkError(lists.create({ name: 'Bad', seed_filter: '([' }))).status).toBe(400);

  const got = await lists.get(created.target_email);
  expect(got.name).toBe('Newsletter seeds');
  const listed = (await send('GET', '/v4/inbox/seedlists?name=Gmail%20only')).json as { items: Array<{ name: string }>; total: number; paging: { next: string } };
  expect(listed.total).toBe(1);
  expect(listed.items[0]!.name).toBe('Gmail only');
  expect(listed.paging.next.startsWith(platform.us.url)).toBe(true);
  const paged = (await send('GET', '/v4/inbox/seedlists?limit=1&offset=1')).json as { items: Array<{ name: string }>; total: number };
  expect(paged).toMatchObject({ total: 2 });
  expect(paged.items.length).toBe(1);
  // The page links carry an opaque cursor: following first's next reaches the second list.
  const first = (await send('GET', '/v4/inbox/seedlists?limit=1')).json as { items: Array<{ name: string }>; paging: { next: string } };
  const next = (await send('GET', first.paging.next.slice(platform.us.url.length))).json as { items: Array<{ name: string }> };
  expect(next.items.map((l) => l.name)).toEqual(paged.items.map((l) => l.name));
  expect(next.items[0]!.name).not.toBe(first.items[0]!.name);
  expect((await send('GET', '/v4/inbox/seedlists?cursor=abc')).status).toBe(400);
  expect((await send('GET', '/v4/inbox/seedlists?offset=1&cursor=abc')).status).toBe(400);

  const regenerated = await lists.update(onlyGmail.target_email, { name: 'Gmail seeds', regen: true } as never);
  expect(regenerated.target_email).not.toBe(onlyGmail.target_email);
  expect((regenerated as unknown as { previous_mailing_list: string }).previous_mailing_list.startsWith(onlyGmail.target_email)).toBe(true);
  expect((await sdkError(lists.get(onlyGmail.target_email))).status).toBe(404);

  expect((await send('GET', '/v4/inbox/seedlists/a')).json).toEqual({ items: { attribute: 'available attributes', values: ['name'] } });
  expect((await send('GET', '/v4/inbox/seedlists/a/name')).json).toEqual({ items: { attribute: 'name', values: ['Gmail seeds', 'Newsletter seeds'] } });
  expect(((await send('GET', '/v4/inbox/seedlists/_filters')).json as { supported_filters: { filters: Array<{ parameter: string }> } }).supported_filters.filters.map((f) => f.parameter)).toEqual(['name', 'time_before', 'time_after']);

  const deleted = await send('DELETE', `/v4/inbox/seedlists/${regenerated.target_email}`);
  expect(deleted.status).toBe(200);
  target = created.target_email;
});

/** A provider's copy of what SES sent to a seed: its own Authentication-Results on top, as its MX writes it. */
function filed(raw: Buffer, authservId: string, verdicts: string, extra = ''): string {
  return `Authentication-Results: ${authservId}; ${verdicts}\r\n${extra}${raw.toString('utf8')}`;
}

let resultId = '';

test('a placement test reports inbox, spam and missing with the receivers’ SPF, DKIM and DMARC', async () => {
  const sandbox = await sandboxOf(client());
  const started = await client().inboxPlacements.runTest({ from: `tester@${sandbox}`, subject: 'Spring sale', html: '<p>Hello %recipient.first_name% %recipient.last_name%</p>', seed_list: target });
  resultId = started.result_id;
  expect((started as unknown as { mailing_list: string }).mailing_list.split(',')[0]).toBe(target);
  expect(started.links.results).toBe(url(`/v4/inbox/results/${resultId}`));
  // The link answers at once: every seed pending until the poll has found its copy.
  const early = await call(started.links.results, {});
  expect(early.status).toBe(200);
  expect(early.json.result).toMatchObject({ status: 'processing', subject: 'Spring sale', sender: `tester@${sandbox}` });
  expect((early.json.result as ResultJson).seed_results.map((s) => s.state)).toEqual(['pending', 'pending', 'pending']);

  // Each seed got its own copy, with its own name filled in.
  const copyTo = async (email: string) =>
    eventually(async () => platform.us.ses.sent.find((m) => m.destinations.includes(email) && m.raw.toString().includes('Spring sale'))?.raw);
  const [annCopy, bobCopy] = await Promise.all([copyTo(seeds.inbox!.email), copyTo(seeds.junk!.email)]);
  expect(annCopy.toString()).toContain('Hello Ann Archer');
  expect(bobCopy.toString()).toContain('Hello Bob Baker');
  const messageId = /^Message-ID:\s*(<[^>]+>)/im.exec(annCopy.toString())![1]!;
  // Four copies in all: the target's and one per seed.
  await eventually(async () => sesSendsOf(platform.us, messageId).length === 4);

  await seeds.inbox!.deliver('INBOX', filed(annCopy, 'mx.google.com', 'dkim=pass header.i=@sandbox; spf=pass (google.com: domain of sender designates 192.0.2.10 as permitted sender) smtp.mailfrom=x; dmarc=pass (p=NONE) header.from=sandbox'), 'promotions');
  await seeds.junk!.deliver(seeds.junk!.junk, filed(bobCopy, 'spf.protection.outlook.com', 'spf=fail (sender IP is 192.0.2.10) smtp.mailfrom=x; dkim=pass (signature was verified) header.d=x; dmarc=fail action=quarantine header.from=x', 'X-Forefront-Antispam-Report: CIP:192.0.2.10;CTRY:;LANG:en;SCL:5;SRV:;IPV:NLI;SFV:SPM;CAT:SPM;\r\nX-Microsoft-Antispam: BCL:4;\r\n'));
  await deadlineNow(resultId, [seeds.inbox!.email, seeds.junk!.email]);

  const result = await eventually(async () => {
    const got = (await send('GET', `/v4/inbox/results/${resultId}`)).json as { result?: ResultJson };
    return got.result?.status === 'complete' ? got.result : undefined;
  });
  const bySeed = Object.fromEntries(result.seed_results.map((s) => [s.email, s]));
  expect(bySeed[seeds.inbox!.email]).toMatchObject({ provider: 'gmail.com', state: 'delivered', destination: 'inbox', tags: ['inbox'], spf: 'pass', dkim: 'pass', dmarc: 'pass', extensions: { category: 'promotions' } });
  expect(bySeed[seeds.junk!.email]).toMatchObject({ provider: 'outlook.com', state: 'delivered', destination: 'spam', tags: ['junk'], spf: 'fail', dkim: 'pass', dmarc: 'fail', extensions: { ms_spam: { scl: 5, bcl: 4 } } });
  expect(bySeed[seeds.lost!.email]).toMatchObject({ provider: 'yahoo.com', state: 'missing', destination: '', spf: 'missing/not-set' });
  expect(bySeed[seeds.inbox!.email]!.headers.some((h) => h.key === 'Authentication-Results' && h.value.startsWith('mx.google.com'))).toBe(true);
  // The target's copy tells the result which IP sent it.
  const sentFrom = async () => ((await send('GET', `/v4/inbox/results/${resultId}`)).json as { result: { seed_results: Array<{ email: string; originating_ip: string }> } }).result.seed_results.find((s) => s.email === seeds.inbox!.email)!.originating_ip;
  expect(await eventually(sentFrom)).toMatch(/^[0-9a-f.:]+$/);
  expect(result.delivery_stats['all']).toMatchObject({ total: 3, delivered: 2, inbox: 1, spam: 1, missing: 1, pending: 0, categories: { promotions: 1 } });
  expect(result.delivery_stats['outlook.com']).toMatchObject({ total: 1, spam: 1 });
  expect(result.subject).toBe('Spring sale');
  expect(result.body).toContain('<p>Hello');
  // No scorer is configured here: no score, rather than an invented one.
  expect(result.spamassassin).toBeNull();

  const sdkResult = await client().inboxPlacements.results.get(resultId);
  expect(sdkResult.inboxPlacementResult.id).toBe(resultId);
  const filtered = (await send('GET', '/v4/inbox/results?provider=outlook.com&subject=Spring%20sale')).json as { items: ResultJson[]; total: number };
  expect(filtered.total).toBe(1);
  expect(filtered.items[0]!.body).toBeUndefined();
  expect(((await send('GET', '/v4/inbox/results?subject=Other')).json as { total: number }).total).toBe(0);
  expect((await send('GET', '/v4/inbox/results/a/provider')).json).toEqual({ items: { attribute: 'provider', values: ['gmail.com', 'outlook.com', 'yahoo.com'] } });
  const stats = (await send('GET', '/v3/stats/total?event=seed_test&duration=1d')).json as { stats: Array<{ seed_test: { total: number } }> };
  expect(stats.stats.reduce((n, s) => n + s.seed_test.total, 0)).toBe(1);
});

test('a shared result opens without a key, as JSON and as a web page, until sharing is turned off', async () => {
  const sharing = client().inboxPlacements.results.sharing;
  expect((await sharing.get(resultId)).enabled).toBe(false);
  const on = await sharing.update(resultId, { enabled: true });
  expect(on.enabled).toBe(true);
  const shared = await call(on.api_url, { key: null });
  expect(shared.status).toBe(200);
  expect((shared.json.result as ResultJson).body).toBeUndefined();
  expect(shared.text).not.toContain('seed-app-password');
  expect(shared.text).not.toContain(OUTLOOK_TOKEN);

  const page = await browser.newPage();
  try {
    expect((await page.goto(on.url))?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Spring sale: inbox placement');
    await expect(page.locator(`tr[data-seed="${seeds.inbox!.email}"]`).getAttribute('data-destination')).resolves.toBe('inbox');
    await expect(page.locator(`tr[data-seed="${seeds.junk!.email}"]`).getAttribute('data-destination')).resolves.toBe('spam');
    await expect(page.locator(`tr[data-seed="${seeds.lost!.email}"]`).getAttribute('data-state')).resolves.toBe('missing');
    await expect(page.locator('tr[data-provider="all"] td').nth(1).textContent()).resolves.toBe('3');

    await sharing.update(resultId, { enabled: false });
    expect((await page.goto(on.url))?.status()).toBe(404);
    expect((await call(on.api_url, { key: null })).status).toBe(404);
  } finally {
    await page.close();
  }
});

test('deleting a result answers with both message keys and it is gone', async () => {
  const deleted = await send('DELETE', `/v4/inbox/results/${resultId}`);
  expect(deleted.json).toEqual({ Message: 'result deleted', message: 'result deleted' });
  expect((await send('GET', `/v4/inbox/results/${resultId}`)).status).toBe(404);
  expect((await send('DELETE', `/v4/inbox/results/${resultId}`)).status).toBe(404);
});

test('a message the user sends to the mailing list themselves starts a result just the same', async () => {
  const sandbox = await sandboxOf(client());
  const list = await client().inboxPlacements.seedsLists.get(target);
  const sent = await client().messages.create(sandbox, { from: `me@${sandbox}`, to: list.mailing_list.split(','), subject: 'Own send', html: '<p>Sent by hand</p>' });
  const annCopy = await eventually(async () => platform.us.ses.sent.find((m) => m.destinations.includes(seeds.inbox!.email) && m.raw.toString().includes(sent.id!))?.raw);
  // Archived by a filter: only in Gmail's All Mail, which is not spam.
  await seeds.inbox!.deliver('[Gmail]/All Mail', filed(annCopy, 'mx.google.com', 'spf=pass smtp.mailfrom=x; dkim=fail header.d=x; dmarc=fail header.from=x'), 'updates');
  const started = await eventually(async () => ((await send('GET', '/v4/inbox/results?subject=Own%20send')).json as { items: ResultJson[] }).items[0]);
  await deadlineNow(started.Id, [seeds.inbox!.email]);
  const result = await eventually(async () => {
    const found = (await send('GET', '/v4/inbox/results?subject=Own%20send')).json as { items: ResultJson[] };
    return found.items[0]?.status === 'complete' ? found.items[0] : undefined;
  });
  expect(result.sender).toBe(`me@${sandbox}`);
  expect(result.delivery_stats['all']).toMatchObject({ total: 3, inbox: 1, missing: 2 });
  expect(result.seed_results.find((s) => s.email === seeds.inbox!.email)).toMatchObject({ spf: 'pass', dkim: 'fail', dmarc: 'fail', destination: 'inbox', tags: ['[gmail]/all mail'], extensions: { category: 'updates' } });
  expect(((await send('GET', '/v4/inbox/seedlists/' + target)).json as { seedlist: { has_results: boolean } }).seedlist.has_results).toBe(true);
});
