/**
 * Inspection, each check beside a floor doing the same core work with the same libraries, in the
 * same run, on a realistic 100 KB newsletter (bench/lib/newsletter.ts):
 *
 * - code analysis (functions/inspect/analyze: detect, then the result with caniemail's support)
 *   beside parsing the same HTML once with htmlparser2 and all its CSS once with css-tree;
 *   target within 3x.
 * - accessibility (functions/inspect/accessibility: axe-core on jsdom with the email rules and the
 *   mapping to source positions) beside a bare axe-core run on jsdom with its defaults; target
 *   within 1.5x.
 * - link checking of 200 links on a loopback server spread over 10 addresses, links per second
 *   beside bare node:http GETs of the same URLs at the same concurrency, and the concurrency the
 *   server saw against the configured limits (12 at once, 2 per host).
 *
 *   npx tsx bench/inspect.ts     (or as part of `npm run bench`)
 */
import * as axe from 'axe-core';
import * as csstree from 'css-tree';
import { parseDocument, DomUtils } from 'htmlparser2';
import { JSDOM, VirtualConsole } from 'jsdom';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkAccessibility } from '../functions/inspect/accessibility/axe-runner';
import { buildFeatures, presentCodeResult } from '../functions/inspect/analyze/code-result';
import { detectFeatures } from '../functions/inspect/analyze/feature-detector';
import { checkLinks } from '../functions/inspect/links/link-checker';
import { mapLimit } from '../functions/platform/concurrency';
import { newsletterHtml } from './lib/newsletter';
import { fixed, kb, median, note, passFail, print, ratio, REPORTED, table, type TargetCheck } from './lib/report';

const RUNS = 31;
const A11Y_RUNS = 7;
const LINKS = 200;
const HOSTS = 10;
const CONCURRENCY = 12;
const PER_HOST = 2;
/** What each loopback answer waits: a fast real site, so that concurrency is what sets the pace. */
const SERVER_DELAY_MS = 20;

export interface InspectBenchResult {
  htmlBytes: number;
  analysis: { oursMs: number; floorMs: number; ratio: number; features: number };
  accessibility: { oursMs: number; floorMs: number; ratio: number };
  links: { oursPerSecond: number; floorPerSecond: number; ratio: number; maxActive: number; maxPerHost: number };
  checks: TargetCheck[];
}

/**
 * Medians of `runs` timings of two pieces of work, taken alternately after a few untimed runs of
 * each, so neither side runs warmer (JIT, caches, garbage left by the other) than the other.
 */
async function timeAlternately(runs: number, ours: () => unknown, floor: () => unknown): Promise<{ ours: number; floor: number }> {
  for (let i = 0; i < 3; i++) {
    await ours();
    await floor();
  }
  const samples = { ours: [] as number[], floor: [] as number[] };
  for (let i = 0; i < runs; i++) {
    for (const [side, work] of i % 2 ? ([['floor', floor], ['ours', ours]] as const) : ([['ours', ours], ['floor', floor]] as const)) {
      const started = performance.now();
      await work();
      samples[side].push(performance.now() - started);
    }
  }
  return { ours: median(samples.ours), floor: median(samples.floor) };
}

/** The floor of code analysis: the same parsers over the same input, once, nothing else. */
function parseOnce(html: string): number {
  const document = parseDocument(html, { withStartIndices: true, withEndIndices: true });
  let declarations = 0;
  for (const element of DomUtils.getElementsByTagName(() => true, document, true)) {
    const style = element.attribs['style'];
    if (style) csstree.walk(csstree.parse(style, { context: 'declarationList', positions: true }), () => declarations++);
    if (element.name === 'style') csstree.walk(csstree.parse(DomUtils.textContent(element), { positions: true }), () => declarations++);
  }
  return declarations;
}

/** The floor of accessibility: axe-core as its README runs it, on jsdom. */
async function bareAxe(html: string): Promise<void> {
  const dom = new JSDOM(html, { runScripts: 'outside-only', virtualConsole: new VirtualConsole() });
  dom.window.eval(axe.source);
  await (dom.window as unknown as { axe: typeof axe }).axe.run(dom.window.document);
  dom.window.close();
}

interface Site {
  server: Server;
  port: number;
  maxActive: number;
  maxPerHost: number;
  reset(): void;
}

async function startSite(): Promise<Site> {
  const perHost = new Map<string, number>();
  let active = 0;
  const site = {
    maxActive: 0,
    maxPerHost: 0,
    reset() {
      this.maxActive = 0;
      this.maxPerHost = 0;
    },
  } as Site;
  site.server = createServer((req, res) => {
    const host = req.socket.localAddress ?? '';
    active++;
    perHost.set(host, (perHost.get(host) ?? 0) + 1);
    site.maxActive = Math.max(site.maxActive, active);
    site.maxPerHost = Math.max(site.maxPerHost, perHost.get(host)!);
    setTimeout(() => {
      active--;
      perHost.set(host, perHost.get(host)! - 1);
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '2' }).end(req.method === 'HEAD' ? undefined : 'ok');
    }, SERVER_DELAY_MS);
  });
  // 0.0.0.0 answers on every 127.x address, so each alias is a host of its own.
  await new Promise<void>((resolve) => site.server.listen(0, '0.0.0.0', resolve));
  site.port = (site.server.address() as AddressInfo).port;
  return site;
}

function bareGet(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end();
  });
}

export async function inspectBench(): Promise<InspectBenchResult> {
  const html = newsletterHtml();
  note(`inspect: code analysis of a ${kb(html.length)} newsletter`);
  const features = detectFeatures(html).length;
  const analysis = await timeAlternately(RUNS, () => presentCodeResult({ id: 'bench', version: 1, status: 'Completed', features: buildFeatures(detectFeatures(html)) }, {}), () => parseOnce(html));
  const [analysisOurs, analysisFloor] = [analysis.ours, analysis.floor];

  note('inspect: accessibility');
  const a11y = await timeAlternately(A11Y_RUNS, () => checkAccessibility(html), () => bareAxe(html));
  const [a11yOurs, a11yFloor] = [a11y.ours, a11y.floor];

  note(`inspect: ${LINKS} links over ${HOSTS} loopback addresses`);
  const site = await startSite();
  const urls = Array.from({ length: LINKS }, (_, i) => `http://127.0.0.${(i % HOSTS) + 1}:${site.port}/page/${i}`);
  await checkLinks(urls.slice(0, 20).map((url) => ({ url })), { policy: { allowLoopback: true }, concurrency: CONCURRENCY, perHost: PER_HOST });
  site.reset();
  let started = performance.now();
  const results = await checkLinks(urls.map((url) => ({ url })), { policy: { allowLoopback: true }, concurrency: CONCURRENCY, perHost: PER_HOST });
  const oursSeconds = (performance.now() - started) / 1000;
  const maxActive = site.maxActive;
  const maxPerHost = site.maxPerHost;
  if (results.some((r) => r.status_code !== 200)) throw new Error('a benchmark link did not answer 200');
  started = performance.now();
  await mapLimit(urls, CONCURRENCY, bareGet);
  const floorSeconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => site.server.close(resolve));

  const analysisRatio = analysisOurs / analysisFloor;
  const a11yRatio = a11yOurs / a11yFloor;
  const oursPerSecond = LINKS / oursSeconds;
  const floorPerSecond = LINKS / floorSeconds;
  const honoured = maxActive <= CONCURRENCY && maxPerHost <= PER_HOST;
  return {
    htmlBytes: html.length,
    analysis: { oursMs: analysisOurs, floorMs: analysisFloor, ratio: analysisRatio, features },
    accessibility: { oursMs: a11yOurs, floorMs: a11yFloor, ratio: a11yRatio },
    links: { oursPerSecond, floorPerSecond, ratio: floorPerSecond / oursPerSecond, maxActive, maxPerHost },
    checks: [
      { benchmark: 'inspect', subject: 'code analysis of a 100 KB newsletter / parse floor', figure: ratio(analysisRatio), target: '<= 3x', pass: analysisRatio <= 3 },
      { benchmark: 'inspect', subject: 'accessibility / bare axe-core on jsdom', figure: ratio(a11yRatio), target: '<= 1.5x', pass: a11yRatio <= 1.5 },
      { benchmark: 'inspect', subject: `link checking concurrency (max ${maxActive} at once, ${maxPerHost} per host)`, figure: `${CONCURRENCY}/${PER_HOST} limits`, target: 'honoured', pass: honoured },
      { benchmark: 'inspect', subject: 'link checking, bare GET floor links/s / ours', figure: ratio(floorPerSecond / oursPerSecond), target: REPORTED, pass: true },
    ],
  };
}

export function printInspectBench(result: InspectBenchResult): void {
  print(`== Inspection: a ${kb(result.htmlBytes)} newsletter (nested tables, inline styles, media queries, VML) ==`);
  print('code analysis: ours = detect features (htmlparser2 + css-tree, each distinct inline style parsed once) and present them with caniemail support; floor = htmlparser2 parse + css-tree parse of all CSS, once.');
  print('accessibility: ours = axe-core on jsdom, email rules, source positions; floor = new JSDOM + axe.source + axe.run(document), defaults.');
  print(`links: ${LINKS} links over ${HOSTS} loopback addresses, each answering after ${SERVER_DELAY_MS} ms; ours = checkLinks (HEAD, redirects, TLS, findings) at ${CONCURRENCY} at once and ${PER_HOST} per host; floor = bare node:http GETs at ${CONCURRENCY} at once.`);
  print();
  print(
    table([
      ['check', 'ours', 'floor', 'ours / floor'],
      ['code analysis (ms, median)', fixed(result.analysis.oursMs, 1), fixed(result.analysis.floorMs, 1), ratio(result.analysis.ratio)],
      ['accessibility (ms, median)', fixed(result.accessibility.oursMs, 1), fixed(result.accessibility.floorMs, 1), ratio(result.accessibility.ratio)],
      ['links per second', fixed(result.links.oursPerSecond, 0), fixed(result.links.floorPerSecond, 0), ratio(1 / result.links.ratio)],
    ]),
  );
  print(`${result.analysis.features} features found; link checking saw at most ${result.links.maxActive} requests at once (limit ${CONCURRENCY}) and ${result.links.maxPerHost} per host (limit ${PER_HOST}): ${passFail(result.links.maxActive <= CONCURRENCY && result.links.maxPerHost <= PER_HOST)}.`);
  print();
}

if (require.main === module) {
  inspectBench()
    .then(printInspectBench)
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
