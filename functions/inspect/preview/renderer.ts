import packagedChromium from '@sparticuz/chromium';
import type { Browser, BrowserContext, Route } from 'playwright-core';
import { env } from '../../platform/env';
import { logger } from '../../platform/logger';
import { webhookAddressPolicy } from '../../webhooks/url-policy';
import { fetchOnce, followRedirects } from '../common/safe-fetch';
import type { Viewport } from './clients';

/**
 * Headless Chromium through playwright-core: the `@sparticuz/chromium` build (in Lambda, and in
 * local mode on x86-64 Linux, where `npm ci` installs it), or the one CHROMIUM_PATH names (Debian's
 * `chromium`, a Mac's Chrome). One browser per process, reused by every render; a context per
 * render, so nothing carries over between emails.
 */

/** Every image and stylesheet of an email together: a slow host cannot hold a render longer. */
const LOAD_TIMEOUT_MS = 10_000;
const RESOURCE_TIMEOUT_MS = 8_000;
const RESOURCE_MAX_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS = 5;

/**
 * Where the email is opened: a host that can never resolve (.invalid), answered by the route below
 * and never fetched, over http so the email's http images are not blocked as mixed content. Its
 * reply sandboxes the document (CSP `sandbox`, no allowances): Chromium then ignores
 * `<meta http-equiv="refresh">`, which would otherwise navigate the page away from the email (or
 * reload it empty) before the screenshot, as mail clients, which drop the tag, never do.
 */
const EMAIL_URL = 'http://email.invalid/';
const EMAIL_ORIGIN = new URL(EMAIL_URL).origin;
/** A screenshot stops here (CSS pixels): a page longer than any email would exhaust the task's memory. */
const MAX_PAGE_HEIGHT = 16_000;

/**
 * @sparticuz/chromium's switches, less the ones that would let an email's content reach further
 * than a client lets it (web security off, mixed content on); plus no background traffic of
 * Chromium's own (component updates, sync), which a closed network refuses anyway.
 */
const UNSAFE_SWITCHES = /^--(disable-web-security|allow-running-insecure-content|disable-site-isolation-trials)/;
const QUIET_SWITCHES = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-gpu'];

/** Launched browsers by executable ('' = the packaged one): each local host may name its own. */
const browsers = new Map<string, Promise<Browser>>();

/**
 * How Chromium is started: the executable (CHROMIUM_PATH, or the packaged build unpacked) and its
 * switches. One process for everything is what lets Chromium start in Lambda; on a full machine,
 * where several renders share the browser, it would make one page's crash everyone's.
 */
export async function launchOptions(configured: string | undefined, singleProcess = Boolean(process.env['AWS_LAMBDA_FUNCTION_NAME'])): Promise<{ executablePath: string; args: string[] }> {
  const executablePath = configured ?? (await packagedChromium.executablePath());
  const args = [...packagedChromium.args.filter((arg) => !UNSAFE_SWITCHES.test(arg) && (singleProcess || !/^--(single-process|no-zygote)$/.test(arg))), ...QUIET_SWITCHES];
  return { executablePath, args };
}

async function launch(configured: string | undefined): Promise<Browser> {
  // playwright-core (slow to load) on the first render only: local mode, which imports the render
  // task at start, pays for it only when a preview is made.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  return chromium.launch({ ...(await launchOptions(configured)), headless: true, timeout: 30_000 });
}

/** The shared browser, launched on first use and again after it died or failed to start. */
async function sharedBrowser(): Promise<Browser> {
  const configured = env().CHROMIUM_PATH;
  const key = configured ?? '';
  let launching = browsers.get(key);
  if (!launching) {
    launching = launch(configured);
    browsers.set(key, launching);
    launching.then(
      (launched) => launched.on('disconnected', () => browsers.get(key) === launching && browsers.delete(key)),
      () => browsers.get(key) === launching && browsers.delete(key),
    );
  }
  const current = await launching;
  if (current.isConnected()) return current;
  if (browsers.get(key) === launching) browsers.delete(key);
  return sharedBrowser();
}

/** Closes the browser of an executable (the local host stopping; '' or undefined: the packaged one). */
export async function closeBrowser(executable?: string): Promise<void> {
  const key = executable ?? '';
  const launching = browsers.get(key);
  browsers.delete(key);
  if (launching) await (await launching.catch(() => undefined))?.close();
}

/**
 * A resource the email loads (image, stylesheet, font), fetched through the platform's SSRF-safe
 * client (public addresses only on AWS; loopback too in local mode), following redirects hop by
 * hop so every hop is checked. Nothing else leaves the browser.
 */
async function fetchResource(route: Route, blockImages: boolean): Promise<void> {
  const request = route.request();
  const type = request.resourceType();
  if (blockImages && type === 'image') return route.abort('blockedbyclient');
  const url = request.url();
  if (!/^https?:/i.test(url) || !['image', 'stylesheet', 'font', 'media'].includes(type)) return route.abort('blockedbyclient');
  try {
    const final = await followRedirects(url, MAX_REDIRECTS, (target) => fetchOnce(target, { method: 'GET', timeoutMs: RESOURCE_TIMEOUT_MS, maxBytes: RESOURCE_MAX_BYTES, policy: webhookAddressPolicy(), readBody: true }));
    if (!final || final.outcome.truncated) return route.abort('failed');
    const { outcome } = final;
    const contentType = outcome.headers['content-type'];
    return route.fulfill({ status: outcome.status, body: outcome.body ?? Buffer.alloc(0), headers: contentType ? { 'content-type': contentType } : {} });
  } catch {
    return route.abort('failed');
  }
}

export interface RenderRequest {
  html: string;
  viewport: Viewport;
  dark: boolean;
  blockImages: boolean;
  /** The device turned sideways: width and height swapped. */
  landscape: boolean;
}

export interface Rendered {
  png: Buffer;
  /** The page was longer than MAX_PAGE_HEIGHT and was cut there. */
  cut: boolean;
}

/**
 * Contexts by device kind (scale factor, mobile), kept for the browser's life: Chromium run as one
 * process (Lambda) cannot make a new context once one has been closed, so contexts are never
 * closed and each render is a page of its own. Routing every request (below) switches the HTTP
 * cache off, so nothing one email loaded is served to another.
 */
const contexts = new WeakMap<Browser, Map<string, Promise<BrowserContext>>>();

function contextFor(browser: Browser, viewport: Viewport): Promise<BrowserContext> {
  let byKind = contexts.get(browser);
  if (!byKind) contexts.set(browser, (byKind = new Map()));
  const kind = `${viewport.deviceScaleFactor}|${viewport.isMobile}`;
  let context = byKind.get(kind);
  if (!context) {
    context = browser.newContext({
      viewport: { width: viewport.width, height: viewport.height },
      deviceScaleFactor: viewport.deviceScaleFactor,
      isMobile: viewport.isMobile,
      hasTouch: viewport.isMobile,
      javaScriptEnabled: false,
      serviceWorkers: 'block',
      acceptDownloads: false,
    });
    byKind.set(kind, context);
    context.catch(() => byKind.delete(kind));
  }
  return context;
}

/** One email in one client's viewport: the full page, as a PNG, with scripts off as every mail client has them. */
export async function renderEmail(request: RenderRequest): Promise<Rendered> {
  const current = await sharedBrowser();
  const { viewport } = request;
  const size = request.landscape ? { width: viewport.height, height: viewport.width } : { width: viewport.width, height: viewport.height };
  const page = await (await contextFor(current, viewport)).newPage();
  try {
    await page.setViewportSize(size);
    await page.emulateMedia({ colorScheme: request.dark ? 'dark' : 'light' });
    await page.route('**/*', (route) => {
      const target = route.request().url();
      if (target === EMAIL_URL) return route.fulfill({ status: 200, body: request.html, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': 'sandbox' } });
      // A relative URL in the email resolves here: it names nothing, as it does in a mail client.
      if (target.startsWith(`${EMAIL_ORIGIN}/`)) return route.abort('failed');
      return fetchResource(route, request.blockImages);
    });
    try {
      await page.goto(EMAIL_URL, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
    } catch (error) {
      // A resource still loading after the timeout: the screenshot shows the page as it is, as a client would.
      if ((error as Error).name !== 'TimeoutError') throw error;
      logger.info('preview render: resources still loading at the timeout', { timeoutMs: LOAD_TIMEOUT_MS });
    }
    const height = await page.evaluate(() => Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0));
    const cut = height > MAX_PAGE_HEIGHT;
    const png = await page.screenshot({ type: 'png', fullPage: true, clip: cut ? { x: 0, y: 0, width: size.width, height: MAX_PAGE_HEIGHT } : undefined, timeout: 30_000 });
    return { png, cut };
  } finally {
    await page.close().catch(() => undefined);
  }
}
