import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { buildConsoleIfStale, CONSOLE_DIST } from '../../lib/console-build';
import type { LocalPlatform } from '../../lib/local/platform';
import { launchBrowser, newContext, signIn } from '../support/browser';
import { ADMIN_KEY, sdk, startTestPlatform } from '../support/platform';

// How a console page opens from the nav, as route loaders do: its first API calls leave at the
// click, beside its chunk, and the page takes their replies (each call made once); a 401 among them
// still signs out and an error still shows in place. One host and one browser for the file.
jest.setTimeout(180_000);

let platform: LocalPlatform;
let browser: Browser;
let page: Page;

/** The pages whose link starts their calls, by their address (and what shows a chained call's answer, where one follows). */
const PAGES_WITH_LOADERS: Array<[string, string, string?]> = [
  ['Overview', '/overview'],
  ['Domains', '/domains'],
  ['Suppressions', '/suppressions'],
  ['Templates', '/templates'],
  ['Routes', '/routes'],
  ['Mailing lists', '/lists'],
  ['API keys', '/keys'],
  ['Reporting', '/reporting'],
  ['Inspect', '/inspect'],
  ['Previews', '/previews'],
  ['DMARC', '/dmarc', '#record-h ~ dl, #record-h ~ p.error'],
  ['Blocklists', '/blocklists'],
  ['Health score', '/health'],
  ['Inbox placement', '/placement'],
  ['Postmaster', '/postmaster'],
  ['Alerts', '/alerts'],
  ['Subaccounts', '/subaccounts'],
  ['Account settings', '/account'],
];

beforeAll(async () => {
  buildConsoleIfStale();
  [platform, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
  const client = sdk(platform.us.url);
  await client.domains.create({ name: 'nav.example.com' });
  page = await (await newContext(browser)).newPage();
  await signIn(page, platform.us.url, ADMIN_KEY);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await platform?.close();
});

const isApi = (request: Request) => /^\/(v\d|_local)\//.test(new URL(request.url()).pathname);
const callOf = (request: Request) => `${request.method()} ${request.url()} ${request.postData() ?? ''}`;

const navLink = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });

/** Waits until the page `name` has its heading and nothing on it says "Loading". */
async function settled(name: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
  await page.locator('main [role="status"]', { hasText: 'Loading' }).first().waitFor({ state: 'detached' });
}

async function openAndSettle(name: string): Promise<void> {
  await navLink(name).click();
  await settled(name);
}

/** The API calls made while `open` runs and the page `name` settles; times in seconds read as one. */
async function callsWhile(name: string, open: () => Promise<void>, ready?: string): Promise<string[]> {
  const asked: string[] = [];
  const record = (r: Request) => void (isApi(r) && asked.push(callOf(r).replace(/\b\d{10}\b/g, '<time>')));
  page.on('request', record);
  try {
    await open();
    await settled(name);
    if (ready) await page.locator(ready).first().waitFor();
  } finally {
    page.off('request', record);
  }
  return asked.sort();
}

describe('opening a console page from the nav', () => {
  it('asks for the page\'s data at the click, while its chunk is still on its way', async () => {
    const manifest = JSON.parse(readFileSync(join(CONSOLE_DIST, '.vite', 'manifest.json'), 'utf8')) as Record<string, { file: string }>;
    const chunk = manifest['src/pages/keys.tsx']!.file;
    // The chunk is held back until the page's call has left (or long after it should have).
    const keysAsked = page.waitForRequest((r) => new URL(r.url()).pathname === '/v1/keys', { timeout: 30_000 }).then(
      () => true,
      () => false,
    );
    let askedBeforeChunk: boolean | undefined;
    await page.route(`**/${chunk}`, async (route) => {
      askedBeforeChunk = await keysAsked;
      await route.continue();
    });
    await navLink('API keys').click();
    await page.getByRole('cell', { name: 'Mailplane console sign-in' }).first().waitFor();
    await page.unroute(`**/${chunk}`);
    expect(askedBeforeChunk).toBe(true);
  });

  it('makes the calls the page makes opened by its address, each once: the page takes the replies its link asked for', async () => {
    // The pages acting on one domain open on the one picked before: pick it first.
    await openAndSettle('Suppressions');
    await page.waitForFunction(() => (document.getElementById('domain-picker') as HTMLSelectElement | null)?.value === 'nav.example.com');
    for (const [name, address, ready] of PAGES_WITH_LOADERS) {
      const from = name === 'Domains' ? 'Routes' : 'Domains';
      await openAndSettle(from);
      const byLink = await callsWhile(name, () => navLink(name).click(), ready);
      await openAndSettle(from);
      const byAddress = await callsWhile(name, () => page.evaluate((hash) => void (location.hash = hash), address), ready);
      expect({ name, byLink }).toEqual({ name, byLink: byAddress });
      expect(new Set(byLink).size).toBe(byLink.length);
    }
  });

  it('shows an error its link\'s call met in place, and asks again on the next open', async () => {
    await openAndSettle('Domains');
    let failed = 0;
    const routesCall = (url: URL) => url.pathname === '/v3/routes';
    await page.route(routesCall, async (route) => {
      if (failed++) return route.continue();
      await route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ message: 'Routes are resting' }) });
    });
    await navLink('Routes').click();
    await page.getByRole('alert').filter({ hasText: 'Routes are resting (HTTP 503)' }).waitFor();
    await openAndSettle('Domains');
    await openAndSettle('Routes');
    expect(await page.getByRole('alert').filter({ hasText: 'Routes are resting' }).count()).toBe(0);
    await page.unroute(routesCall);
    expect(failed).toBe(2);
  });

  it('signs out when its link\'s call is refused with a 401', async () => {
    await openAndSettle('Domains');
    const listsCall = (url: URL) => url.pathname === '/v3/lists/pages';
    await page.route(listsCall, (route) => route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ message: 'Invalid private key' }) }));
    await navLink('Mailing lists').click();
    await page.getByRole('status').filter({ hasText: 'Your session has ended. Sign in again.' }).waitFor();
    await page.getByLabel('API key').waitFor();
    await page.unroute(listsCall);
  });
});
