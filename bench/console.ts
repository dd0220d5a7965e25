/**
 * The web console's weight: the JavaScript and CSS a browser fetches to show its first page (the
 * entry chunk, what it imports statically, its CSS), gzipped as a server would send them, beside
 * the 200 KB budget (issue 28); and, for each page, what opening it adds (its lazy chunk and the
 * chunks only it needs). Read from Vite's manifest of the build `npm start` serves.
 *
 * And the Logs page's speed with 100,000 events in the account (issue 28): in Chromium, from a
 * click on "Logs" to the first frame painted with the first page of events, beside the time the
 * same `POST /v1/analytics/logs` call takes alone from the same page, in alternating rounds of the
 * same run. Target: the page within 1.5x of the call.
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

export interface ConsoleLogsResult {
  events: number;
  seedSeconds: number;
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

      /** The call the Logs page makes for its first page, alone, from the page, with its web key. */
      const apiCall = () =>
        page.evaluate(async () => {
          const stored = JSON.parse(sessionStorage.getItem('mailplane.console') ?? '{}') as { sessions: Record<string, { secret: string }>; region: string };
          const secret = stored.sessions[stored.region]!.secret;
          // As the page words it (console/src/pages/logs.tsx): RFC 2822 dates, the last day, newest first.
          // No helper functions in here: tsx would name them with a helper the page does not have.
          const end = new Date();
          const start = new Date(end.getTime() - 86_400_000);
          const body = { start: start.toUTCString().replace('GMT', '+0000'), end: end.toUTCString().replace('GMT', '+0000'), pagination: { sort: 'timestamp:desc', limit: 25 } };
          const t0 = performance.now();
          const res = await fetch('/v1/analytics/logs', { method: 'POST', headers: { authorization: `Basic ${btoa(`api:${secret}`)}`, accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify(body), cache: 'no-store' });
          const reply = (await res.json()) as { items: unknown[] };
          const ms = performance.now() - t0;
          if (!res.ok || reply.items.length !== 25) throw new Error(`the logs call answered ${res.status} with ${reply.items?.length} items`);
          return ms;
        });

      /** From a click on "Logs" (from the Domains page) to the first frame painted with events in the table. */
      const pageOpen = async () => {
        await nav.getByRole('link', { name: 'Domains', exact: true }).click();
        await page.getByRole('link', { name: sandbox }).waitFor();
        await page.waitForLoadState('networkidle');
        return page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              const t0 = performance.now();
              const observer = new MutationObserver(() => {
                if (document.querySelector('h1')?.textContent !== 'Logs' || !document.querySelector('main table tbody tr')) return;
                observer.disconnect();
                // Once that frame is laid out, as bench/console-pages.ts measures.
                requestAnimationFrame(() => {
                  const laidOut = new ResizeObserver(() => {
                    laidOut.disconnect();
                    resolve(performance.now() - t0);
                  });
                  laidOut.observe(document.body);
                });
              });
              observer.observe(document.body, { childList: true, subtree: true });
              (document.querySelector('nav a[href="#/logs"]') as HTMLElement).click();
            }),
        );
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

      // One of each first: the Logs chunk and the API's caches warm, as they are for a user's second look.
      await apiCall();
      await pageOpen();
      const apiMs: number[] = [];
      const pageMs: number[] = [];
      const reloadMs: number[] = [];
      for (let round = 0; round < LOG_ROUNDS; round++) {
        if (round % 2) {
          pageMs.push(await pageOpen());
          apiMs.push(await apiCall());
        } else {
          apiMs.push(await apiCall());
          pageMs.push(await pageOpen());
        }
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
    ['POST /v1/analytics/logs alone (from the page)', fixed(median(result.apiMs)), fixed(Math.min(...result.apiMs)), fixed(Math.max(...result.apiMs))],
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
