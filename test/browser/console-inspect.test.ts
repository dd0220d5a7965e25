import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { LocalPlatform } from '../../lib/local/platform';
import { horizontalOverflow, launchBrowser, newContext, openPage, expectAccessible as expectPageAccessible, signIn } from '../support/browser';
import { ADMIN_KEY, apiKeys, call, eventually, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// The console's Reporting, Inspect and Previews pages (issue 30) as a user meets them, on
// `npm start`'s host in the Chromium `npm ci` installed: run the four inspection checks and see a
// broken link and an image without alt text located in the email; create a preview test, open a
// client's screenshot, share it and open the share signed out; and read a metrics query whose
// figures are the API's own for the same query. axe-core on each page.
jest.setTimeout(240_000);

let platform: LocalPlatform;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const PAGES = ['Reporting', 'Inspect', 'Previews'] as const;

beforeAll(async () => {
  [platform, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
  context = await newContext(browser);
  page = await context.newPage();
  await signIn(page, platform.us.url, ADMIN_KEY);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await platform?.close();
});

const open = (name: (typeof PAGES)[number]) => openPage(page, name);

const expectAccessible = (where: string) => expectPageAccessible(page, where);

/** A small opaque PNG (w x h, one colour), as a data: URI: an image the checks can read without a fetch. */
function pngDataUri(width: number, height: number): string {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x3c)]);
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))), chunk('IEND', Buffer.alloc(0))]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

describe('the console, part 2', () => {
  it('runs the four inspection checks together and locates a broken link and an image without alt text in the email', async () => {
    await open('Inspect');
    await expectAccessible('inspect');
    const html = [
      '<!doctype html>',
      '<html lang="en">',
      '<head><title>Check me</title></head>',
      '<body>',
      '<div lang="en" dir="ltr">',
      // Far down the rendered email, on line 6 all the same.
      `<div style="height: 1500px">Top</div><p>Read <a href="${platform.us.url}/no-such-page">the broken page</a>.</p>`,
      `<img src="${pngDataUri(400, 300)}" width="100" height="75">`,
      '</div>',
      '</body>',
      '</html>',
      '',
    ].join('\n');
    await page.getByLabel('Email HTML').fill(html);
    await page.getByRole('button', { name: 'Run checks' }).click();
    await page.getByRole('heading', { name: /^Findings/ }).waitFor({ timeout: 120_000 });
    const status = await page.locator('.check-status').textContent();
    expect(status).toContain('Links: Completed');
    expect(status).toContain('Images: Complete');
    expect(status).toContain('Accessibility: Complete');
    expect(status).toContain('Code analysis: Completed');

    // The broken link: critical, on line 6, outlined where it renders and marked in the source.
    const critical = page.getByRole('region', { name: /^Critical/ });
    await critical.getByText('Broken Link', { exact: true }).waitFor();
    await critical.getByRole('button', { name: 'Show in email: Broken Link, line 6' }).click();
    await page.getByRole('heading', { name: 'Where: Broken Link, line 6' }).waitFor();
    const frame = page.frameLocator('iframe.inspect-frame');
    const marked = frame.locator('[data-mp-finding]');
    await marked.waitFor();
    expect(await marked.evaluate((el) => el.tagName)).toBe('A');
    expect(await marked.textContent()).toBe('the broken page');
    // The frame opens scrolled to it (the console cannot scroll a sandboxed frame; CSS does).
    expect(await marked.evaluate((el) => el.ownerDocument.defaultView!.scrollY)).toBeGreaterThan(1000);
    expect(await page.locator('ol.source li.hit').textContent()).toContain('no-such-page');

    // The image without alt text: found by accessibility (critical) and by image validation.
    await critical.getByRole('button', { name: 'Show in email: Image Alt, line 7' }).click();
    await page.getByRole('heading', { name: 'Where: Image Alt, line 7' }).waitFor();
    await eventually(async () => (await frame.locator('[data-mp-finding]').evaluate((el) => el.tagName)) === 'IMG', 10_000);
    expect(await page.locator('ol.source li.hit').textContent()).toContain('<img src="data:image/png');
    await page.getByRole('region', { name: /^Serious/ }).getByRole('button', { name: 'Show in email: Missing Alt Text, line 7' }).waitFor();

    // The email only ever renders in a frame whose sandbox allows no scripts; none of its markup is in the console's DOM.
    expect(await page.locator('iframe.inspect-frame').getAttribute('sandbox')).not.toContain('allow-scripts');
    expect(await page.evaluate(() => document.querySelectorAll('a[href*="no-such-page"], main img').length)).toBe(0);

    // Code analysis's client support table, and the image's optimized copy with its savings.
    const support = page.getByRole('region', { name: 'Client support table' });
    await support.getByRole('rowheader', { name: /^Gmail/ }).first().waitFor();
    expect(await support.getByRole('columnheader').count()).toBeGreaterThan(1);
    await page.getByRole('button', { name: 'Optimize images' }).click();
    await page.getByText(/^Saves .* in all\.$/).waitFor();
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download optimized image 1' }).click();
    const saved = await downloading;
    expect(saved.suggestedFilename()).toMatch(/^optimized-1\.png$/);
    await expectAccessible('inspect with findings');

    // The other two sources: a template version, and an uploaded .eml (its HTML part).
    const domain = await sandboxOf(sdk(platform.us.url));
    await sdk(platform.us.url).domains.domainTemplates.create(domain, { name: 'inspect-me', description: 'for Inspect', template: '<p>Template body {{name}}</p>', tag: 'v1' });
    await page.getByLabel('Template domain').selectOption(domain);
    await page.getByLabel('Template', { exact: true }).selectOption('inspect-me');
    await page.getByLabel('Version').selectOption('v1');
    await page.getByRole('button', { name: 'Use this version' }).click();
    await page.getByText('Loaded from template inspect-me, version v1.').waitFor();
    expect(await page.getByLabel('Email HTML').inputValue()).toBe('<p>Template body {{name}}</p>');
    const eml = ['From: a@example.com', 'To: b@example.net', 'Subject: Uploaded', 'MIME-Version: 1.0', 'Content-Type: multipart/alternative; boundary="b1"', '', '--b1', 'Content-Type: text/plain', '', 'Plain part', '--b1', 'Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable', '', '<p>From the =', 'eml file</p>', '--b1--', ''].join('\r\n');
    await page.getByLabel('Upload an .html or .eml file').setInputFiles({ name: 'message.eml', mimeType: 'message/rfc822', buffer: Buffer.from(eml) });
    await page.getByText('Loaded from message.eml.').waitFor();
    expect((await page.getByLabel('Email HTML').inputValue()).trim()).toBe('<p>From the eml file</p>');
  });

  it('creates a preview test, opens a client, exports, shares it (opened signed out), and deletes it', async () => {
    await open('Previews');
    const address = (await call(`${platform.us.url}/v2/preview/address`, { method: 'POST' })).json['preview_address'] as string;
    await page.getByText(address, { exact: true }).waitFor();
    await expectAccessible('previews');

    await page.getByLabel('Subject').fill('Console preview');
    const choice = page.locator('.client-choice');
    const chosen = choice.getByRole('checkbox', { checked: true });
    while (await chosen.count()) await chosen.first().uncheck();
    await choice.getByRole('checkbox', { name: /^Gmail \(Windows\)/ }).check();
    await choice.getByRole('checkbox', { name: /^iPhone 15 Mail \(iOS 17\)/ }).check();
    await page.getByRole('checkbox', { name: /^Image blocking/ }).check();
    await page.getByRole('checkbox', { name: /^Dark mode/ }).check();
    await page.getByText('3 clients', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Create test' }).click();
    await page.getByRole('heading', { name: 'Test “Console preview”' }).waitFor();
    // Live: the progress follows the clients as they finish, without a reload.
    await page.getByText('3 of 3 clients done').waitFor({ timeout: 150_000 });
    const testId = ((await call(`${platform.us.url}/v2/preview/tests?subject=Console+preview`)).json as unknown as Array<{ id: string }>)[0]!.id;
    const info = (await call(`${platform.us.url}/v2/preview/tests/${testId}`)).json;
    expect([...(info['completed'] as string[])].sort()).toEqual(['gmail_chr26_win', 'iphone15_17', 'iphone15_17_dm']);
    const grid = page.getByRole('list', { name: 'Clients' });
    await grid.getByText('High fidelity').first().waitFor();
    await grid.getByText('Approximate').first().waitFor();

    await page.getByRole('button', { name: 'Open Gmail (Windows)' }).click();
    await page.getByRole('heading', { level: 3, name: 'Gmail (Windows)' }).waitFor();
    const shot = page.getByRole('img', { name: 'Default screenshot of “Console preview” in Gmail (Windows)' });
    await shot.waitFor();
    await eventually(async () => (await shot.evaluate((img) => (img as HTMLImageElement).naturalWidth)) > 0, 20_000);
    await page.getByLabel('Screenshot', { exact: true }).selectOption('no_images');
    await page.getByRole('img', { name: 'Images blocked screenshot of “Console preview” in Gmail (Windows)' }).waitFor();
    await expectAccessible('previews with a test open');

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export screenshots (zip)' }).click();
    const zip = await downloading;
    expect(zip.suggestedFilename()).toBe(`preview-${testId}.zip`);
    const zipPath = await zip.path();
    expect(readFileSync(zipPath).subarray(0, 2).toString('latin1')).toBe('PK');

    await page.getByRole('button', { name: 'Create share link' }).click();
    const link = page.locator('#share-link');
    await link.waitFor();
    const shareUrl = (await link.getAttribute('href'))!;
    const share = (await call(`${platform.us.url}/v1/preview/sharing/${testId}`)).json;
    expect(share).toMatchObject({ url: shareUrl, enabled: true });
    // Opened by someone who is not signed in: the public page shows the test.
    const stranger = await newContext(browser);
    const outsider = await stranger.newPage();
    await outsider.goto(shareUrl);
    await outsider.getByText('Console preview').first().waitFor();
    await outsider.locator('img').first().waitFor();

    await page.getByRole('button', { name: 'Disable share' }).click();
    await page.getByText('Disabled', { exact: true }).waitFor();
    expect((await call(shareUrl, { key: null })).status).toBe(404);
    await page.getByRole('button', { name: 'Rotate link' }).click();
    await eventually(async () => (await link.getAttribute('href')) !== shareUrl, 10_000);
    await stranger.close();

    await page.getByRole('button', { name: 'Reprocess iPhone 15 Mail (iOS 17)' }).click();
    await page.getByText('3 of 3 clients done').waitFor({ timeout: 150_000 });
    // The console's reprocess used one of the client's 20: the next one leaves 18.
    await eventually(async () => ((await call(`${platform.us.url}/v2/preview/tests/${testId}`)).json['processing'] as string[]).length === 0);
    const again = await call(`${platform.us.url}/v1/preview/tests/${testId}/results/reprocess`, { method: 'PUT', body: JSON.stringify({ clients: ['iphone15_17'] }), contentType: 'application/json' });
    expect(again.json).toEqual({ iphone15_17: { success: true, remaining_reprocesses: 18, regional: false } });
    await eventually(async () => ((await call(`${platform.us.url}/v2/preview/tests/${testId}`)).json['processing'] as string[]).length === 0);

    await page.getByRole('button', { name: 'Delete test' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete test' }).click();
    await page.getByRole('heading', { name: 'Test “Console preview”' }).waitFor({ state: 'detached' });
    expect((await call(`${platform.us.url}/v2/preview/tests/${testId}`)).status).toBe(404);
  });

  it("shows a metrics query's figures as the API gives them for the same query, exports them, and edits, charts and deletes tags", async () => {
    const client = sdk(platform.us.url);
    const domain = await sandboxOf(client);
    for (const [to, tag] of [['ann@example.net', 'promo'], ['bob@example.net', 'promo'], ['cy@example.org', 'promo'], ['dee@example.net', 'news']] as const) {
      await client.messages.create(domain, { from: `shop@${domain}`, to, subject: 'Reporting', text: 'Hello', 'o:tag': [tag] });
    }
    const metrics = (body: unknown) => call(`${platform.us.url}/v1/analytics/metrics`, { method: 'POST', body: JSON.stringify(body), contentType: 'application/json' });
    await eventually(async () => {
      const reply = (await metrics({ duration: '1d', metrics: ['delivered_count'], include_aggregates: true })).json as { aggregates: { metrics: { delivered_count: number } } };
      return reply.aggregates.metrics.delivered_count >= 4;
    });

    await open('Reporting');
    await page.getByRole('heading', { name: 'Results' }).waitFor();
    await expectAccessible('reporting');
    await page.getByRole('checkbox', { name: 'Opened', exact: true }).check();
    await page.getByRole('checkbox', { name: 'Delivery rate (%)' }).check();
    await page.getByRole('checkbox', { name: 'Over time' }).uncheck();
    await page.getByLabel('Break down by').selectOption('recipient_domain');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Attribute').selectOption('tag');
    await page.getByLabel('Values (comma separated)').fill('promo');
    const asked = page.waitForRequest((r) => r.url().endsWith('/v1/analytics/metrics') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Run query' }).click();
    const body = (await asked).postDataJSON() as Record<string, unknown>;
    expect(body).toMatchObject({ dimensions: ['recipient_domain'], metrics: ['accepted_count', 'delivered_count', 'failed_count', 'opened_count', 'delivered_rate'], filter: { AND: [{ attribute: 'tag', comparator: '=' }] } });
    await page.getByRole('columnheader', { name: 'Recipient domain', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'example.org', exact: true }).waitFor();

    // The same query asked of the API: the page's table and totals say what it answers.
    const api = (await metrics(body)).json as { items: Array<{ dimensions: Array<{ value: string }>; metrics: Record<string, number | string> }>; aggregates: { metrics: Record<string, number | string> } };
    expect(api.items.map((i) => i.dimensions[0]!.value).sort()).toEqual(['example.net', 'example.org']);
    const results = page.getByRole('region', { name: 'Results' });
    const shown = await results.locator('.table-wrap table tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)));
    expect(shown).toEqual(api.items.map((item) => [item.dimensions[0]!.value, ...['accepted_count', 'delivered_count', 'failed_count', 'opened_count', 'delivered_rate'].map((m) => String(item.metrics[m]))]));
    const totals = await results.locator('.kpi .value').evaluateAll((values) => values.map((v) => [v.getAttribute('data-metric'), v.textContent]));
    expect(totals).toEqual(Object.entries(api.aggregates.metrics).map(([name, value]) => [name, String(value)]));
    expect(api.aggregates.metrics).toMatchObject({ accepted_count: 3, delivered_count: 3 });
    await results.getByRole('img', { name: /^Accepted, Delivered, Failed by recipient domain/ }).waitFor();

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = readFileSync(await (await downloading).path(), 'utf8');
    expect(csv.split('\r\n')[0]).toBe('recipient_domain,accepted_count,delivered_count,failed_count,opened_count,delivered_rate');
    expect(csv).toContain(`example.net,${api.items.find((i) => i.dimensions[0]!.value === 'example.net')!.metrics['accepted_count']},`);
    await expectAccessible('reporting with a breakdown');

    // Over time: a line per metric, and the table under it.
    await page.getByRole('checkbox', { name: 'Over time' }).check();
    await page.getByLabel('Break down by').selectOption('');
    await page.getByRole('button', { name: 'Remove filter 1' }).click();
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByRole('columnheader', { name: 'Time', exact: true }).waitFor();
    await results.locator('canvas').first().waitFor();

    await page.getByRole('tab', { name: 'Tags' }).click();
    const promo = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'promo', exact: true }) });
    await promo.waitFor();
    expect(await promo.getByRole('cell').nth(4).textContent()).toBe('3');
    await promo.getByRole('button', { name: 'Edit description of promo' }).click();
    await page.getByLabel('New description of promo').fill('Spring promotion');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await promo.getByRole('cell', { name: 'Spring promotion' }).waitFor();
    const tags = (await call(`${platform.us.url}/v1/analytics/tags`, { method: 'POST', body: '{}', contentType: 'application/json' })).json as { items: Array<{ tag: string; description: string }> };
    expect(tags.items.find((t) => t.tag === 'promo')?.description).toBe('Spring promotion');
    await promo.getByRole('button', { name: 'Stats of promo' }).click();
    await page.getByRole('heading', { name: 'Tag “promo”, last 30 days' }).waitFor();
    await page.getByRole('img', { name: /^Messages per day tagged promo/ }).waitFor();
    await expectAccessible('tags');
    await page.getByRole('button', { name: 'Delete news' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete tag' }).click();
    await page.getByRole('cell', { name: 'news', exact: true }).waitFor({ state: 'detached' });
    const after = (await call(`${platform.us.url}/v1/analytics/tags`, { method: 'POST', body: '{}', contentType: 'application/json' })).json as { items: Array<{ tag: string }> };
    expect(after.items.map((t) => t.tag)).toEqual(['promo']);
  });

  it('shows a read-only key no buttons that would fail on these pages', async () => {
    const basic = await apiKeys(sdk(platform.us.url)).create({ role: 'basic', kind: 'user', description: 'read only' });
    const reader = await context.browser()!.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const tab = await reader.newPage();
    await tab.goto(`${platform.us.url}/`);
    await tab.getByLabel('API key').fill(basic.secret);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    const nav = tab.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Inspect', exact: true }).click();
    await tab.getByText(/This key is read-only/).waitFor();
    expect(await tab.getByRole('button', { name: 'Run checks' }).count()).toBe(0);
    await nav.getByRole('link', { name: 'Previews', exact: true }).click();
    await tab.getByRole('heading', { name: 'Tests' }).waitFor();
    expect(await tab.getByRole('button', { name: 'Create test' }).count()).toBe(0);
    await nav.getByRole('link', { name: 'Reporting', exact: true }).click();
    await tab.getByRole('heading', { name: 'Results' }).waitFor();
    await tab.getByRole('tab', { name: 'Tags' }).click();
    await tab.getByRole('cell', { name: 'promo', exact: true }).waitFor();
    expect(await tab.getByRole('button', { name: /^(Edit description|Delete) / }).count()).toBe(0);
    await reader.close();
  });

  it('passes axe on each new page and scrolls none sideways on a phone', async () => {
    for (const viewport of [{ width: 1366, height: 768 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(viewport);
      for (const name of PAGES) {
        if (viewport.width < 700) await page.getByRole('button', { name: 'Menu' }).click();
        await open(name);
        await page.waitForLoadState('networkidle');
        expect({ name, viewport, overflow: await horizontalOverflow(page) }).toEqual({ name, viewport, overflow: 0 });
        if (viewport.width > 700) await expectAccessible(name);
      }
    }
    await page.setViewportSize({ width: 1366, height: 768 });
  });
});
