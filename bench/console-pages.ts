/**
 * Every page of the web console, in Chromium, against local mode with a little of everything seeded
 * (issue 30's quality bar): for each page in the nav, the time from a click on its link to the first
 * frame painted with its data (its "first meaningful paint", defined per page in PAGES below), beside
 * the slowest API call the page made to get there, in the same open of the same run. Target: the
 * page within 1.5x of its slowest call. Rounds alternate the order the pages are opened in; medians.
 *
 * Chromium runs with its frame rate unthrottled (no vsync), so a frame follows the page's work at
 * once: at 60 Hz the frame would wait 0 to 16.7 ms for the display, at random from round to round,
 * which is the screen's refresh and not the page's time, and with local calls of 5-30 ms it alone
 * decides the ratio. PAGEBENCH_DISPLAY=1 measures with the display's frames instead.
 *
 * API calls come from the Resource Timing API (startTime to responseEnd, queueing in the browser
 * included): the slowest is the slowest of those the page started after the click and had back
 * before the paint. Calls done after the paint (a panel's data the paint did not wait for, polling)
 * are counted but play no part in the ratio.
 *
 * And a check per page that its lazy chunk (from Vite's manifest) is fetched only once it is opened:
 * nothing of a page's own is requested before its link is clicked (the Overview is the page shown on
 * signing in: its chunk only after the sign-in).
 *
 *   npx tsx bench/console-pages.ts     (or as part of `npm run bench`)
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page as BrowserPage } from 'playwright-core';
import { buildConsoleIfStale, CONSOLE_DIST } from '../lib/console-build';
import { launchBrowser, newContext } from '../test/support/browser';
import { call } from '../test/support/platform';
import { BENCH_KEY, withLocalMode } from './lib/local';
import { fixed, median, note, print, ratio, table, type TargetCheck } from './lib/report';

const ROUNDS = 5;
/** Chromium's switches for frames as soon as there is something to draw. */
const UNTHROTTLED_FRAMES = ['--disable-frame-rate-limit', '--disable-gpu-vsync'];
const MAX_RATIO = 1.5;
/** How long after the paint to wait for the calls it started to finish, and for the page to go quiet. */
const QUIET_MS = 150;
const QUIET_CAP_MS = 5_000;

/**
 * Each nav page: the module of its lazy chunk, and what on it means its data is shown — the first
 * element matching `css` (within main, under the page's h1 `title`) whose text includes `text`.
 * `what` says it in accessible terms for the report.
 */
export interface PageSpec {
  link: string;
  title: string;
  module: string;
  what: string;
  css: string;
  text?: string;
}

const DOMAIN_A = 'shop.example.com';
const DOMAIN_B = 'news.example.com';
const DMARC_DOMAIN = 'brand.example.com';
const MONITORED_IP = '203.0.113.77';

export const PAGES: PageSpec[] = [
  { link: 'Overview', title: 'Overview', module: 'overview', what: 'table "Messages per day" with its days', css: 'main table tbody tr', text: '/2026' },
  { link: 'Domains', title: 'Domains', module: 'domains', what: `link "${DOMAIN_A}" in the domains table`, css: 'main table a', text: DOMAIN_A },
  { link: 'Logs', title: 'Logs', module: 'logs', what: 'table "Events of the last 24 hours" with a seeded message', css: 'main table tbody tr', text: 'Bench issue' },
  { link: 'Suppressions', title: 'Suppressions', module: 'suppressions', what: 'bounces table with gone@example.net', css: 'main table tbody tr', text: 'gone@example.net' },
  { link: 'Templates', title: 'Templates', module: 'templates', what: 'templates table with "welcome"', css: 'main table tbody tr', text: 'welcome' },
  { link: 'Routes', title: 'Routes', module: 'routes', what: 'routes table with the seeded route', css: 'main table tbody tr', text: 'bench route' },
  { link: 'Mailing lists', title: 'Mailing lists', module: 'lists', what: 'lists table with the seeded list', css: 'main table tbody tr', text: 'Bench readers' },
  { link: 'API keys', title: 'API keys', module: 'keys', what: 'keys table with the bootstrap key', css: 'main table tbody tr', text: 'bootstrap admin key' },
  { link: 'Reporting', title: 'Reporting', module: 'reporting', what: 'table "The figures the API answered" with a row', css: 'main table tbody tr', text: '/2026' },
  { link: 'Inspect', title: 'Inspect', module: 'inspect', what: `template domain picker listing ${DOMAIN_B}`, css: 'main select option', text: DOMAIN_B },
  { link: 'Previews', title: 'Previews', module: 'previews', what: 'tests table with the seeded test', css: 'main table tbody tr', text: 'Bench preview' },
  { link: 'DMARC', title: 'DMARC', module: 'dmarc', what: `domains table with ${DMARC_DOMAIN}`, css: 'main table tbody tr', text: DMARC_DOMAIN },
  { link: 'Blocklists', title: 'Blocklists', module: 'blocklists', what: `IP table with ${MONITORED_IP}`, css: 'main table tbody tr', text: MONITORED_IP },
  { link: 'Health score', title: 'Health score', module: 'health', what: 'the account score (here: "not enough data")', css: 'main p', text: 'not enough data' },
  { link: 'Inbox placement', title: 'Inbox placement', module: 'placement', what: 'seed lists table with the seeded list', css: 'main table tbody tr', text: 'Bench seeds' },
  { link: 'Spam traps', title: 'Spam traps', module: 'spamtraps', what: 'table "Suspected spam-trap hits per day" with rows', css: 'main table tbody tr' },
  { link: 'Postmaster', title: 'Postmaster', module: 'postmaster', what: 'its state ("not configured" here)', css: 'main p', text: 'is not configured' },
  { link: 'Alerts', title: 'Alerts', module: 'alerts', what: 'table "Each event\'s alert on each channel"', css: 'main table tbody tr', text: 'IP listed' },
  { link: 'Outbox', title: 'Outbox', module: 'outbox', what: 'messages table with a row', css: 'main table tbody tr', text: 'Bench issue' },
  { link: 'Subaccounts', title: 'Subaccounts', module: 'subaccounts', what: 'subaccounts table with the seeded one', css: 'main table tbody tr', text: 'Bench agency' },
  { link: 'IPs', title: 'IPs', module: 'ips', what: 'table of dedicated IPs with 192.0.2.10', css: 'main table tbody tr', text: '192.0.2.10' },
  { link: 'Account settings', title: 'Account settings', module: 'account', what: 'allowlist with the seeded address', css: 'main table tbody tr', text: '198.51.100.0/24' },
];

export interface PageFigure {
  page: string;
  /** Click to the first frame with the page's data laid out, per measured round. */
  pageMs: number[];
  /** The slowest API call started after the click and done before the paint, per round (0 when none). */
  slowestMs: number[];
  /** From the click to the end of the last call done before the paint, per round: with the calls in parallel, about the slowest call. */
  dataMs: number[];
  /** From the click to the start of the first API call, per round: the page's own work before asking. */
  firstCallMs: number[];
  /** The slowest call's route in each round. */
  slowestRoute: string[];
  /** The last round's calls, ms from the click: where a chain shows (one call waiting for another). */
  lastCalls: Array<{ route: string; startMs: number; endMs: number }>;
  lastPaintMs: number;
  /** API calls done before the paint, and after it (before the page went quiet), in the last round. */
  callsBefore: number;
  callsAfter: number;
  /** The page's lazy chunk: requested before its link was clicked (must be false), and after. */
  chunkBefore: boolean;
  chunkAfter: boolean;
  chunkFile: string;
  chunkGzipBytes: number;
}

export interface ConsolePagesResult {
  rounds: number;
  /** Whether frames followed the display's refresh or came as soon as the page had something to draw. */
  frames: 'display' | 'unthrottled';
  seedSeconds: number;
  loadAverage: number[];
  pages: PageFigure[];
  checks: TargetCheck[];
}

const form = (fields: Record<string, string>) => ({ method: 'POST', key: BENCH_KEY, contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() });
const json = (body: unknown, method = 'POST') => ({ method, key: BENCH_KEY, contentType: 'application/json', body: JSON.stringify(body) });

function dmarcReport(): string {
  const day = Math.floor(Date.now() / 86_400_000) * 86_400 - 86_400;
  const rows = [
    { ip: '192.0.2.1', count: 90, dkim: 'pass', spf: 'pass' },
    { ip: '192.0.2.2', count: 10, dkim: 'fail', spf: 'fail' },
  ];
  const records = rows
    .map(
      (r) =>
        `<record><row><source_ip>${r.ip}</source_ip><count>${r.count}</count><policy_evaluated><disposition>none</disposition><dkim>${r.dkim}</dkim><spf>${r.spf}</spf></policy_evaluated></row><identifiers><header_from>${DMARC_DOMAIN}</header_from></identifiers><auth_results><dkim><domain>${DMARC_DOMAIN}</domain><selector>s1</selector><result>${r.dkim}</result></dkim><spf><domain>${DMARC_DOMAIN}</domain><result>${r.spf}</result></spf></auth_results></record>`,
    )
    .join('');
  return `<?xml version="1.0"?><feedback><report_metadata><org_name>google.com</org_name><email>dmarc@google.com</email><report_id>bench-1</report_id><date_range><begin>${day}</begin><end>${day + 86_399}</end></date_range></report_metadata><policy_published><domain>${DMARC_DOMAIN}</domain><p>quarantine</p></policy_published>${records}</feedback>`;
}

/** A little of everything, through the API as a user's scripts would: each page has something to show. */
async function seed(url: string, sandbox: string): Promise<void> {
  const ok = async (what: string, reply: Promise<{ status: number; text: string }>) => {
    const r = await reply;
    if (r.status >= 300) throw new Error(`seeding ${what}: ${r.status} ${r.text.slice(0, 300)}`);
  };
  // The domains first: the pages with a domain picker show the first domain by name, DOMAIN_B.
  await Promise.all([ok('domain', call(`${url}/v4/domains`, form({ name: DOMAIN_A }))), ok('domain', call(`${url}/v4/domains`, form({ name: DOMAIN_B })))]);
  await Promise.all([
    ok('template', call(`${url}/v3/${DOMAIN_B}/templates`, form({ name: 'welcome', description: 'Welcome email', template: '<p>Hello {{name}}</p>', tag: 'v1' }))),
    ok('route', call(`${url}/v3/routes`, form({ priority: '1', description: 'bench route', expression: `match_recipient(".*@${sandbox}")`, action: 'stop()' }))),
    ok('bounce', call(`${url}/v3/${DOMAIN_B}/bounces`, form({ address: 'gone@example.net', code: '550', error: 'mailbox unavailable' }))),
    (async () => {
      // A seed mailbox first (never polled here: no test is run), then a seed list over it.
      await ok('seed mailbox', call(`${url}/v1/inbox/seed-mailboxes`, json({ email: 'ann@gmail.seed.test', provider: 'gmail.com', imap_host: '127.0.0.1', imap_port: 993, imap_tls: true, password: 'unused', first_name: 'Ann' })));
      await ok('seed list', call(`${url}/v4/inbox/seedlists`, form({ name: 'Bench seeds' })));
    })(),
    ok('subaccount', call(`${url}/v5/accounts/subaccounts`, form({ name: 'Bench agency' }))),
    ok('monitored IP', call(`${url}/v1/inboxready/ip_addresses`, json({ ip: MONITORED_IP, description: 'outbound' }))),
    ok('preview test', call(`${url}/v2/preview/tests`, json({ subject: 'Bench preview', html: '<p>Hello</p>', clients: ['iphone15_17'] }))),
    (async () => {
      await ok('list', call(`${url}/v3/lists`, form({ address: `readers@${sandbox}`, name: 'Bench readers' })));
      await ok('member', call(`${url}/v3/lists/readers@${sandbox}/members`, form({ address: 'ann@example.net', name: 'Ann' })));
    })(),
    (async () => {
      const body = new FormData();
      body.append('report', new Blob([gzipSync(dmarcReport())], { type: 'application/gzip' }), 'google.xml.gz');
      const res = await fetch(`${url}/v1/dmarc/reports`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`api:${BENCH_KEY}`).toString('base64')}` }, body });
      if (!res.ok) throw new Error(`seeding DMARC report: ${res.status} ${await res.text()}`);
    })(),
    ...Array.from({ length: 6 }, (_, i) =>
      ok('message', call(`${url}/v3/${sandbox}/messages`, form({ from: `news@${sandbox}`, to: `reader${i}@example.net`, subject: `Bench issue ${i}`, text: 'Hello', 'o:tag': 'newsletter' }))),
    ),
  ]);
  // Last, and loopback first: with an allowlist, only its addresses reach the API.
  await ok('allowlist', call(`${url}/v2/ip_whitelist`, form({ address: '127.0.0.1', description: 'this machine' })));
  await ok('allowlist', call(`${url}/v2/ip_whitelist`, form({ address: '198.51.100.0/24', description: 'office' })));
}

interface Opened {
  pageMs: number;
  t0: number;
  /** When the frame with the data began: calls done after it were not waited for. */
  frame: number;
  paint: number;
}

/**
 * Clicks the nav link of `spec` and resolves once the first frame with its data element is laid
 * out: a ResizeObserver's first report comes in that frame's rendering, after its style and layout
 * (the frame's animation callback comes before them; a task posted from it comes after whatever
 * the page put off until after the frame, such as its effects).
 */
export function openPage(page: BrowserPage, spec: PageSpec): Promise<Opened> {
  return page.evaluate(
    ({ link, title, css, text }) =>
      new Promise<Opened>((resolve, reject) => {
        const anchor = [...document.querySelectorAll<HTMLAnchorElement>('nav[aria-label="Console"] a')].find((a) => a.textContent === link);
        if (!anchor) return reject(new Error(`no nav link ${link}`));
        // No named helper functions in here: tsx would wrap them in a helper the page does not have.
        const timer = setTimeout(() => {
          observer.disconnect();
          reject(new Error(`${link}: no ${css}${text ? ` with "${text}"` : ''} after 30 s; main says: ${(document.querySelector('main')?.textContent ?? '').slice(0, 400)}`));
        }, 30_000);
        const observer = new MutationObserver(() => {
          if (document.querySelector('main h1')?.textContent !== title || ![...document.querySelectorAll(css)].some((el) => !text || (el.textContent ?? '').includes(text))) return;
          observer.disconnect();
          clearTimeout(timer);
          requestAnimationFrame(() => {
            const frame = performance.now();
            const laidOut = new ResizeObserver(() => {
              laidOut.disconnect();
              const paint = performance.now();
              resolve({ pageMs: paint - t0, t0, frame, paint });
            });
            laidOut.observe(document.body);
          });
        });
        observer.observe(document.body, { childList: true, subtree: true, characterData: true });
        performance.clearResourceTimings();
        const t0 = performance.now();
        anchor.click();
      }),
    { link: spec.link, title: spec.title, css: spec.css, text: spec.text ?? '' },
  );
}

/** The API calls the page's Resource Timing lists from `t0` on: route, start, duration. */
export function apiCalls(page: BrowserPage, t0: number): Promise<Array<{ route: string; start: number; end: number; ms: number }>> {
  return page.evaluate(
    (from) =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .filter((e) => e.startTime >= from && /^\/(v\d|_local)\//.test(new URL(e.name).pathname))
        .map((e) => ({ route: `${new URL(e.name).pathname}`, start: e.startTime, end: e.responseEnd, ms: e.responseEnd - e.startTime })),
    t0,
  );
}

/** A route with its ids and names shown as placeholders, so rounds group. */
const routeOf = (path: string, sandbox: string) => path.replace(sandbox, '{domain}');

export async function consolePages(): Promise<ConsolePagesResult> {
  buildConsoleIfStale();
  const manifest = JSON.parse(readFileSync(join(CONSOLE_DIST, '.vite', 'manifest.json'), 'utf8')) as Record<string, { file: string }>;
  return withLocalMode({ bench: 'console pages' }, async ({ us, sandbox }) => {
    const seeded = Date.now();
    await seed(us.url, sandbox);
    const seedSeconds = (Date.now() - seeded) / 1000;
    note(`console pages: seeded in ${fixed(seedSeconds)} s; timing every page in Chromium`);
    const frames = process.env['PAGEBENCH_DISPLAY'] ? 'display' : 'unthrottled';
    const browser = await launchBrowser(frames === 'display' ? [] : UNTHROTTLED_FRAMES);
    try {
      const page = await (await newContext(browser)).newPage();
      // Every request the browser makes, with when (this process's clock), and API calls in flight.
      const requested: Array<{ path: string; at: number }> = [];
      let inFlight = 0;
      let lastActivity = Date.now();
      const isApi = (url: string) => /^\/(v\d|_local)\//.test(new URL(url).pathname);
      page.on('request', (r) => {
        requested.push({ path: new URL(r.url()).pathname, at: Date.now() });
        if (!isApi(r.url())) return;
        inFlight++;
        lastActivity = Date.now();
      });
      const done = (r: { url(): string }) => {
        if (!isApi(r.url())) return;
        inFlight--;
        lastActivity = Date.now();
      };
      page.on('requestfinished', done);
      page.on('requestfailed', done);
      const quiet = async () => {
        const start = Date.now();
        while (Date.now() - start < QUIET_CAP_MS && (inFlight > 0 || Date.now() - lastActivity < QUIET_MS)) await new Promise((r) => setTimeout(r, 25));
      };

      await page.goto(`${us.url}/`);
      await page.getByLabel('API key').fill(BENCH_KEY);
      const signInAt = Date.now();
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await quiet();

      const navLinks = await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
      const missing = navLinks.filter((name) => !PAGES.some((p) => p.link === name));
      if (missing.length) throw new Error(`nav pages with no entry in bench/console-pages.ts's PAGES: ${missing.join(', ')}`);
      const specs = PAGES.filter((p) => navLinks.includes(p.link));

      const chunkOf = (spec: PageSpec) => {
        const entry = manifest[`src/pages/${spec.module}.tsx`];
        if (!entry) throw new Error(`no chunk for src/pages/${spec.module}.tsx in the manifest`);
        return entry.file;
      };
      const figures = new Map<string, PageFigure>(
        specs.map((spec) => [
          spec.link,
          { page: spec.link, pageMs: [], slowestMs: [], dataMs: [], firstCallMs: [], slowestRoute: [], lastCalls: [], lastPaintMs: 0, callsBefore: 0, callsAfter: 0, chunkBefore: false, chunkAfter: false, chunkFile: chunkOf(spec), chunkGzipBytes: gzipSync(readFileSync(join(CONSOLE_DIST, chunkOf(spec)))).length },
        ]),
      );

      const visit = async (spec: PageSpec, measured: boolean) => {
        // Always from another page: a click on the page shown changes nothing.
        if ((await page.locator('main h1').first().textContent()) === spec.title) {
          const other = specs.find((s) => s !== spec)!;
          await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: other.link, exact: true }).click();
          await page.getByRole('heading', { level: 1, name: other.title }).waitFor();
        }
        await quiet();
        const clickedAt = Date.now();
        const opened = await openPage(page, spec);
        await quiet();
        const calls = await apiCalls(page, opened.t0);
        const figure = figures.get(spec.link)!;
        // The calls the paint could have waited for: those done before its frame began.
        const before = calls.filter((c) => c.end <= opened.frame);
        const slowest = before.reduce<{ route: string; ms: number } | undefined>((a, c) => (!a || c.ms > a.ms ? c : a), undefined);
        figure.callsBefore = before.length;
        figure.callsAfter = calls.length - before.length;
        figure.lastCalls = calls.map((c) => ({ route: routeOf(c.route, sandbox), startMs: c.start - opened.t0, endMs: c.end - opened.t0 }));
        figure.lastPaintMs = opened.pageMs;
        if (!measured) {
          // The first open of each page: was its chunk fetched before (the Overview: before signing in)?
          const chunkPath = `/${figure.chunkFile}`;
          const since = spec.link === 'Overview' ? signInAt : clickedAt;
          figure.chunkBefore = requested.some((r) => r.path === chunkPath && r.at < since);
          figure.chunkAfter = requested.some((r) => r.path === chunkPath && r.at >= since);
          return;
        }
        figure.pageMs.push(opened.pageMs);
        figure.slowestMs.push(slowest?.ms ?? 0);
        if (calls.length) figure.firstCallMs.push(Math.min(...calls.map((c) => c.start)) - opened.t0);
        figure.dataMs.push(before.length ? Math.max(...before.map((c) => c.end)) - opened.t0 : 0);
        figure.slowestRoute.push(slowest ? routeOf(slowest.route, sandbox) : '(none)');
      };

      // The first round opens each page once (its chunk, the API's caches warm) and checks the chunks.
      if (process.env['PAGEBENCH_DUMP']) {
        // What each page shows once quiet, to write PAGES' definitions against.
        for (const spec of specs) {
          await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: spec.link, exact: true }).click();
          await page.waitForTimeout(1500);
          await quiet();
          note(`${spec.link}: ${(await page.locator('main').innerText()).replace(/\s+/g, ' ').slice(0, 600)}`);
          note(`  tables: ${JSON.stringify(await page.locator('main table').evaluateAll((ts) => ts.map((t) => `${t.getAttribute('aria-label') ?? t.querySelector('caption')?.textContent ?? '?'} rows=${t.querySelectorAll('tbody tr').length}`)))}`);
        }
      }
      // The Overview (shown on signing in) last, so that no page is opened to leave it before its turn.
      for (const spec of [...specs.filter((s) => s.link !== 'Overview'), ...specs.filter((s) => s.link === 'Overview')]) await visit(spec, false);
      for (let round = 0; round < ROUNDS; round++) {
        note(`console pages: round ${round + 1} of ${ROUNDS}`);
        const order = round % 2 ? [...specs].reverse() : specs;
        for (const spec of order) await visit(spec, true);
      }

      const pages = [...figures.values()];
      const checks: TargetCheck[] = [];
      for (const f of pages) {
        const r = median(f.pageMs) / median(f.slowestMs);
        const noCall = median(f.slowestMs) === 0;
        checks.push({
          benchmark: 'console pages',
          subject: `${f.page}: first meaningful paint / slowest API call`,
          figure: noCall ? `${fixed(median(f.pageMs))} ms, no API call` : `${ratio(r)} (${fixed(median(f.pageMs))} / ${fixed(median(f.slowestMs))} ms)`,
          target: noCall ? 'reported' : `<= ${MAX_RATIO}x`,
          pass: noCall || r <= MAX_RATIO,
        });
      }
      for (const f of pages) {
        checks.push({
          benchmark: 'console pages',
          subject: `${f.page}: its chunk fetched only once opened`,
          figure: f.chunkBefore ? 'fetched before' : f.chunkAfter ? 'after the click' : 'never fetched',
          target: 'after the click',
          pass: !f.chunkBefore && f.chunkAfter,
        });
      }
      return { rounds: ROUNDS, frames, seedSeconds, loadAverage: loadavg(), pages, checks };
    } finally {
      await browser.close();
    }
  });
}

/** The route seen most often as the slowest over the rounds. */
function commonest(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

export function printConsolePages(result: ConsolePagesResult): void {
  print(
    `Web console: every page, click to first meaningful paint beside its slowest API call, Chromium (${result.frames === 'display' ? "the display's frames" : 'frames unthrottled'}), median of ${result.rounds} alternating rounds ` +
      `(seeded in ${fixed(result.seedSeconds)} s; load average ${result.loadAverage.map((l) => l.toFixed(1)).join(' ')})`,
  );
  print(
    table([
      ['page', 'paint ms', 'slowest call ms', 'slowest call (most rounds)', 'first call', 'calls', 'last call done', 'paint after it', 'page / call', 'target', 'chunk', 'chunk gzip'],
      ...result.pages.map((f) => {
        const r = median(f.pageMs) / median(f.slowestMs);
        return [
          f.page,
          fixed(median(f.pageMs)),
          fixed(median(f.slowestMs)),
          commonest(f.slowestRoute),
          fixed(median(f.firstCallMs)),
          `${f.callsBefore}+${f.callsAfter}`,
          fixed(median(f.dataMs)),
          fixed(median(f.pageMs) - median(f.dataMs)),
          median(f.slowestMs) ? ratio(r) : 'n/a',
          `<= ${MAX_RATIO}x`,
          f.chunkBefore ? 'FETCHED EARLY' : f.chunkAfter ? 'on open' : 'never',
          `${(f.chunkGzipBytes / 1024).toFixed(1)} KB`,
        ];
      }),
    ]),
  );
  const firstCall = median(result.pages.map((f) => median(f.firstCallMs)));
  const lag = median(result.pages.map((f) => median(f.pageMs) - median(f.dataMs)));
  print(
    `Every page pays about ${fixed(firstCall)} ms from the click to its first call and ${fixed(lag)} ms from its last call to the frame (medians over the pages): ` +
      `with calls under about ${fixed((firstCall + lag) / (MAX_RATIO - 1), 0)} ms, ${MAX_RATIO}x is out of reach whatever the page does.`,
  );
  if (process.env['PAGEBENCH_CALLS']) {
    for (const f of result.pages) print(`${f.page}: paint ${fixed(f.lastPaintMs)}; ${f.lastCalls.map((c) => `${c.route} ${fixed(c.startMs)}-${fixed(c.endMs)}`).join(', ')}`);
  }
  print('What counts as the first meaningful paint, per page:');
  print(table([['page', 'the element showing its data'], ...PAGES.map((p) => [p.link, p.what])]));
  print('(first call: click to the start of the first API call, ms; calls: API calls done before the paint + after it until the page went quiet; last call done: click to the end of the last call done before the paint, ms)');
  print();
}

if (require.main === module) {
  void consolePages().then(printConsolePages, (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
