import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { LocalPlatform } from '../../lib/local/platform';
import { horizontalOverflow, launchBrowser, newContext, openPage, expectAccessible as expectPageAccessible, signIn as signInAt } from '../support/browser';
import { ADMIN_KEY, apiKeys, call, eventually, sdk, startTestPlatform } from '../support/platform';

// The web console as a user meets it: `npm start`'s host (both regions in-process) serving the
// built console at /, driven in the Chromium `npm ci` installed, by the names a screen reader
// would announce. One host and one browser for the whole suite; each journey proves several things.
jest.setTimeout(180_000);

let platform: LocalPlatform;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Requests that reached this server: a script or image in a message that ran or loaded would call it. */
let beacon: Server;
let beaconUrl = '';
const beaconHits: string[] = [];

const PAGES = ['Overview', 'Domains', 'Logs', 'Suppressions', 'Templates', 'Routes', 'Mailing lists', 'API keys', 'Outbox'] as const;

beforeAll(async () => {
  beacon = createServer((req, res) => {
    beaconHits.push(req.url ?? '');
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
  beaconUrl = `http://127.0.0.1:${(beacon.address() as AddressInfo).port}`;
  [platform, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
  context = await newContext(browser);
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await platform?.close();
  await new Promise((resolve) => beacon?.close(resolve));
});

const open = (name: (typeof PAGES)[number]) => openPage(page, name);

const expectAccessible = (where: string) => expectPageAccessible(page, where);

const signIn = (target: Page, key: string) => signInAt(target, platform.us.url, key);

describe('the console', () => {
  it('signs in with a web key only, adds and verifies a domain, sends a test message and finds it in Logs and the Outbox', async () => {
    await page.goto(`${platform.us.url}/`);
    await page.getByLabel('API key').waitFor();
    await expectAccessible('sign-in');
    await signIn(page, ADMIN_KEY);

    // Only a one-day web key is kept, never the key typed in.
    const stored = await page.evaluate(() => JSON.stringify(sessionStorage));
    expect(stored).not.toContain(ADMIN_KEY);
    const webKeys = (await apiKeys(sdk(platform.us.url)).list({ kind: 'web' })).items;
    expect(webKeys).toHaveLength(1);
    expect(webKeys[0]).toMatchObject({ role: 'admin', kind: 'web' });
    expect(stored).toContain(webKeys[0]!.id);

    await open('Domains');
    await page.getByLabel('Domain name').fill('console.example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { level: 1, name: 'console.example.com' }).waitFor();
    await page.getByRole('heading', { name: 'DNS records' }).waitFor();
    expect(await page.getByRole('cell', { name: 'TXT', exact: true }).count()).toBeGreaterThan(0);
    await expectAccessible('domain page');
    await page.getByRole('button', { name: 'Verify DNS settings' }).click();
    await page.getByText(/^State:/).getByText('active', { exact: true }).waitFor();
    expect((await sdk(platform.us.url).domains.get('console.example.com')).state).toBe('active');

    await page.getByLabel('To', { exact: true }).fill('reader@example.net');
    await page.getByLabel('Subject').fill('First send from the console');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText(/Queued:/).waitFor();

    await open('Logs');
    await page.getByLabel('Recipient').fill('reader@example.net');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const delivered = page.getByRole('row').filter({ hasText: 'delivered' }).filter({ hasText: 'First send from the console' });
    await eventually(async () => {
      if (await delivered.count()) return true;
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForTimeout(300);
      return false;
    }, 20_000);
    await expectAccessible('logs');
    await delivered.getByRole('button', { name: /^Details/ }).click();
    await page.getByRole('heading', { name: 'Event details' }).waitFor();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.getByRole('button', { name: 'View message' }).click();
    await page.getByRole('tab', { name: 'Text' }).click();
    await page.getByRole('tabpanel').getByText('It works.').waitFor();
    await expectAccessible('logs with a message open');

    await open('Outbox');
    const row = page.getByRole('row').filter({ hasText: 'First send from the console' });
    await row.waitFor();
    expect(await row.textContent()).toContain('delivered');
    // Live: mail sent while the page is open appears without a reload.
    await sdk(platform.us.url).messages.create('console.example.com', { from: 'live@console.example.com', to: 'later@example.net', subject: 'Arrived while watching', text: 'Hello' });
    await page.getByRole('row').filter({ hasText: 'Arrived while watching' }).waitFor({ timeout: 20_000 });
    await row.getByRole('button', { name: /^Open message/ }).click();
    await page.getByRole('heading', { name: 'Events from the API' }).waitFor();
    await page.getByRole('tab', { name: 'Headers' }).click();
    await page.getByRole('cell', { name: 'Authentication-Results' }).waitFor();
    await expectAccessible('outbox with a message open');

    // The outbox's JSON twin, for tests in any language.
    const listed = await call(`${platform.us.url}/_local/outbox?search=first+send`);
    expect(listed.status).toBe(200);
    expect(listed.json.messages).toEqual([expect.objectContaining({ subject: 'First send from the console', status: 'delivered', recipients: [{ address: 'reader@example.net', outcome: 'delivered' }] })]);
    expect((await call(`${platform.us.url}/_local/outbox`, { key: null })).status).toBe(401);
  });

  it('shows a message carrying <script> and onerror= markup as text, and runs nothing of it', async () => {
    const hostile = `<script>fetch('${beaconUrl}/script')</script>`;
    await sdk(platform.us.url).messages.create('console.example.com', {
      from: 'mallory@console.example.com',
      to: 'victim@example.net',
      subject: `Hi ${hostile}<img src=x onerror="fetch('${beaconUrl}/subject')">`,
      html: `<p>Body</p>${hostile}<img src="x" onerror="fetch('${beaconUrl}/onerror')"><img src="${beaconUrl}/remote.png" alt="remote">`,
      text: `Text ${hostile}`,
    });
    await open('Outbox');
    const row = page.getByRole('row').filter({ hasText: 'mallory@console.example.com' });
    await row.waitFor({ timeout: 20_000 });
    // The subject is shown as the characters it has, not as markup.
    expect(await row.textContent()).toContain(`<script>fetch('${beaconUrl}/script')</script>`);
    await row.getByRole('button', { name: /^Open message/ }).click();
    await page.getByRole('tab', { name: 'HTML' }).click();
    const frame = page.locator('iframe.message');
    await frame.waitFor();
    expect(await frame.getAttribute('sandbox')).not.toContain('allow-scripts');
    await page.frameLocator('iframe.message').getByText('Body').waitFor();
    await page.getByRole('tab', { name: 'Text' }).click();
    await page.getByRole('tabpanel').getByText(`Text ${hostile}`).waitFor();
    await page.waitForTimeout(1000);
    // Nothing ran and the remote image stayed blocked (it loads only when asked for).
    expect(beaconHits).toEqual([]);
    expect(await page.evaluate(() => document.querySelectorAll('img[src="x"]').length)).toBe(0);
  });

  it('adds and removes a suppression', async () => {
    await open('Suppressions');
    await page.getByLabel('Domain').selectOption('console.example.com');
    await page.getByRole('tab', { name: 'Bounces' }).waitFor();
    await page.getByLabel('Address').fill('gone@example.net');
    await page.getByLabel('Code').fill('550');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('cell', { name: 'gone@example.net', exact: true }).waitFor();
    expect((await call(`${platform.us.url}/v3/console.example.com/bounces/gone@example.net`)).json).toMatchObject({ address: 'gone@example.net' });
    await expectAccessible('suppressions');
    await page.getByRole('button', { name: 'Delete gone@example.net' }).click();
    await page.getByRole('cell', { name: 'gone@example.net', exact: true }).waitFor({ state: 'detached' });
    const lookup = await call(`${platform.us.url}/v3/console.example.com/bounces/gone@example.net`);
    expect(lookup.status).toBe(404);
    await page.getByRole('tab', { name: 'Allowlist' }).click();
    await expectAccessible('allowlist');
  });

  it('edits a template and the preview follows; an invalid one gets the platform\'s error', async () => {
    await open('Templates');
    await page.getByLabel('Domain').selectOption('console.example.com');
    await page.getByText('Create template', { exact: true }).and(page.locator('summary')).click();
    await page.getByLabel('Name', { exact: true }).fill('welcome');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Template welcome' }).waitFor();
    const preview = page.frameLocator('iframe[title="Template preview"]');
    await preview.getByText('Hello Ada').waitFor();
    const source = page.getByRole('region', { name: 'Template welcome' }).getByLabel('Template source');
    await source.fill('<p>Goodbye {{name}}, {{#each items}}{{title}}{{/each}}</p>');
    await preview.getByText('Goodbye Ada, Notebook').waitFor();
    await page.getByLabel('Sample variables (JSON)').fill('{"name": "Grace", "items": []}');
    await preview.getByText('Goodbye Grace,').waitFor();
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByText(/Version .* saved/).waitFor();
    const version = await call(`${platform.us.url}/v3/console.example.com/templates/welcome?active=yes`);
    expect((version.json.template as { version: { template: string } }).version.template).toBe('<p>Goodbye {{name}}, {{#each items}}{{title}}{{/each}}</p>');
    await expectAccessible('templates');

    await source.fill('<p>{{#if name}}unclosed</p>');
    await page.getByRole('alert').filter({ hasText: /Parse error|Expecting/ }).first().waitFor();
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByRole('alert').filter({ hasText: '(HTTP 400)' }).waitFor();
  });

  it('creates a route and tests an address against it', async () => {
    await open('Routes');
    await page.getByLabel('Expression').fill('match_recipient(".*@support.example.com")');
    await page.getByLabel('Actions (one a line)').fill('forward("https://hooks.example.com/support")\nstop()');
    await page.getByLabel('Description').fill('Support desk');
    await page.getByRole('button', { name: 'Create route' }).click();
    await page.getByRole('cell', { name: 'Support desk', exact: true }).waitFor();
    await page.getByLabel('Address to test').fill('help@support.example.com');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'help@support.example.com matches' }).waitFor();
    await page.getByLabel('Address to test').fill('someone@elsewhere.example.com');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'No route matches someone@elsewhere.example.com' }).waitFor();
    await expectAccessible('routes');
  });

  it('passes axe on every page and scrolls no page sideways at 1366x768 and 390x844', async () => {
    for (const viewport of [{ width: 1366, height: 768 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(viewport);
      for (const name of PAGES) {
        if (viewport.width < 700) {
          // The phone's menu: closed until asked for, then the nav's links, closed again by a pick.
          const menu = page.getByRole('button', { name: 'Menu' });
          expect(await menu.getAttribute('aria-expanded')).toBe('false');
          expect(await page.getByRole('navigation', { name: 'Console' }).isVisible()).toBe(false);
          await menu.click();
          expect(await menu.getAttribute('aria-expanded')).toBe('true');
        }
        await open(name);
        await page.waitForLoadState('networkidle');
        expect({ name, viewport, overflow: await horizontalOverflow(page) }).toEqual({ name, viewport, overflow: 0 });
        await expectAccessible(`${name} at ${viewport.width}x${viewport.height}`);
      }
    }
    await page.setViewportSize({ width: 1366, height: 768 });
  });

  it('switches to the EU region in place, on the web key sign-in made there', async () => {
    const euSandbox = (await sdk(platform.eu.url).domains.list()).find((d) => d.type === 'sandbox')!.name;
    await page.getByLabel('Region').selectOption('eu');
    await open('Domains');
    await page.getByRole('link', { name: euSandbox }).waitFor();
    expect(await page.getByRole('link', { name: 'console.example.com' }).count()).toBe(0);
    expect((await apiKeys(sdk(platform.eu.url)).list({ kind: 'web' })).items).toHaveLength(1);
    await page.getByLabel('Region').selectOption('us');
    await open('Domains');
    await page.getByRole('link', { name: 'console.example.com' }).waitFor();
  });

  it('shows a read-only key no write buttons, and signing out deletes the web key', async () => {
    const basic = await apiKeys(sdk(platform.us.url)).create({ role: 'basic', kind: 'user', description: 'read only' });
    const reader = await context.newPage();
    await signIn(reader, basic.secret);
    await reader.getByRole('link', { name: 'Domains', exact: true }).click();
    await reader.getByRole('link', { name: 'console.example.com' }).waitFor();
    expect(await reader.getByRole('button', { name: 'Add domain' }).count()).toBe(0);
    await reader.getByRole('link', { name: 'console.example.com' }).click();
    await reader.getByRole('heading', { name: 'DNS records' }).waitFor();
    expect(await reader.getByRole('button', { name: 'Verify DNS settings' }).count()).toBe(0);
    expect(await reader.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    expect(await reader.evaluate(() => JSON.stringify(sessionStorage))).not.toContain(basic.secret);
    await reader.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    await eventually(async () => (await apiKeys(sdk(platform.us.url)).list({ kind: 'web' })).items.length === 0, 10_000);
    await eventually(async () => (await apiKeys(sdk(platform.eu.url)).list({ kind: 'web' })).items.length === 0, 10_000);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });
});
