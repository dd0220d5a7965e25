/**
 * The web console's weight: the JavaScript and CSS a browser fetches to show its first page (the
 * entry chunk, what it imports statically, its CSS), gzipped as a server would send them, beside
 * the 200 KB budget (issue 28); and, for each page, what opening it adds (its lazy chunk and the
 * chunks only it needs). Read from Vite's manifest of the build `npm start` serves.
 *
 * And the Logs page's speed with 100,000 events in the account (issue 28), measured as
 * bench/console-pages.ts measures every page: in Chromium, from a click on "Logs" to the first
 * frame painted with the first page of events, beside the slowest API call the page made to get
 * there, in the same open. Target: the page within 1.5x of the call.
 *
 *   npx tsx bench/console.ts     (or as part of `npm run bench`)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { newEvent, recordEvents, type EventData } from '../functions/events/event-store';
import { withEnv } from '../functions/platform/env';
import { buildConsoleIfStale, CONSOLE_DIST } from '../lib/console-build';
import { launchBrowser, newContext } from '../test/support/browser';
import { apiCalls, openPage, PAGES } from './console-pages';
import { BENCH_KEY, withLocalMode } from './lib/local';
import { fixed, kb, median, note, print, ratio, table, type TargetCheck } from './lib/report';

const BUDGET_BYTES = 200 * 1024;

interface Chunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export interface ConsoleWeightResult {
  firstLoadGzipBytes: number;
  firstLoadFiles: string[];
  pages: Array<{ page: string; addedGzipBytes: number }>;
  checks: TargetCheck[];
}

export function consoleWeight(): ConsoleWeightResult {
  buildConsoleIfStale();
  const manifest = JSON.parse(readFileSync(join(CONSOLE_DIST, '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;
  const gzipped = new Map<string, number>();
  const size = (file: string) => {
    if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(join(CONSOLE_DIST, file))).length);
    return gzipped.get(file)!;
  };
  /** A chunk's files with everything it imports statically. */
  const closure = (key: string, into = new Set<string>()): Set<string> => {
    const chunk = manifest[key]!;
    if (into.has(chunk.file)) return into;
    into.add(chunk.file);
    for (const css of chunk.css ?? []) into.add(css);
    for (const imported of chunk.imports ?? []) closure(imported, into);
    return into;
  };
  const [entryKey, entry] = Object.entries(manifest).find(([, chunk]) => chunk.isEntry)!;
  const first = closure(entryKey);
  const firstLoadGzipBytes = [...first].reduce((sum, file) => sum + size(file), 0);
  const pages = (entry.dynamicImports ?? []).map((key) => {
    const added = [...closure(key)].filter((file) => !first.has(file));
    return { page: key.replace(/^src\/pages\//, '').replace(/\.tsx$/, ''), addedGzipBytes: added.reduce((sum, file) => sum + size(file), 0) };
  });
  return {
    firstLoadGzipBytes,
    firstLoadFiles: [...first],
    pages,
    checks: [{ benchmark: 'console', subject: 'first load JS+CSS (gzip)', figure: kb(firstLoadGzipBytes), target: `< ${kb(BUDGET_BYTES)}`, pass: firstLoadGzipBytes < BUDGET_BYTES }],
  };
}

export function printConsoleWeight(result: ConsoleWeightResult): void {
  print('Web console weight (gzip, from the build npm start serves)');
  print(table([
    ['what', 'gzip', 'budget'],
    ['first load (entry JS + CSS)', kb(result.firstLoadGzipBytes), kb(BUDGET_BYTES)],
    ...result.pages.map((p) => [`+ opening ${p.page}`, kb(p.addedGzipBytes), '']),
  ]));
  print();
}

const LOG_EVENTS = 100_000;
const LOG_ROUNDS = 15;
const MAX_LOGS_RATIO = 1.5;
/** The Logs page as console-pages.ts defines its paint, shown here by one of the seeded events. */
const LOGS_PAGE = { ...PAGES.find((p) => p.link === 'Logs')!, text: 'Issue ' };

export interface ConsoleLogsResult {
  events: number;
  seedSeconds: number;
  /** The slowest API call of each open, done before its paint. */
  apiMs: number[];
  pageMs: number[];
  /** A fresh load of the Logs page's URL (the console's files from the browser's cache), reported only. */
  reloadMs: number[];
  checks: TargetCheck[];
}

/**
 * 100,000 events over the last 23 hours (the Logs page's default window is the last day), written
 * with the platform's own event writer straight to the table: the stream consumers (counters,
 * webhooks) would otherwise spend the run on them, and the logs API reads the table alone.
 */
async function seedEvents(env: Record<string, string | undefined>, accountId: string, domain: string): Promise<void> {
  const now = Date.now();
  const span = 23 * 3_600_000;
  const names = ['accepted', 'delivered', 'delivered', 'opened', 'clicked', 'failed'] as const;
  const CHUNK = 1000;
  await withEnv(env, async () => {
    for (let start = 0; start < LOG_EVENTS; start += CHUNK) {
      const events: EventData[] = [];
      for (let i = start; i < Math.min(LOG_EVENTS, start + CHUNK); i++) {
        const at = now - span + Math.floor((i / LOG_EVENTS) * span);
        const name = names[i % names.length]!;
        events.push(
          newEvent(name, {
            recipient: `reader${i % 5000}@example.net`,
            'recipient-domain': 'example.net',
            tags: i % 3 ? ['newsletter'] : [],
            envelope: { sender: `news@${domain}`, targets: `reader${i % 5000}@example.net`, transport: 'smtp' },
            message: { headers: { 'message-id': `${Math.floor(i / 3)}.bench@${domain}`, from: `news@${domain}`, to: `reader${i % 5000}@example.net`, subject: `Issue ${Math.floor(i / 3)}` }, size: 4200 },
            ...(name === 'failed' ? { severity: 'permanent', reason: 'bounce', 'delivery-status': { code: 550, message: 'mailbox unavailable' } } : {}),
          }, at),
        );
      }
      await recordEvents(accountId, domain, events);
    }
  });
}

export async function consoleLogs(): Promise<ConsoleLogsResult> {
  buildConsoleIfStale();
  return withLocalMode({ bench: 'console logs' }, async ({ us, principal, sandbox }) => {
    const seeded = Date.now();
    note(`console logs: writing ${LOG_EVENTS} events`);
    await seedEvents({ ...us.env, DYNAMODB_ENDPOINT: us.tableEndpoint }, principal.accountId, sandbox);
    const seedSeconds = (Date.now() - seeded) / 1000;
    note(`console logs: ${LOG_EVENTS} events written in ${fixed(seedSeconds)} s; timing the page in Chromium`);
    const browser = await launchBrowser();
    try {
      const page = await (await newContext(browser)).newPage();
      await page.goto(`${us.url}/`);
      await page.getByLabel('API key').fill(BENCH_KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Console' });

      /** From a click on "Logs" (from the Domains page) to the first frame with events, and the slowest call before it. */
      const pageOpen = async () => {
        await nav.getByRole('link', { name: 'Domains', exact: true }).click();
        await page.getByRole('link', { name: sandbox }).waitFor();
        await page.waitForLoadState('networkidle');
        const opened = await openPage(page, LOGS_PAGE);
        const before = (await apiCalls(page, opened.t0)).filter((c) => c.end <= opened.frame);
        return { pageMs: opened.pageMs, apiMs: Math.max(0, ...before.map((c) => c.ms)) };
      };

      /** A fresh load of the Logs page's address, signed in, to the first frame with events. */
      const reload = async () => {
        await page.goto(`${us.url}/#/domains`);
        await page.getByRole('link', { name: sandbox }).waitFor();
        const t0 = Date.now();
        await page.goto(`${us.url}/#/logs`);
        await page.locator('main table tbody tr').first().waitFor();
        return Date.now() - t0;
      };

      // One first: the Logs chunk and the API's caches warm, as they are for a user's second look.
      await pageOpen();
      const apiMs: number[] = [];
      const pageMs: number[] = [];
      const reloadMs: number[] = [];
      for (let round = 0; round < LOG_ROUNDS; round++) {
        const opened = await pageOpen();
        pageMs.push(opened.pageMs);
        apiMs.push(opened.apiMs);
        if (round < 3) reloadMs.push(await reload());
      }
      const pageToApi = median(pageMs) / median(apiMs);
      return {
        events: LOG_EVENTS,
        seedSeconds,
        apiMs,
        pageMs,
        reloadMs,
        checks: [
          {
            benchmark: 'console',
            subject: `Logs page first page, ${LOG_EVENTS.toLocaleString('en-US')} events (page / API call)`,
            figure: `${ratio(pageToApi)} (${fixed(median(pageMs))} / ${fixed(median(apiMs))} ms)`,
            target: `<= ${MAX_LOGS_RATIO}x`,
            pass: pageToApi <= MAX_LOGS_RATIO,
          },
        ],
      };
    } finally {
      await browser.close();
    }
  });
}

export function printConsoleLogs(result: ConsoleLogsResult): void {
  print(`Web console: the Logs page with ${result.events.toLocaleString('en-US')} events (seeded in ${fixed(result.seedSeconds)} s), Chromium, median of ${result.pageMs.length} rounds`);
  print(table([
    ['what', 'median ms', 'min', 'max'],
    ['slowest API call of the same open', fixed(median(result.apiMs)), fixed(Math.min(...result.apiMs)), fixed(Math.max(...result.apiMs))],
    ['Logs page: click to first frame with events', fixed(median(result.pageMs)), fixed(Math.min(...result.pageMs)), fixed(Math.max(...result.pageMs))],
    ['Logs page: fresh load of its URL (reported)', fixed(median(result.reloadMs)), fixed(Math.min(...result.reloadMs)), fixed(Math.max(...result.reloadMs))],
    ['page / API', ratio(median(result.pageMs) / median(result.apiMs)), '', `target <= ${MAX_LOGS_RATIO}x`],
  ]));
  print();
}

if (require.main === module) {
  printConsoleWeight(consoleWeight());
  void consoleLogs().then(printConsoleLogs, (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
