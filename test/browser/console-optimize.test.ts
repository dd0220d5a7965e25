import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { recordRaised } from '../../functions/optimize/alerts/history';
import { resultKeys } from '../../functions/optimize/inbox/results';
import { updateItem } from '../../functions/data/store';
import type { LocalPlatform } from '../../lib/local/platform';
import { horizontalOverflow, launchBrowser, newContext, openPage, expectAccessible as expectPageAccessible, signIn } from '../support/browser';
import { startDnsServer } from '../support/dns-server';
import { ADMIN_KEY, apiKeys, call, eventually, primaryAccountId, sdk, startTestPlatform } from '../support/platform';
import { fakeServiceAccount, PostmasterStandIn } from '../support/postmaster-standin';
import { startSeedImap, type SeedImap } from '../support/seed-imap';
import { SlackStandIn } from '../support/slack-standin';
import { findSeedMailbox, seedLogin } from '../../functions/optimize/inbox/seed-mailboxes';
import { handler as postmasterFetch } from '../../functions/optimize/postmaster/fetch-job';

// The console's Optimize pages as a user meets them, against `npm start`'s host with the local
// stand-ins the integration suites use: a loopback DNS server serving the blocklists' fixture zones
// (BLOCKLIST_RESOLVERS), and seed mailboxes on hoodiecrow IMAP servers the test files copies into.
// Each journey compares what the page shows with what the API answers for the same query.
jest.setTimeout(240_000);

const PAGES = ['DMARC', 'Blocklists', 'Health score', 'Inbox placement', 'Spam traps', 'Postmaster', 'Alerts'] as const;
const IP_ZONES = ['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org', 'dnsbl-1.uceprotect.net'];
const TEST_POINTS: Array<[string, string]> = [
  ...IP_ZONES.map((zone): [string, string] => [`2.0.0.127.${zone}`, '127.0.0.2']),
  ['dbltest.com.dbl.spamhaus.org', '127.0.1.2'],
  ['test.uribl.com.multi.uribl.com', '127.0.0.14'],
  ['test.surbl.org.multi.surbl.org', '127.0.0.216'],
];

let dns: Awaited<ReturnType<typeof startDnsServer>>;
let platform: LocalPlatform;
let browser: Browser;
let page: Page;
let slack: SlackStandIn;
const SLACK_TOKEN = 'xoxb-0000-console-token';
const seeds: { inbox?: SeedImap; junk?: SeedImap } = {};

beforeAll(async () => {
  dns = await startDnsServer();
  for (const [name, address] of TEST_POINTS) dns.set(name, { a: [address] });
  [seeds.inbox, seeds.junk] = await Promise.all([startSeedImap('ann@gmail.seed.test', undefined, { gmail: true }), startSeedImap('bob@outlook.seed.test')]);
  slack = await new SlackStandIn({ id: 'T0CONSOLE', name: 'Console team' }, [
    { id: 'C0ALERTS', name: 'alerts' },
    { id: 'C0OPS', name: 'ops' },
  ]).start();
  slack.grant(SLACK_TOKEN);
  [platform, browser] = await Promise.all([
    startTestPlatform({ periodicJobEveryMs: 500, env: { BLOCKLIST_RESOLVERS: dns.address, BLOCKLIST_CHECK_INTERVAL: '1', PLACEMENT_POLL_SECONDS: '1', PLACEMENT_DEADLINE_SECONDS: '3600', SLACK_API_URL: slack.url } }),
    launchBrowser(),
  ]);
  page = await (await newContext(browser)).newPage();
  await signIn(page, platform.us.url, ADMIN_KEY);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await platform?.close();
  await dns?.close();
  await slack?.close();
  await Promise.all([seeds.inbox?.close(), seeds.junk?.close()]);
});

const api = async <T>(path: string) => (await call(`${platform.us.url}${path}`)).json as T;

const open = (name: (typeof PAGES)[number]) => openPage(page, name);

/** With CONSOLE_SCREENSHOTS=<dir>, a full-page screenshot to look at; otherwise nothing. */
async function snap(name: string, target: Page = page): Promise<void> {
  const dir = process.env['CONSOLE_SCREENSHOTS'];
  if (dir) await target.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

const expectAccessible = (where: string, target: Page = page) => expectPageAccessible(target, where);

/** A table's body rows as the text of their cells (header cell first). */
function rowsOf(table: ReturnType<Page['getByRole']>): Promise<string[][]> {
  return table.evaluate((el) => [...el.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())));
}

const DOMAIN = 'brand.example.com';
const DAY = Math.floor(Date.now() / 86_400_000) * 86_400 - 86_400;

/** An aggregate report as a receiver writes it (RFC 7489). */
function reportXml(org: string, id: string, rows: Array<{ ip: string; count: number; dkim: string; spf: string; disposition?: string }>): string {
  const records = rows
    .map(
      (r) =>
        `<record><row><source_ip>${r.ip}</source_ip><count>${r.count}</count><policy_evaluated><disposition>${r.disposition ?? 'none'}</disposition><dkim>${r.dkim}</dkim><spf>${r.spf}</spf></policy_evaluated></row><identifiers><header_from>${DOMAIN}</header_from></identifiers><auth_results><dkim><domain>${DOMAIN}</domain><selector>s1</selector><result>${r.dkim}</result></dkim><spf><domain>${DOMAIN}</domain><result>${r.spf}</result></spf></auth_results></record>`,
    )
    .join('');
  return `<?xml version="1.0"?><feedback><report_metadata><org_name>${org}</org_name><email>dmarc@${org}</email><report_id>${id}</report_id><date_range><begin>${DAY}</begin><end>${DAY + 86_399}</end></date_range></report_metadata><policy_published><domain>${DOMAIN}</domain><p>quarantine</p></policy_published>${records}</feedback>`;
}

interface DmarcSource {
  source: string;
  name: string;
  type: string;
  email_count: number;
  dmarc_pass: number;
  dmarc_fail: number;
  host_count: number;
  ip_count: number;
}

describe('the Optimize pages', () => {
  it('uploads a DMARC report and shows its domain, sources, hosts and IPs with the API’s figures, and the record to publish', async () => {
    await open('DMARC');
    await page.getByText('No DMARC reports yet').waitFor();
    const report = reportXml('google.com', 'console-1', [
      { ip: '192.0.2.1', count: 90, dkim: 'pass', spf: 'pass' },
      { ip: '192.0.2.2', count: 10, dkim: 'fail', spf: 'fail', disposition: 'quarantine' },
    ]);
    await page.getByLabel('Report files').setInputFiles([
      { name: 'google.xml.gz', mimeType: 'application/gzip', buffer: gzipSync(report) },
      { name: 'broken.xml', mimeType: 'text/xml', buffer: Buffer.from('<feedback>') },
    ]);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const outcomes = page.getByRole('list', { name: 'Uploaded files' });
    await outcomes.getByText('google.xml.gz: ingested').waitFor();
    await outcomes.getByText(/broken\.xml: refused/).waitFor();

    // The domains table says what GET /v1/dmarc/domains says.
    const domains = await api<{ domains: Array<{ domain: string; email_count: number; dmarc_pass: number; dmarc_fail: number; compliance: number; source_count: number; policy: string }> }>('/v1/dmarc/domains');
    const domainsTable = page.getByRole('table', { name: /Domains with reports/ });
    await domainsTable.getByRole('button', { name: DOMAIN }).waitFor();
    expect((await rowsOf(domainsTable)).map((r) => r.slice(0, 7))).toEqual(
      domains.domains.map((d) => [d.domain, String(d.email_count), String(d.dmarc_pass), String(d.dmarc_fail), `${(d.compliance * 100).toFixed(1)}%`, String(d.source_count), d.policy]),
    );
    expect(domains.domains[0]).toMatchObject({ email_count: 100, dmarc_pass: 90, dmarc_fail: 10 });
    await page.getByRole('table', { name: /by DMARC result, all domains/ }).waitFor();

    // Its sources, as GET /v1/dmarc/domains/{domain} gives them.
    await domainsTable.getByRole('button', { name: DOMAIN }).click();
    const sourcesTable = page.getByRole('table', { name: `Sources sending as ${DOMAIN}` });
    await sourcesTable.waitFor();
    const detail = await api<{ sources: DmarcSource[] }>(`/v1/dmarc/domains/${DOMAIN}`);
    expect(await rowsOf(sourcesTable)).toEqual(
      detail.sources.map((s) => [`${s.name} (${s.source})`, s.type, String(s.email_count), String(s.dmarc_pass), String(s.dmarc_fail), `${((100 * s.dmarc_pass) / s.email_count).toFixed(1)}%`, String(s.host_count), String(s.ip_count)]),
    );
    await expectAccessible('DMARC, a domain');

    // Down the API's levels: source, host, IP addresses.
    const source = detail.sources[0]!;
    await sourcesTable.getByRole('button', { name: `${source.name} (${source.source})` }).click();
    const hostsTable = page.getByRole('table', { name: `Hosts of source ${source.source} (their PTR names; unknown without one)` });
    await hostsTable.waitFor();
    const sourceDetail = await api<{ hosts: Array<{ host: string; email_count: number }> }>(`/v1/dmarc/domains/${DOMAIN}/s/${source.source}`);
    expect((await rowsOf(hostsTable)).map((r) => r.slice(0, 2))).toEqual(sourceDetail.hosts.map((h) => [h.host, String(h.email_count)]));
    const host = sourceDetail.hosts[0]!.host;
    await hostsTable.getByRole('button', { name: host }).click();
    const ipsTable = page.getByRole('table', { name: `IP addresses of host ${host}` });
    await ipsTable.waitFor();
    const hostDetail = await api<{ ip_addresses: Array<{ ip: string; email_count: number; dmarc_pass: number; dmarc_fail: number }> }>(`/v1/dmarc/domains/${DOMAIN}/s/${source.source}/h/${host}`);
    expect((await rowsOf(ipsTable)).map((r) => r.slice(0, 4))).toEqual(hostDetail.ip_addresses.map((i) => [i.ip, String(i.email_count), String(i.dmarc_pass), String(i.dmarc_fail)]));
    await ipsTable.getByRole('button', { name: '192.0.2.2' }).click();
    await page.getByRole('heading', { name: 'IP 192.0.2.2' }).waitFor();
    await page
      .getByRole('table', { name: /auth events/ })
      .getByRole('cell', { name: 'quarantine' })
      .first()
      .waitFor();
    await page.getByRole('navigation', { name: 'DMARC levels' }).getByRole('button', { name: DOMAIN }).click();
    await sourcesTable.waitFor();
    await snap('dmarc-domain');

    // The record to publish, as GET /v1/dmarc/records/{domain} gives it, and that it is not live.
    const sandbox = (await sdk(platform.us.url).domains.list()).find((d) => d.type === 'sandbox')!.name;
    await page.getByLabel('Sending domain').selectOption(sandbox);
    const record = await api<{ entry: string; configured: boolean; current: string }>(`/v1/dmarc/records/${sandbox}`);
    const recordPanel = page.getByRole('region', { name: 'Record to publish' });
    await recordPanel.getByText(record.entry, { exact: true }).waitFor();
    expect([record.configured, record.current]).toEqual([false, '']);
    // Nothing is published: it says so, rather than that a record names the wrong address.
    await recordPanel.getByText('not live', { exact: true }).waitFor();
    await recordPanel.getByText(`no record is published at _dmarc.${sandbox} yet.`).waitFor();
    expect(await recordPanel.getByText("does not name this account's report address").count()).toBe(0);
    await expectAccessible('DMARC, record to publish');
  });

  it('adds a monitored IP, shows it checked against the fixture lists, then listed on Spamhaus as the API says', async () => {
    await open('Blocklists');
    await page.getByRole('textbox', { name: 'IP address' }).fill('203.0.113.77');
    await page.getByLabel('Description').fill('outbound <b>main</b>');
    await page.getByRole('button', { name: 'Add IP address' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: '203.0.113.77' }) });
    await row.waitFor();
    // The description is text, not markup.
    await row.getByText('outbound <b>main</b>').waitFor();
    // Every fixture list answers: healthy once checked (the page looks again until then).
    await row.getByText('healthy', { exact: true }).waitFor({ timeout: 30_000 });
    expect((await api<{ state: string }>('/v1/inboxready/ip_addresses/203.0.113.77')).state).toBe('healthy');

    dns.set('77.113.0.203.zen.spamhaus.org', { a: ['127.0.0.2'], txt: ['https://check.spamhaus.org/sbl/query/SBL123'] });
    await eventually(async () => {
      if (await row.getByText('listed', { exact: true }).count()) return true;
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await page.waitForTimeout(500);
      return false;
    }, 60_000);
    const ip = await api<{ state: string; listed: Array<{ list: string; name: string; comments: string[] }>; unknown_lists: unknown[] }>('/v1/inboxready/ip_addresses/203.0.113.77');
    expect(ip.state).toBe('listed');
    expect(ip.listed.map((l) => l.list)).toEqual(['zen.spamhaus.org']);
    const cells = (await rowsOf(page.getByRole('table', { name: /Monitored IP addresses/ }))).find((r) => r[0] === '203.0.113.77')!;
    const lists = await api<{ items: Array<{ blocklist: string; name: string }> }>('/v1/blocklist-monitoring/blocklists');
    // One column per list: Spamhaus listed with the API's comments, the others not listed.
    lists.items.forEach((list, i) => {
      const cell = cells[2 + i]!;
      if (list.blocklist === 'zen.spamhaus.org') {
        expect(cell).toContain('listed');
        for (const comment of ip.listed[0]!.comments) expect(cell).toContain(comment);
      } else expect(cell).toBe('not listed');
    });
    await expectAccessible('blocklists');
    await snap('blocklists-listed');

    // Removing it asks first, then it is gone from the page and the API.
    await row.getByRole('button', { name: 'Remove 203.0.113.77' }).click();
    await page.getByRole('dialog', { name: 'Remove 203.0.113.77' }).getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await call(`${platform.us.url}/v1/inboxready/ip_addresses/203.0.113.77`)).status).toBe(404);
    // The listing stays in the events.
    await page.getByRole('table', { name: 'Events, newest first' }).getByRole('cell', { name: 'IP listed', exact: true }).first().waitFor();

    // A domain: one column per domain list, listed on the DBL with since when, not listed on the others, as the API says.
    const domain = 'listed.example.org';
    await sdk(platform.us.url).domains.create({ name: domain });
    await sdk(platform.us.url).domains.verify(domain);
    await page.getByLabel('Domain to monitor').fill(domain);
    await page.getByRole('button', { name: 'Add domain' }).click();
    const domainsTable = page.getByRole('table', { name: 'Managed domains and their state on the domain lists' });
    const domainRow = domainsTable.getByRole('row').filter({ has: page.getByRole('rowheader', { name: domain }) });
    await domainRow.getByText('healthy', { exact: true }).waitFor({ timeout: 30_000 });
    dns.set(`${domain}.dbl.spamhaus.org`, { a: ['127.0.1.2'] });
    await eventually(async () => {
      if (await domainRow.getByText('listed', { exact: true }).count()) return true;
      await page.getByRole('button', { name: 'Refresh domains' }).click();
      await page.waitForTimeout(500);
      return false;
    }, 60_000);
    type Domains = { blocklists: Array<{ list: string; name: string }>; domains: Array<{ domain: string; listed: Array<{ list: string; first_seen: string }>; unknown_lists: unknown[] }> };
    const monitored = await api<Domains>('/v1/monitoring/domains');
    const apiDomain = monitored.domains.find((d) => d.domain === domain)!;
    expect(apiDomain.listed.map((l) => l.list)).toEqual(['dbl.spamhaus.org']);
    expect(apiDomain.unknown_lists).toEqual([]);
    const headers = await domainsTable.evaluate((el) => [...el.querySelectorAll('thead th')].map((th) => th.textContent));
    expect(headers.slice(3, 3 + monitored.blocklists.length)).toEqual(monitored.blocklists.map((l) => l.name));
    const domainCells = (await rowsOf(domainsTable)).find((r) => r[0] === domain)!;
    monitored.blocklists.forEach((list, i) => {
      const cell = domainCells[3 + i]!;
      if (list.list === 'dbl.spamhaus.org') expect(cell).toMatch(/^listed since /);
      else expect(cell).toBe('not listed');
    });
    await expectAccessible('blocklists with a listed domain');
    await snap('blocklists-domain-listed');
  });

  it('runs an inbox placement test and shows the matrix the API gives, with verdicts, score state and sharing', async () => {
    const send = (path: string, body: unknown) => call(`${platform.us.url}${path}`, { method: 'POST', contentType: 'application/json', body: JSON.stringify(body) });
    expect((await send('/v1/inbox/seed-mailboxes', { email: seeds.inbox!.email, provider: 'gmail.com', imap_host: '127.0.0.1', imap_port: seeds.inbox!.port, imap_tls: false, password: seeds.inbox!.password, first_name: 'Ann' })).status).toBe(200);
    expect((await send('/v1/inbox/seed-mailboxes', { email: seeds.junk!.email, provider: 'outlook.com', imap_host: '127.0.0.1', imap_port: seeds.junk!.port, imap_tls: false, password: seeds.junk!.password, first_name: 'Bob' })).status).toBe(200);

    await open('Inbox placement');
    await page.getByText('Seed mailboxes at: gmail.com, outlook.com.').waitFor();
    await page.getByLabel('Seed list name').fill('Console seeds');
    await page.getByRole('button', { name: 'Create seed list' }).click();
    await page.getByRole('rowheader', { name: 'Console seeds' }).waitFor();
    const list = (await api<{ items: Array<{ name: string; target_email: string }> }>('/v4/inbox/seedlists')).items.find((l) => l.name === 'Console seeds')!;

    await page.getByLabel('Subject').fill('Console placement');
    await page.getByLabel('Seed list', { exact: true }).selectOption(list.target_email);
    const started = page.waitForResponse((res) => res.url().endsWith('/v4/inbox/tests') && res.request().method() === 'POST');
    await page.getByRole('button', { name: 'Run test' }).click();
    const resultId = ((await (await started).json()) as { result_id: string }).result_id;

    // The providers file the copies: Ann's in the inbox (Promotions tab), Bob's in Junk.
    const copyTo = (email: string) => eventually(async () => platform.us.ses.sent.find((m) => m.destinations.includes(email) && m.raw.toString().includes('Console placement'))?.raw);
    const [annCopy, bobCopy] = await Promise.all([copyTo(seeds.inbox!.email), copyTo(seeds.junk!.email)]);
    await seeds.inbox!.deliver('INBOX', `Authentication-Results: mx.google.com; dkim=pass header.i=@x; spf=pass smtp.mailfrom=x; dmarc=pass header.from=x\r\n${annCopy.toString('utf8')}`, 'promotions');
    await seeds.junk!.deliver(seeds.junk!.junk, `Authentication-Results: spf.protection.outlook.com; spf=fail smtp.mailfrom=x; dkim=pass header.d=x; dmarc=fail header.from=x\r\n${bobCopy.toString('utf8')}`);
    // Both found: the deadline moves to now, so the result completes at the next poll.
    await eventually(async () => {
      const got = await call(`${platform.us.url}/v4/inbox/results/${resultId}`);
      const seedResults = (got.json.result as { seed_results?: Array<{ state: string }> } | undefined)?.seed_results ?? [];
      return seedResults.length === 2 && seedResults.every((s) => s.state !== 'pending');
    }, 60_000);
    const accountId = await primaryAccountId(platform.us);
    await platform.us.run(() => updateItem(resultKeys.placementResult(accountId, resultId), { deadline: new Date().toISOString() }));

    const matrix = page.getByRole('table', { name: 'Placement by provider' });
    await page
      .getByRole('region', { name: /^Result:/ })
      .getByText('complete', { exact: true })
      .waitFor({ timeout: 60_000 });
    const result = (
      await api<{
        result: {
          delivery_stats: Record<string, { inbox: number; spam: number; missing: number; pending: number; total: number; categories: Record<string, number> }>;
          seed_results: Array<{ email: string; spf: string; dkim: string; dmarc: string }>;
        };
      }>(`/v4/inbox/results/${resultId}`)
    ).result;
    const expected = ['gmail.com', 'outlook.com', 'all'].map((provider) => {
      const s = result.delivery_stats[provider]!;
      return [provider === 'all' ? 'All providers' : provider, ...[s.inbox, s.spam, s.missing, s.pending, s.total, s.categories['promotions'] ?? 0].map(String)];
    });
    expect(await rowsOf(matrix)).toEqual(expected);
    expect(expected.at(-1)).toEqual(['All providers', '1', '1', '0', '0', '2', '1']);
    // Each seed's verdicts as the receivers wrote them.
    const seedRows = await rowsOf(page.getByRole('table', { name: /Each seed's copy/ }));
    for (const seed of result.seed_results) expect(seedRows.find((r) => r[0] === seed.email)!.slice(6, 9)).toEqual([seed.spf, seed.dkim, seed.dmarc]);
    // No scorer here: the content score is unknown, not zero.
    await page.getByText('No content scorer').waitFor();
    await expectAccessible('inbox placement result');
    await snap('placement-result');

    await page.getByRole('button', { name: 'Share this result' }).click();
    await page.getByRole('button', { name: 'Stop sharing' }).waitFor();
    const sharing = (await api<{ sharing: { url: string; enabled: boolean } }>(`/v4/inbox/sharing/${resultId}`)).sharing;
    expect(sharing.enabled).toBe(true);
    await page.getByRole('link', { name: sharing.url }).waitFor();
    await page.getByRole('button', { name: 'Stop sharing' }).click();
    await page.getByRole('button', { name: 'Share this result' }).waitFor();
    expect((await api<{ sharing: { enabled: boolean } }>(`/v4/inbox/sharing/${resultId}`)).sharing.enabled).toBe(false);

    // With no list chosen the test makes its own, named by when it ran, and the seed lists show it at once.
    await page.getByLabel('Subject').fill('Console placement, every seed');
    await page.getByLabel('Seed list', { exact: true }).selectOption('');
    const again = page.waitForResponse((res) => res.url().endsWith('/v4/inbox/tests') && res.request().method() === 'POST');
    await page.getByRole('button', { name: 'Run test' }).click();
    const secondId = ((await (await again).json()) as { result_id: string }).result_id;
    await page.getByRole('rowheader', { name: /^Placement test \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/ }).waitFor();
    expect((await call(`${platform.us.url}/v4/inbox/results/${secondId}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('lists the operator’s seed mailboxes as the API does; adds, edits without the credential, and removes one', async () => {
    await open('Inbox placement');
    type Seed = { email: string; provider: string; imap_host: string; imap_port: number; imap_tls: boolean; imap_user: string; auth: string; first_name: string; last_name: string };
    const seedsTable = page.getByRole('table', { name: 'Seed mailboxes, by address' });
    await seedsTable.getByRole('rowheader', { name: seeds.inbox!.email }).waitFor();
    const shown = async () => (await rowsOf(seedsTable)).map((r) => r.slice(0, 6));
    const expected = (items: Seed[]) => items.map((s) => [s.email, s.provider, `${s.imap_host}:${s.imap_port}${s.imap_tls ? ' (TLS)' : ' (plain)'}`, s.imap_user, s.auth === 'oauth2' ? 'OAuth2 access token' : 'Password or app password', `${s.first_name} ${s.last_name}`.trim()]);
    expect(await shown()).toEqual(expected((await api<{ items: Seed[] }>('/v1/inbox/seed-mailboxes')).items));

    const add = page.getByRole('form', { name: 'Add a seed mailbox' });
    await add.getByLabel('Seed address').fill('carol@yahoo.seed.test');
    await add.getByLabel('Provider domain').fill('yahoo.com');
    await add.getByLabel('IMAP host').fill('127.0.0.1');
    await add.getByLabel('IMAP port').fill('1143');
    await add.getByLabel('Implicit TLS').uncheck();
    await add.getByLabel('Credential').fill('carol-secret-pw');
    await add.getByLabel('First name').fill('Carol');
    await add.getByRole('button', { name: 'Add seed mailbox' }).click();
    await seedsTable.getByRole('rowheader', { name: 'carol@yahoo.seed.test' }).waitFor();
    expect(await shown()).toEqual(expected((await api<{ items: Seed[] }>('/v1/inbox/seed-mailboxes')).items));
    // Saved, never shown back: not on the page, not in the API's answer.
    expect(await page.content()).not.toContain('carol-secret-pw');
    expect((await call(`${platform.us.url}/v1/inbox/seed-mailboxes`)).text).not.toContain('carol-secret-pw');
    await expectAccessible('inbox placement, seed mailboxes');
    await snap('placement-seed-mailboxes');

    // Edited without its credential: the stored one stays.
    await seedsTable.getByRole('button', { name: 'Edit seed mailbox carol@yahoo.seed.test' }).click();
    const edit = page.getByRole('form', { name: 'Edit seed mailbox carol@yahoo.seed.test' });
    expect(await edit.getByLabel('New credential (empty keeps the stored one)').inputValue()).toBe('');
    await edit.getByLabel('Last name').fill('Jones');
    await edit.getByRole('button', { name: 'Save seed mailbox' }).click();
    await seedsTable.getByRole('cell', { name: 'Carol Jones' }).waitFor();
    expect((await api<{ items: Seed[] }>('/v1/inbox/seed-mailboxes')).items.find((s) => s.email === 'carol@yahoo.seed.test')).toMatchObject({ first_name: 'Carol', last_name: 'Jones', imap_port: 1143, imap_tls: false });
    expect((await platform.us.run(async () => seedLogin((await findSeedMailbox('carol@yahoo.seed.test'))!))).secret).toBe('carol-secret-pw');

    await seedsTable.getByRole('button', { name: 'Remove seed mailbox carol@yahoo.seed.test' }).click();
    await page.getByRole('dialog', { name: 'Remove seed mailbox carol@yahoo.seed.test' }).getByRole('button', { name: 'Remove' }).click();
    await seedsTable.getByRole('rowheader', { name: 'carol@yahoo.seed.test' }).waitFor({ state: 'detached' });
    expect((await api<{ items: Seed[] }>('/v1/inbox/seed-mailboxes')).items.map((s) => s.email)).not.toContain('carol@yahoo.seed.test');
    await page.getByText('Seed mailboxes at: gmail.com, outlook.com.').waitFor();
  });

  it('adds an alert and sends its test; shows the signing key and the history of alerted events', async () => {
    await open('Alerts');
    await page.getByLabel('Event', { exact: true }).selectOption('ip_listed');
    await page.getByLabel('Channel', { exact: true }).selectOption('email');
    await page.getByLabel('Email addresses (comma-separated)').fill('ops@example.net');
    await page.getByRole('button', { name: 'Add alert' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'IP listed', exact: true }) });
    await row.getByText('ops@example.net').waitFor();
    const settings = await api<{ events: Array<{ event_type: string; channel: string; settings: { emails: string[] } }>; webhooks: { signing_key: string } }>('/v1/alerts/settings');
    expect(settings.events).toEqual([expect.objectContaining({ event_type: 'ip_listed', channel: 'email', settings: { emails: ['ops@example.net'] } })]);
    await page.getByText(settings.webhooks.signing_key, { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Send a test alert for IP listed by email' }).click();
    await page.getByRole('status').filter({ hasText: 'A test alert for IP listed by email was sent.' }).waitFor();

    // Edited in place: a full replace, as PUT does it.
    await row.getByRole('button', { name: 'Edit alert IP listed by email' }).click();
    const edit = page.getByRole('form', { name: 'Edit alert IP listed by email' });
    expect(await edit.getByLabel('Email addresses (comma-separated)').inputValue()).toBe('ops@example.net');
    await edit.getByLabel('Email addresses (comma-separated)').fill('ops@example.net, oncall@example.net');
    await edit.getByRole('button', { name: 'Save alert' }).click();
    await row.getByText('ops@example.net, oncall@example.net').waitFor();
    type Settings = { events: Array<{ id: string; event_type: string; channel: string; settings: { emails?: string[]; channel_ids?: string[] } }> };
    expect((await api<Settings>('/v1/alerts/settings')).events).toEqual([expect.objectContaining({ event_type: 'ip_listed', channel: 'email', settings: { emails: ['ops@example.net', 'oncall@example.net'] } })]);

    // Slack: said to be not connected; once connected, its channels are picked from the workspace.
    const add = page.getByRole('form', { name: 'Add an alert' });
    await add.getByLabel('Event', { exact: true }).selectOption('ip_delisted');
    await add.getByLabel('Channel', { exact: true }).selectOption('slack');
    await add.getByText('Slack is not connected').waitFor();
    expect(await add.getByRole('button', { name: 'Add alert' }).isDisabled()).toBe(true);
    await page.getByLabel('Slack bot token').fill(SLACK_TOKEN);
    await page.getByRole('button', { name: 'Connect Slack' }).click();
    await page.getByText('Console team').waitFor();
    await add.getByRole('checkbox', { name: '#alerts' }).check();
    await add.getByRole('button', { name: 'Add alert' }).click();
    // The channel by its name, as Slack gives it.
    await page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'IP delisted', exact: true }) }).getByText('#alerts', { exact: true }).waitFor();
    expect((await api<Settings>('/v1/alerts/settings')).events.find((e) => e.channel === 'slack')).toMatchObject({ event_type: 'ip_delisted', settings: { channel_ids: ['C0ALERTS'] } });
    await expectAccessible('alerts, Slack connected');

    // A listing now raises an alert the email setting delivers; the history shows it as the API does.
    await call(`${platform.us.url}/v1/inboxready/ip_addresses`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ ip: '203.0.113.88' }) });
    dns.set('88.113.0.203.zen.spamhaus.org', { a: ['127.0.0.2'] });
    type History = { items: Array<{ event: string; subject: string; list_name: string; message: string; deliveries: Array<{ channel: string; state: string }> }> };
    // The events by name, as the page words them (an event it does not know, as the API names it).
    const EVENT_NAMES: Record<string, string> = { ip_listed: 'IP listed', ip_delisted: 'IP delisted', domain_listed: 'Domain listed', domain_delisted: 'Domain delisted' };
    await eventually(async () => (await api<History>('/v1/alerts/history?page=last&limit=50')).items.some((a) => a.subject === '203.0.113.88' && a.deliveries.some((d) => d.state === 'delivered')), 60_000);
    await page.getByRole('button', { name: 'Refresh history' }).click();
    const historyTable = page.getByRole('table', { name: /^Alerts raised, newest first/ });
    await historyTable.getByRole('cell', { name: '203.0.113.88', exact: true }).waitFor();
    const history = [...(await api<History>('/v1/alerts/history?page=last&limit=50')).items].reverse();
    expect((await rowsOf(historyTable)).map((r) => r.slice(1, 5))).toEqual(history.map((a) => [EVENT_NAMES[a.event] ?? a.event, a.subject, a.list_name, a.message]));
    // The listing of the blocklist journey went to no one (no alert was on); this one was delivered by email.
    const cells = (await rowsOf(historyTable)).find((r) => r[2] === '203.0.113.77' && r[1] === 'IP listed')!;
    expect(cells[5]).toBe('no alert was on');
    expect((await rowsOf(historyTable)).find((r) => r[2] === '203.0.113.88')![5]).toBe('Email: delivered');
    await expectAccessible('alerts');
    await snap('alerts');

    // Older alerts a page at a time, through the API's paging; and of one event only.
    const latest = (await rowsOf(historyTable)).map((r) => r[2]);
    const accountId = await primaryAccountId(platform.us);
    const older = Array.from({ length: 55 }, (_, i) => ({ accountId, id: `older-${i}`, event: 'domain_listed' as const, subject: `old${String(i).padStart(2, '0')}.example.com`, list: 'dbl.spamhaus.org', listName: 'Spamhaus DBL', firstSeen: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), timestamp: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }));
    await platform.us.run(() => Promise.all(older.map((alert) => recordRaised(alert, []))));
    await page.getByRole('button', { name: 'Refresh history' }).click();
    await historyTable.getByRole('cell', { name: 'old54.example.com', exact: true }).waitFor();
    const newestFirst = [...latest, ...older.map((a) => a.subject).reverse()];
    expect((await rowsOf(historyTable)).map((r) => r[2])).toEqual(newestFirst.slice(0, 50));
    expect(await page.getByRole('button', { name: 'Later' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Earlier' }).click();
    await historyTable.getByRole('cell', { name: newestFirst[50]!, exact: true }).waitFor();
    expect((await rowsOf(historyTable)).map((r) => r[2])).toEqual(newestFirst.slice(50, 100));
    await page.getByRole('button', { name: 'Latest' }).click();
    await historyTable.getByRole('cell', { name: '203.0.113.88', exact: true }).waitFor();
    await page.getByLabel('Show alerts of').selectOption('ip_listed');
    await historyTable.getByRole('cell', { name: 'old54.example.com', exact: true }).waitFor({ state: 'detached' });
    const listed = [...(await api<History>('/v1/alerts/history?page=last&limit=50&event=ip_listed')).items].reverse();
    expect((await rowsOf(historyTable)).map((r) => [r[1], r[2]])).toEqual(listed.map((a) => [EVENT_NAMES[a.event] ?? a.event, a.subject]));
    expect(await page.getByRole('button', { name: 'Earlier' }).isDisabled()).toBe(true);
    await snap('alerts-history-of-one-event');
  });

  it('shows honest empty states: no health score without enough mail, no Postmaster data without Google', async () => {
    await open('Health score');
    await page.getByText(/No score for the account: not enough data/).waitFor();
    await snap('health');
    await open('Postmaster');
    await page.getByText('Google Postmaster Tools is not configured.').waitFor();
    await snap('postmaster');
    const summary = await api<{ source_status: string }>(`/v1/reputationanalytics/gpt/summary/domains?offset=0&limit=10&timeRangeStart=0&timeRangeEnd=${Math.floor(Date.now() / 1000)}`);
    expect(summary.source_status).toBe('not_configured');
    await open('Spam traps');
    await page.getByText('Pristine and harvested hits: unknown.').waitFor();
    await snap('spamtraps');
  });

  it('passes axe on every Optimize page and scrolls none sideways at 1366x768 and 390x844', async () => {
    for (const viewport of [
      { width: 1366, height: 768 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      for (const name of PAGES) {
        if (viewport.width < 700) await page.getByRole('button', { name: 'Menu' }).click();
        await open(name);
        await page.waitForLoadState('networkidle');
        expect({ name, viewport, overflow: await horizontalOverflow(page) }).toEqual({ name, viewport, overflow: 0 });
        if (viewport.width > 700) await expectAccessible(name);
        else await snap(`phone-${name.replace(/ /g, '-').toLowerCase()}`);
      }
    }
    await page.setViewportSize({ width: 1366, height: 768 });
  });

  it('shows a read-only key the Optimize pages without their write buttons', async () => {
    const basic = await apiKeys(sdk(platform.us.url)).create({ role: 'basic', kind: 'user', description: 'optimize read only' });
    const context = await newContext(browser);
    try {
      const reader = await context.newPage();
      await reader.goto(`${platform.us.url}/`);
      await reader.getByLabel('API key').fill(basic.secret);
      await reader.getByRole('button', { name: 'Sign in' }).click();
      const nav = reader.getByRole('navigation', { name: 'Console' });
      const checks: Array<[string, string]> = [
        ['DMARC', 'Upload'],
        ['Blocklists', 'Add IP address'],
        ['Inbox placement', 'Run test'],
        ['Alerts', 'Add alert'],
      ];
      for (const [name, button] of checks) {
        await nav.getByRole('link', { name, exact: true }).click();
        await reader.getByRole('heading', { level: 1, name }).waitFor();
        await reader.waitForLoadState('networkidle');
        expect({ name, buttons: await reader.getByRole('button', { name: button, exact: true }).count() }).toEqual({ name, buttons: 0 });
      }
      // What a reader may see is there: the monitored IPs and the DMARC domain of the journeys above.
      await nav.getByRole('link', { name: 'DMARC', exact: true }).click();
      await reader.getByRole('button', { name: DOMAIN }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('on a host with Google configured and a low score threshold: Postmaster figures and the health score as the API gives them', async () => {
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const account = fakeServiceAccount('placeholder');
    const standIn = await new PostmasterStandIn({
      clientEmail: account.key.client_email,
      publicKey: account.publicKey,
      domains: {
        'mail.example.com': {
          days: {
            [yesterday]: {
              SPAM_RATE: 0.0012,
              'AUTH_SUCCESS_RATE auth_type = "spf"': 0.99,
              'AUTH_SUCCESS_RATE auth_type = "dkim"': 1,
              'AUTH_SUCCESS_RATE auth_type = "dmarc"': 0.98,
              'TLS_ENCRYPTION_RATE traffic_direction = "inbound"': 0.995,
              DELIVERY_ERROR_RATE: 0.004,
            },
            // A low-volume day: Google gives a spam rate and SPF only.
            [twoDaysAgo]: { SPAM_RATE: 0.002, 'AUTH_SUCCESS_RATE auth_type = "spf"': 0.97 },
          },
          compliance: { rowData: [{ requirement: 'SPF', status: { status: 'COMPLIANT' } }] },
        },
      },
    }).start();
    const configured = await startTestPlatform({ env: { POSTMASTER_SERVICE_ACCOUNT_JSON: JSON.stringify({ ...account.key, token_uri: standIn.tokenUrl }), POSTMASTER_API_URL: standIn.url, HEALTH_SCORE_MIN_VOLUME: '2' } });
    const context = await newContext(browser);
    try {
      await sdk(configured.us.url).domains.create({ name: 'mail.example.com' });
      await sdk(configured.us.url).domains.verify('mail.example.com');
      expect((await call(`${configured.us.url}/v1/inboxready/domains?domain=mail.example.com`, { method: 'POST' })).status).toBe(200);
      await configured.us.run(() => postmasterFetch());

      const tab = await context.newPage();
      await tab.goto(`${configured.us.url}/`);
      await tab.getByLabel('API key').fill(ADMIN_KEY);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Postmaster', exact: true }).click();
      const summaryTable = tab.getByRole('table', { name: /^Domains over the period/ });
      await summaryTable.getByRole('button', { name: 'mail.example.com' }).waitFor();
      const now = Math.floor(Date.now() / 1000);
      const summary = (await call(`${configured.us.url}/v1/reputationanalytics/gpt/summary/domains?offset=0&limit=100&timeRangeStart=${now - 30 * 86_400}&timeRangeEnd=${now}`)).json as { summary: Array<Record<string, number | null | string>> };
      const pct = (v: number | null | string | undefined) => (v === null || v === undefined ? 'no data' : `${(Number(v) * 100).toFixed(2)}%`);
      const fields = ['user_reported_spam_ratio', 'spf_success_ratio', 'dkim_success_ratio', 'dmarc_success_ratio', 'inbound_encryption_ratio'];
      expect(await rowsOf(summaryTable)).toEqual(summary.summary.map((d) => [String(d['name']), ...fields.map((f) => pct(d[f]))]));

      // Per day, each figure as Google gave it; a day without one says so, never zero.
      await summaryTable.getByRole('button', { name: 'mail.example.com' }).click();
      const days = (await call(`${configured.us.url}/v1/reputationanalytics/gpt/domains/mail.example.com?offset=0&limit=100&timeRangeStart=${now - 30 * 86_400}&timeRangeEnd=${now}`)).json as { data: Array<Record<string, number | null | string>> };
      const authTable = tab.getByRole('table', { name: 'Authentication and TLS per day, mail.example.com (percent)' });
      await authTable.waitFor();
      const num = (v: number | null | string | undefined) => (v === null || v === undefined ? 'no data' : String(Number((Number(v) * 100).toFixed(2))));
      const byDate = [...days.data].sort((a, b) => String(a['date']).localeCompare(String(b['date'])));
      expect((await rowsOf(authTable)).map((r) => r.slice(1))).toEqual(byDate.map((d) => fields.slice(1).map((f) => num(d[f]))));
      expect((await rowsOf(authTable))[0]!.slice(1)).toEqual(['97', 'no data', 'no data', 'no data']);
      await tab.getByRole('heading', { name: 'Compliance status' }).waitFor();
      expect((await rowsOf(tab.getByRole('table', { name: 'Sender requirements, mail.example.com' })))[0]).toEqual(['SPF', 'COMPLIANT', '']);
      await expectAccessible('postmaster with data', tab);
      await snap('postmaster-configured', tab);

      // Enough mail for a score here: the account's and the domain's parts, and today's, as the API gives them.
      for (const to of ['a@example.net', 'b@example.net', 'c@example.net']) await sdk(configured.us.url).messages.create('mail.example.com', { from: 'news@mail.example.com', to, subject: 'Scored', text: 'Hello' });
      type Score = { score: number; rates: Record<string, number>; counters: { delivered: number } };
      const total = await eventually(async () => {
        const res = await call(`${configured.us.url}/v1/maverick-score/total`);
        return res.status === 200 && (res.json as unknown as Score).counters.delivered >= 3 && (res.json as unknown as Score);
      });
      await tab.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Health score', exact: true }).click();
      const parts = tab.getByRole('definition');
      await tab.getByRole('heading', { name: 'Account' }).waitFor();
      const rates = ['bounce_rate', 'complaint_rate', 'trap_rate', 'full_mailbox_rate', 'bad_failure_rate'];
      const impact = (n: number | undefined) => (n ? `−${n}` : '0');
      expect(await parts.allTextContents()).toEqual(expect.arrayContaining([String(total.score), ...rates.map((r) => impact(total.rates[r])), String(total.counters.delivered)]));
      const grouped = (await call(`${configured.us.url}/v1/maverick-score/grouped?group=domain&limit=100&sort=score:asc`)).json as { items: Array<Score & { group_key: string }> };
      expect(await rowsOf(tab.getByRole('table', { name: /^Domains with enough mail to score/ }))).toEqual(grouped.items.map((g) => [g.group_key, String(g.score), ...rates.map((r) => impact(g.rates[r])), String(g.counters.delivered)]));
      const today = (await call(`${configured.us.url}/v1/maverick-score/grouped?group=timestamp&limit=100&sort=timestamp:asc`)).json as { items: Array<Score & { group_key: string }> };
      const dayRows = await rowsOf(tab.getByRole('table', { name: /^Score per day/ }));
      const last = today.items.at(-1)!;
      expect(dayRows.at(-1)!.slice(1)).toEqual([String(last.score), ...rates.map((r) => String(last.rates[r]))]);
      // One domain's days, as term=domain:<name> gives them.
      await tab.getByLabel('Score of').selectOption('mail.example.com');
      const domainTable = tab.getByRole('table', { name: /^Score per day of mail\.example\.com/ });
      await domainTable.waitFor();
      const domainDays = (await call(`${configured.us.url}/v1/maverick-score/grouped?group=timestamp&limit=100&sort=timestamp:asc&term=domain:mail.example.com`)).json as { items: Array<Score & { group_key: string }> };
      expect(domainDays.items.length).toBeGreaterThan(0);
      expect((await rowsOf(domainTable)).map((r) => r.slice(1))).toEqual(domainDays.items.map((d) => [String(d.score), ...rates.map((r) => String(d.rates[r]))]));
      await expectAccessible('health score with a score', tab);
      await snap('health-scored', tab);
    } finally {
      await context.close();
      await configured.close();
      await standIn.close();
    }
  });
});
