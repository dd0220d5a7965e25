/**
 * Email previews: one client's render as the render task does it (functions/inspect/preview: the
 * client's transforms, then Chromium through playwright-core with every request routed through the
 * SSRF-safe client, a full-page PNG) beside a floor of the same Chromium, launched the same way in
 * the same process, rendering the untransformed HTML in the same viewport and taking the same
 * full-page PNG, its images fetched by Chromium itself. Target: p50 within 1.3x of the floor.
 *
 * Memory per render task (what sizes the Lambda): Chromium run as Lambda runs it (one process),
 * its resident set sampled while the renders run, beside this process's own.
 *
 *   npx tsx bench/preview.ts     (or as part of `npm run bench`)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { PREVIEW_CLIENTS } from '../functions/inspect/preview/clients';
import { withEnv } from '../functions/platform/env';
import { closeBrowser, launchOptions, renderEmail } from '../functions/inspect/preview/renderer';
import { transformForClient } from '../functions/inspect/preview/transforms/transform-for-client';
import { newsletterHtml } from './lib/newsletter';
import { fixed, kb, note, percentile, print, ratio, table, type TargetCheck } from './lib/report';

const RUNS = 9;
const CLIENTS = ['gmail_chr26_win', 'ol365_win', 'appmail14', 'iphone15_17'];

export interface PreviewBenchResult {
  htmlBytes: number;
  perClient: Array<{ client: string; oursP50: number; oursP90: number; floorP50: number; floorP90: number }>;
  oursP50: number;
  oursP90: number;
  floorP50: number;
  floorP90: number;
  ratio: number;
  chromiumPeakMb: number;
  nodeRssMb: number;
  checks: TargetCheck[];
}

/** Images for the newsletter: one small JPEG for every path, served at once from loopback. */
async function startImages(): Promise<Server> {
  const jpeg = await sharp({ create: { width: 180, height: 180, channels: 3, background: '#c8d7e8' } }).jpeg().toBuffer();
  const server = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(jpeg.length) }).end(jpeg));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * The largest resident set among processes running `executable` (Chromium's), in MB, from /proc:
 * run as one process (as in Lambda), each browser is one process, so this is one browser's.
 */
function chromiumRssMb(executable: string): number {
  let largest = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.startsWith(executable)) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      largest = Math.max(largest, Number(rss ?? 0) / 1024);
    } catch {
      // The process ended between listing and reading.
    }
  }
  return largest;
}

const floorContexts = new Map<string, Promise<BrowserContext>>();

/**
 * The floor: the same Chromium, a page in a kept context of the same viewport (a single-process
 * Chromium cannot open a context after closing one, so the render task keeps its contexts too),
 * the email as given, a full-page PNG.
 */
async function floorRender(browser: Browser, html: string, clientId: string): Promise<void> {
  const { viewport } = PREVIEW_CLIENTS.get(clientId)!;
  const kind = `${viewport.deviceScaleFactor}|${viewport.isMobile}`;
  if (!floorContexts.has(kind)) floorContexts.set(kind, browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, deviceScaleFactor: viewport.deviceScaleFactor, isMobile: viewport.isMobile, javaScriptEnabled: false }));
  const page = await (await floorContexts.get(kind)!).newPage();
  try {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.setContent(html, { waitUntil: 'load' });
    await page.screenshot({ type: 'png', fullPage: true });
  } finally {
    await page.close();
  }
}

async function oursRender(html: string, clientId: string): Promise<void> {
  const client = PREVIEW_CLIENTS.get(clientId)!;
  const transformed = transformForClient(html, client);
  await renderEmail({ html: transformed.html, viewport: client.viewport, dark: client.dark, blockImages: false, landscape: false });
}

/** The handlers' environment for the renders: loopback images allowed, as in local mode (no table is touched). */
const BENCH_ENV = { TABLE_NAME: 'bench', WEBHOOK_ALLOW_LOOPBACK_URLS: 'true' };

export async function previewBench(): Promise<PreviewBenchResult> {
  // The render task's Chromium runs as in Lambda, in one process (renderer.ts reads this switch).
  const lambdaName = process.env['AWS_LAMBDA_FUNCTION_NAME'];
  process.env['AWS_LAMBDA_FUNCTION_NAME'] = 'bench-preview-render';
  try {
    return await withEnv(BENCH_ENV, measure);
  } finally {
    if (lambdaName === undefined) delete process.env['AWS_LAMBDA_FUNCTION_NAME'];
    else process.env['AWS_LAMBDA_FUNCTION_NAME'] = lambdaName;
  }
}

async function measure(): Promise<PreviewBenchResult> {
  const images = await startImages();
  const html = newsletterHtml(`http://127.0.0.1:${(images.address() as AddressInfo).port}`);
  // The floor's browser is launched exactly as the render task's.
  const options = await launchOptions(undefined, true);
  const floorBrowser = await chromium.launch({ ...options, headless: true });
  note(`preview: ${CLIENTS.length} clients x ${RUNS} renders of a ${kb(html.length)} newsletter, ours and the floor alternately`);

  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, chromiumRssMb(options.executablePath))), 25);
  const perClient: PreviewBenchResult['perClient'] = [];
  const all = { ours: [] as number[], floor: [] as number[] };
  try {
    for (const clientId of CLIENTS) {
      await oursRender(html, clientId);
      await floorRender(floorBrowser, html, clientId);
      const samples = { ours: [] as number[], floor: [] as number[] };
      for (let i = 0; i < RUNS; i++) {
        const order = i % 2 ? (['floor', 'ours'] as const) : (['ours', 'floor'] as const);
        for (const side of order) {
          const started = performance.now();
          if (side === 'ours') await oursRender(html, clientId);
          else await floorRender(floorBrowser, html, clientId);
          samples[side].push((performance.now() - started) / 1000);
        }
      }
      all.ours.push(...samples.ours);
      all.floor.push(...samples.floor);
      perClient.push({ client: clientId, oursP50: percentile(samples.ours, 50), oursP90: percentile(samples.ours, 90), floorP50: percentile(samples.floor, 50), floorP90: percentile(samples.floor, 90) });
    }
  } finally {
    clearInterval(sampler);
    await floorBrowser.close();
    await closeBrowser();
    await new Promise((resolve) => images.close(resolve));
  }
  const oursP50 = percentile(all.ours, 50);
  const floorP50 = percentile(all.floor, 50);
  const r = oursP50 / floorP50;
  return {
    htmlBytes: html.length,
    perClient,
    oursP50,
    oursP90: percentile(all.ours, 90),
    floorP50,
    floorP90: percentile(all.floor, 90),
    ratio: r,
    chromiumPeakMb: peak,
    nodeRssMb: process.memoryUsage().rss / 1024 / 1024,
    checks: [
      { benchmark: 'preview', subject: 'one client render, p50 / bare Chromium render of the same HTML', figure: ratio(r), target: '<= 1.3x', pass: r <= 1.3 },
      { benchmark: 'preview', subject: 'peak Chromium resident memory per browser (single process, as in Lambda)', figure: `${fixed(peak, 0)} MB`, target: 'reported', pass: true },
    ],
  };
}

export function printPreviewBench(result: PreviewBenchResult): void {
  print(`== Email previews: a ${kb(result.htmlBytes)} newsletter rendered per client ==`);
  print('ours = the client\'s transforms (caniemail + quirks), then Chromium with scripts off and every request through the SSRF-safe client, full-page PNG; floor = the same Chromium rendering the untransformed HTML in the same viewport, full-page PNG.');
  print();
  print(
    table([
      ['client', 'ours p50 s', 'ours p90 s', 'floor p50 s', 'floor p90 s', 'ours / floor (p50)'],
      ...result.perClient.map((c) => [c.client, fixed(c.oursP50, 3), fixed(c.oursP90, 3), fixed(c.floorP50, 3), fixed(c.floorP90, 3), ratio(c.oursP50 / c.floorP50)]),
      ['all', fixed(result.oursP50, 3), fixed(result.oursP90, 3), fixed(result.floorP50, 3), fixed(result.floorP90, 3), ratio(result.ratio)],
    ]),
  );
  print(`memory: Chromium (one process, as in Lambda) peaked at ${fixed(result.chromiumPeakMb, 0)} MB per browser; this Node process ${fixed(result.nodeRssMb, 0)} MB resident. The render task is given ${2048} MB.`);
  print();
}

if (require.main === module) {
  previewBench()
    .then(printPreviewBench)
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
