import { get, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import JSZip from 'jszip';
import nodemailer from 'nodemailer';
import sharp from 'sharp';
import packagedChromium from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';
import type { LocalPlatform } from '../../lib/local/platform';
import { updateItem } from '../../functions/data/store';
import { call, eventually, primaryAccountId, startTestPlatform } from '../support/platform';
import { previewKeys } from '../../functions/inspect/preview/preview-store';

// Email previews as a user meets them: JSON over HTTP against the local host, rendered for real in
// the Chromium `npm ci` installed, polled from processing to completed, the screenshots fetched
// and compared, exported and unzipped, and the share page opened in that same browser.
let platform: LocalPlatform;
let site: Server;
let siteUrl = '';
let browser: Browser;

const CLIENTS = ['gmail_chr26_win', 'appmail14', 'iphone15_17', 'outlookcom_chr26_win'];

// The banner's colour comes from a <style> in the body: Gmail and Outlook.com remove such styles,
// Apple Mail keeps them, so the banner is red in one screenshot and white in the other.
const EMAIL = () => `<!doctype html>
<html><head><meta charset="utf-8"><title>Preview</title></head>
<body style="margin:0">
<style>.banner { background: #ff0000; height: 240px; }</style>
<div class="banner"></div>
<p style="font-family: Arial, sans-serif">Spring sale: everything 20% off.</p>
<img src="${siteUrl}/photo.png" alt="A green square" width="120" height="120">
</body></html>`;

beforeAll(async () => {
  const photo = await sharp({ create: { width: 120, height: 120, channels: 3, background: '#00aa44' } }).png().toBuffer();
  site = createServer((req, res) => {
    if (req.url === '/photo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(photo);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  platform = await startTestPlatform();
  browser = await chromium.launch({ executablePath: process.env['CHROMIUM_PATH'] ?? (await packagedChromium.executablePath()), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'], headless: true });
});
afterAll(async () => {
  await browser?.close();
  await platform?.close();
  await new Promise((resolve) => site.close(resolve));
});

const url = (path: string) => `${platform.us.url}${path}`;
const send = (method: string, path: string, body?: unknown) => call(url(path), { method, contentType: 'application/json', body: body === undefined ? undefined : JSON.stringify(body) });

/** Bytes of a GET (screenshots, zips), with the status and headers. */
function fetchBytes(target: string, auth = true): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const headers: Record<string, string> = auth ? { authorization: `Basic ${Buffer.from('api:test-admin-key-0123456789abcdef').toString('base64')}` } : {};
  return new Promise((resolve, reject) => {
    get(target, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

/** The colour of one pixel of a PNG, as [r, g, b]. */
async function pixel(png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at]!, data[at + 1]!, data[at + 2]!];
}

/** How many pixels of a PNG are within a few levels of a colour. */
async function pixelsNear(png: Buffer, colour: number[]): Promise<number> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let count = 0;
  for (let at = 0; at < data.length; at += info.channels) if (colour.every((value, i) => Math.abs(data[at + i]! - value) <= 4)) count++;
  return count;
}

interface Info {
  completed: string[];
  processing: string[];
  bounced: string[];
}

const finished = (testId: string) =>
  eventually(async () => {
    const res = await send('GET', `/v2/preview/tests/${testId}`);
    const info = res.json as unknown as Info;
    return res.status === 200 && info.processing.length === 0 && info;
  });

let testId = '';

test('a test renders every client it names, and its screenshots are served once rendered (425 before)', async () => {
  const created = await send('POST', '/v2/preview/tests', { subject: 'Spring sale', html: EMAIL(), clients: [...CLIENTS, 'not_a_client'], image_blocking: true, content_checking: { accessibility: true } });
  expect(created.status).toBe(200);
  testId = created.json.id as string;
  expect(testId).toMatch(/^[A-Za-z0-9]{45}$/);
  expect(created.json.warnings).toEqual([{ name: 'invalid_client', message: 'Unknown client id: not_a_client' }]);
  const accessibility = (created.json.content_checking as Record<string, { items: { id: string; links: { self: string } } } | null>).accessibility!;
  expect(accessibility.items.links.self).toBe(`/v1/inspect/accessibility/${accessibility.items.id}`);

  const early = await fetchBytes(url(`/v1/preview/tests/${testId}/screenshots/appmail14/default.png`));
  expect(early.status).toBe(425);
  expect(early.headers['retry-after']).toBe('5');

  const info = await finished(testId);
  expect(info.completed.sort()).toEqual([...CLIENTS].sort());
  expect(info.bounced).toEqual([]);

  const results = (await send('GET', `/v1/preview/tests/${testId}/results`)).json as Record<string, { status: string; screenshots: Record<string, string>; thumbnail: string; fidelity: string; applied: string[]; status_details: { attempts: number } }>;
  expect(Object.keys(results).sort()).toEqual([...CLIENTS].sort());
  expect(Object.keys(results['iphone15_17']!.screenshots).sort()).toEqual(['default', 'horizontal', 'horizontal_no_images', 'no_images']);
  expect(results['appmail14']!.fidelity).toBe('high');
  expect(results['gmail_chr26_win']!.applied).toContain('<style> inside <body> removed');
  for (const clientId of CLIENTS) {
    const shot = await fetchBytes(results[clientId]!.screenshots['default']!);
    expect(shot.status).toBe(200);
    expect(shot.headers['content-type']).toBe('image/png');
    const meta = await sharp(shot.body).metadata();
    expect(meta.width).toBeGreaterThanOrEqual(390);
    expect(meta.height).toBeGreaterThan(240);
    const thumbnail = await sharp((await fetchBytes(results[clientId]!.thumbnail)).body).metadata();
    expect([thumbnail.width, thumbnail.height]).toEqual([200, 300]);
  }
  // The banner: red where the body <style> survives (Apple Mail), not where the client strips it (Gmail).
  const apple = (await fetchBytes(results['appmail14']!.screenshots['default']!)).body;
  const gmail = (await fetchBytes(results['gmail_chr26_win']!.screenshots['default']!)).body;
  expect(await pixel(apple, 50, 100)).toEqual([255, 0, 0]);
  expect(await pixel(gmail, 50, 100)).not.toEqual([255, 0, 0]);
  // Gmail's window is 1280 wide and the email a column at its left: the thumbnail is that column's top, photo and all.
  const gmailThumbnail = (await fetchBytes(results['gmail_chr26_win']!.thumbnail)).body;
  expect(await pixelsNear(gmailThumbnail, [0, 0xaa, 0x44])).toBeGreaterThan(100);
  // With images blocked the photo's pixels are not there.
  const withImages = (await fetchBytes(results['appmail14']!.screenshots['default']!)).body;
  const withoutImages = (await fetchBytes(results['appmail14']!.screenshots['no_images']!)).body;
  expect(withImages.equals(withoutImages)).toBe(false);
});

test('one client\'s result, and the errors for a client or test that is not there', async () => {
  const one = await send('GET', `/v2/preview/tests/${testId}/results/appmail14`);
  expect(Object.keys(one.json)).toEqual(['appmail14']);
  const missing = await send('GET', `/v2/preview/tests/${testId}/results/yahoo_chr26_win`);
  expect(missing.status).toBe(404);
  expect((missing.json.error as { name: string }).name).toBe('ClientNotFound');
  const unknown = await send('GET', `/v2/preview/tests/${'x'.repeat(45)}`);
  expect(unknown.status).toBe(404);
  expect((unknown.json.error as { name: string }).name).toBe('InvalidTestID');
  const noSubject = await send('POST', '/v2/preview/tests', { html: '<p>x</p>' });
  expect(noSubject.status).toBe(400);
  expect((noSubject.json.error as { name: string }).name).toBe('NoSubject');
});

test('reprocess renders a client again in a new run, within its budget', async () => {
  const res = await send('PUT', `/v1/preview/tests/${testId}/results/reprocess`, { clients: ['appmail14'] });
  expect(res.json).toEqual({ appmail14: { success: true, remaining_reprocesses: 19, regional: false } });
  expect((await send('PUT', `/v1/preview/tests/${testId}/results/reprocess`, { clients: ['yahoo_chr26_win'] })).status).toBe(400);
  const info = await finished(testId);
  expect(info.completed).toContain('appmail14');
});

test('content as sent, with its CSS inlined, and as text', async () => {
  expect((await send('GET', `/v1/preview/tests/${testId}/content`)).json.content).toBe(EMAIL());
  const inlined = (await send('GET', `/v1/preview/tests/${testId}/content/inlinecss`)).json.content as string;
  expect(inlined).toMatch(/<div class="banner" style="background: #ff0000; height: 240px;?"><\/div>/);
  expect((await send('GET', `/v1/preview/tests/${testId}/content/textonly`)).json.content).toContain('Spring sale: everything 20% off.');
  expect((await send('GET', `/v1/preview/tests/${testId}/content/pdf`)).status).toBe(400);
});

test('an export zips the chosen clients\' screenshots', async () => {
  const started = await send('POST', `/v2/preview/tests/${testId}/exports`, { test_id: testId, clients: ['appmail14', 'iphone15_17'] });
  expect(started.json.job_status).toBe('Processing');
  const job = await eventually(async () => {
    const latest = await send('GET', `/v2/preview/tests/${testId}/exports`);
    return latest.json.job_status === 'Completed' && latest.json;
  });
  expect(job.job_id).toBe(started.json.job_id);
  const zip = await fetchBytes(job.zip_url as string);
  expect(zip.status).toBe(200);
  const entries = Object.keys((await JSZip.loadAsync(zip.body)).files).sort();
  expect(entries).toEqual(expect.arrayContaining(['appmail14/default.png', 'appmail14/no_images.png', 'iphone15_17/horizontal.png', 'iphone15_17/thumbnail.png']));
  const png = await (await JSZip.loadAsync(zip.body)).file('appmail14/default.png')!.async('nodebuffer');
  expect((await sharp(png).metadata()).format).toBe('png');
});

test('a share opens as a web page showing every client, and a rotated or disabled link stops working', async () => {
  expect((await send('POST', '/v1/preview/sharing', { test_id: testId })).json).toEqual({ message: 'record created' });
  const share = (await send('GET', `/v1/preview/sharing/${testId}`)).json as { url: string; url_uuid: string; enabled: boolean; expires_at: string };
  expect(share.enabled).toBe(true);
  expect(Date.parse(share.expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);

  const page = await browser.newPage();
  try {
    const opened = await page.goto(share.url);
    expect(opened?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Spring sale: email previews');
    const images = page.locator('figure img');
    await expect(images.count()).resolves.toBe(CLIENTS.length);
    // Every screenshot loaded (a broken image has no natural width).
    await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0), undefined, { timeout: 15_000 });

    const publicJson = await call(url(`/v1/preview/sharing/public/${share.url_uuid}`), { key: null });
    expect((publicJson.json.results as unknown[]).length).toBe(CLIENTS.length);

    const rotated = (await send('POST', `/v1/preview/sharing/${testId}/rotate?url_uuid=${share.url_uuid}`)).json as { url: string; url_uuid: string };
    expect(rotated.url_uuid).not.toBe(share.url_uuid);
    expect((await page.goto(share.url))?.status()).toBe(404);
    expect((await page.goto(rotated.url))?.status()).toBe(200);

    expect((await send('PUT', `/v1/preview/sharing/${testId}?url_uuid=${rotated.url_uuid}`, { enabled: false })).status).toBe(200);
    expect((await page.goto(rotated.url))?.status()).toBe(404);
  } finally {
    await page.close();
  }
});

test('finished clients count in the usage metrics', async () => {
  const res = await send('POST', '/v1/analytics/usage/metrics', { duration: '1d', resolution: 'day', metrics: ['email_preview_count', 'email_preview_failed_count'], include_aggregates: true });
  expect(res.status).toBe(200);
  const totals = (res.json.aggregates as { metrics: Record<string, number> }).metrics;
  // Four clients and one reprocess (counted before the tests below add theirs).
  expect(totals['email_preview_count']).toBe(5);
  expect(totals['email_preview_failed_count']).toBe(0);
  // And in the stats API, as the spec's stats items name them.
  const stats = await send('GET', '/v3/stats/total?event=email_preview&event=email_preview_failed&duration=1d&resolution=day');
  expect(stats.status).toBe(200);
  const [item] = (stats.json.stats as Array<Record<string, { total: number }>>).slice(-1);
  expect(item).toMatchObject({ email_preview: { total: 5 }, email_preview_failed: { total: 0 } });
});

test('a client left processing over 3 minutes (its execution lost) is re-queued by a read, and bounced once its attempts are spent', async () => {
  const accountId = await primaryAccountId(platform.us);
  const stale = Math.floor(Date.now() / 1000) - 200;
  // As if the execution rendering appmail14 had died in its first attempt, 200 s ago.
  await platform.us.run(() => updateItem(previewKeys.previewClient(accountId, testId, 'appmail14'), { status: 'Processing', submitted: stale, attempts: 1 }));
  const requeued = (await send('GET', `/v2/preview/tests/${testId}/results/appmail14`)).json['appmail14'] as { status: string; status_details: { attempts: number } };
  expect(requeued.status).toBe('Processing');
  const after = await eventually(async () => {
    const one = (await send('GET', `/v2/preview/tests/${testId}/results/appmail14`)).json['appmail14'] as { status: string; status_details: { attempts: number } };
    return one.status === 'Complete' && one;
  });
  // The re-queue is the second attempt.
  expect(after.status_details.attempts).toBe(2);
  await platform.us.run(() => updateItem(previewKeys.previewClient(accountId, testId, 'appmail14'), { status: 'Processing', submitted: stale, attempts: 3 }));
  const info = (await send('GET', `/v2/preview/tests/${testId}`)).json as unknown as Info;
  expect(info.bounced).toEqual(['appmail14']);
  const bounced = (await send('GET', `/v2/preview/tests/${testId}/results/appmail14`)).json['appmail14'] as { status_details: { bounce_code: string } };
  expect(bounced.status_details.bounce_code).toBe('render_timeout');
});

test('mail sent to the preview address becomes a preview test, its clients named by X-EOA-CLIENTS', async () => {
  const address = (await send('POST', '/v2/preview/address')).json.preview_address as string;
  expect(address).toMatch(/^preview-[0-9a-f]{16}@preview\.localhost$/);
  expect((await send('POST', '/v1/preview/address')).json.preview_address).toBe(address);
  const [local, domain] = address.split('@');
  const smtp = nodemailer.createTransport({ host: platform.us.inboundSmtp.host, port: platform.us.inboundSmtp.port, secure: false, ignoreTLS: true });
  await smtp.sendMail({ from: 'designer@example.org', to: `${local}+campaign-7@${domain}`, subject: 'Mailed in', html: '<h1>Hello from the inbox</h1>', headers: { 'X-EOA-CLIENTS': 'appmail14, gmail_chr26_win', 'X-EOA-REFERENCE-ID': 'ref-42' } });
  const listed = await eventually(async () => {
    const all = (await send('GET', '/v2/preview/tests?subject=mailed')).json as unknown as Array<{ id: string }>;
    return all.length === 1 && all[0];
  });
  const info = await finished(listed.id);
  expect(info.completed.sort()).toEqual(['appmail14', 'gmail_chr26_win']);
  expect((await send('GET', `/v2/preview/tests?customer_id=campaign-7`)).json).toHaveLength(1);
  expect((await send('GET', `/v1/preview/tests/${listed.id}/content`)).json.content).toContain('Hello from the inbox');
  await send('DELETE', `/v2/preview/tests/${listed.id}`);
});

test('deleting a test deletes its results and screenshots for good', async () => {
  const shotUrl = url(`/v1/preview/tests/${testId}/screenshots/appmail14/default.png`);
  expect((await send('DELETE', `/v2/preview/tests/${testId}`)).json).toEqual({ success: true });
  expect((await send('GET', `/v2/preview/tests/${testId}`)).status).toBe(404);
  expect((await fetchBytes(shotUrl)).status).toBe(404);
  expect((await send('GET', '/v2/preview/tests')).json).toEqual([]);
});

test('an email with a meta refresh renders as it is: the refresh navigates nowhere, to another page or to a reload', async () => {
  const refreshing = (meta: string) => `<!doctype html><html><head>${meta}</head><body style="margin:0"><div style="background:#ff0000;height:240px"></div><p>Sale</p></body></html>`;
  const ids: string[] = [];
  for (const meta of ['<meta http-equiv="refresh" content="0;url=https://example.com/">', '<meta http-equiv="Refresh" content="0">', '<p><meta http-equiv="refresh" content="1; url=about:blank"></p>']) {
    const created = await send('POST', '/v2/preview/tests', { subject: 'Refresh', html: refreshing(meta), clients: ['appmail14'] });
    expect(created.status).toBe(200);
    ids.push(created.json.id as string);
  }
  for (const id of ids) {
    const info = await finished(id);
    expect([info.completed, info.bounced]).toEqual([['appmail14'], []]);
    const results = (await send('GET', `/v1/preview/tests/${id}/results`)).json as Record<string, { screenshots: Record<string, string> }>;
    const shot = (await fetchBytes(results['appmail14']!.screenshots['default']!)).body;
    expect(await pixel(shot, 50, 100)).toEqual([255, 0, 0]);
    await send('DELETE', `/v2/preview/tests/${id}`);
  }
}, 120_000);

test('a render that keeps crashing is tried three times, then the client is bounced', async () => {
  // A platform whose Chromium cannot start: every attempt fails as a crashed render would.
  const broken = await startTestPlatform({ env: { CHROMIUM_PATH: '/bin/false' }, workflowRetryIntervalMs: 50 });
  try {
    const created = await call(`${broken.us.url}/v2/preview/tests`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ subject: 'Crash', html: '<p>x</p>', clients: ['appmail14'] }) });
    const id = created.json.id as string;
    const result = await eventually(async () => {
      const res = await call(`${broken.us.url}/v2/preview/tests/${id}/results/appmail14`);
      const one = (res.json as Record<string, { status: string; status_details: { attempts: number; bounce_code: string; bounce_message: string } }>)['appmail14'];
      return one?.status === 'Bounced' && one;
    });
    expect(result.status_details.attempts).toBe(3);
    expect(result.status_details.bounce_code).toBe('render_failed');
    expect(result.status_details.bounce_message).toMatch(/^Rendering failed after 3 attempts: /);
    const reprocess = await call(`${broken.us.url}/v1/preview/tests/${id}/results/reprocess`, { method: 'PUT', contentType: 'application/json', body: JSON.stringify({ clients: ['appmail14'] }) });
    expect(reprocess.json).toEqual({ appmail14: { success: false, reason: 'A bounced client cannot be reprocessed' } });
    // An export of nothing but a bounced client ends Failed, naming it.
    const started = await call(`${broken.us.url}/v2/preview/tests/${id}/exports`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ test_id: id, clients: ['appmail14'] }) });
    const job = await eventually(async () => {
      const res = await call(`${broken.us.url}/v2/preview/tests/${id}/exports/${started.json.job_id as string}`);
      return res.json.job_status !== 'Processing' && res.json;
    });
    expect(job).toMatchObject({ job_status: 'Failed', failed_clients: ['appmail14'], error: { code: 'no_screenshots' } });
    expect(job.zip_url).toBeUndefined();
  } finally {
    await broken.close();
  }
});
