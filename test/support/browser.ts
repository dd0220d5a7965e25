import packagedChromium from '@sparticuz/chromium';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * The Chromium `npm ci` installs (@sparticuz/chromium), or CHROMIUM_PATH's, headless and quiet:
 * without the background-networking switches Chromium keeps trying to reach the internet.
 */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? (await packagedChromium.executablePath()),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--lang=en-US', ...extraArgs],
    headless: true,
  });
}

/** A fresh context (its own sessionStorage) with a real locale: the machine's POSIX one is not a language tag. */
export function newContext(browser: Browser, viewport = { width: 1366, height: 768 }): Promise<BrowserContext> {
  return browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport });
}

export interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/**
 * axe-core's serious and critical violations of WCAG 2 A and AA on the page as it stands. axe is
 * evaluated through the DevTools protocol, which the page's Content-Security-Policy does not cover
 * (an injected <script> would be refused, as it should be).
 */
async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axe.source);
  return page.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

/** How far the page scrolls sideways (0 when it fits the viewport). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** Signs in to the console at `url` as a user does (the key typed in), and waits for the signed-in shell. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Opens a console page by its link in the nav, and waits for its heading. */
export async function openPage(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

/** Fails naming `where` and the page's serious and critical axe violations, if it has any. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  const violations = await seriousViolations(page);
  expect({ where, violations }).toEqual({ where, violations: [] });
}
