import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { LocalPlatform } from '../../lib/local/platform';
import { ADMIN_KEY, call, eventually, startTestPlatform } from '../support/platform';

// The four inspection checks as a user meets them: JSON over HTTP against the local host, a site
// on this machine to check, each test polled from Processing to its final status word.
let platform: LocalPlatform;
let site: Server;
let siteUrl = '';
let photo: Buffer;
let logo: Buffer;
let corrupt: Buffer;

const EMAIL = () =>
  [
    '<!doctype html>',
    '<html><head><style>@media (max-width: 600px) { .col { display: block !important; } }</style></head>',
    '<body>',
    '<table width="600"><tr><td style="display: flex">',
    `<a href="${siteUrl}/ok">Shop</a>`,
    `<a href="${siteUrl}/gone">Old offer</a>`,
    `<img src="${siteUrl}/photo.jpg" width="300">`,
    `<img src="${siteUrl}/logo.png" alt="Logo" width="50" height="50">`,
    '</td></tr></table>',
    '</body></html>',
  ].join('\n');

beforeAll(async () => {
  photo = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#3a6' } }).jpeg({ quality: 100 }).toBuffer();
  logo = await sharp({ create: { width: 100, height: 100, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } }).png().toBuffer();
  // A PNG whose header reads fine and whose pixel data fails its checksum, as a damaged export does.
  corrupt = Buffer.from(logo);
  corrupt[corrupt.indexOf('IDAT') + 9]! ^= 0xff;
  site = createServer((req, res) => {
    if (req.url === '/ok') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
    if (req.url === '/photo.jpg') return void res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
    if (req.url === '/logo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(logo);
    if (req.url === '/corrupt.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(corrupt);
    if (req.url === '/email.html') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(EMAIL());
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.close();
  await new Promise((resolve) => site.close(resolve));
});

const url = (path: string) => `${platform.us.url}${path}`;
const post = (path: string, body: unknown) => call(url(path), { method: 'POST', contentType: 'application/json', body: JSON.stringify(body) });
const lineOf = (needle: string) => EMAIL().split('\n').findIndex((line) => line.includes(needle)) + 1;

/** GETs a test until its status is no longer Processing. */
function settled(path: string) {
  return eventually(async () => {
    const res = await call(url(path));
    const meta = res.json.meta as { status?: string } | undefined;
    return res.status === 200 && meta?.status !== 'Processing' && res;
  });
}

type LinkResult = { url: string; status: string; status_code: number | null; line: number; failures: Array<{ rule: string }> };

describe('link validation', () => {
  let testId = '';

  it('checks the links of an email and points each result at its line', async () => {
    const created = await post('/v1/inspect/links/html-validate', { html: EMAIL() });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ meta: { status: 'Processing' }, items: { id: expect.stringMatching(/^[0-9a-f]{24}$/) } });
    testId = (created.json.items as { id: string }).id;
    const done = await settled(`/v1/inspect/links/${testId}`);
    expect((done.json.meta as { status: string }).status).toBe('Completed');
    const results = (done.json.items as { results: LinkResult[] }).results;
    expect(results.map((r) => [r.url, r.status, r.status_code, r.line])).toEqual([
      [`${siteUrl}/ok`, 'Valid', 200, lineOf('/ok"')],
      [`${siteUrl}/gone`, 'Invalid', 404, lineOf('/gone"')],
    ]);
    expect(results[1]!.failures.map((f) => f.rule)).toContain('Broken Link');
  });

  it('compares the results with an uploaded CSV of expected links', async () => {
    const csv = `url,expected_status\n${siteUrl}/ok,200\n${siteUrl}/gone,200\n`;
    const boundary = 'xyz';
    const body = [`--${boundary}`, 'Content-Disposition: form-data; name="csv"; filename="links.csv"', 'Content-Type: text/csv', '', csv, `--${boundary}--`, ''].join('\r\n');
    const res = await call(url(`/v1/inspect/links/${testId}/csv`), { method: 'POST', contentType: `multipart/form-data; boundary=${boundary}`, body });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ meta: { status: 'Complete' }, items: { valid: false, errors: [expect.objectContaining({ row: 2, message: `${siteUrl}/gone answered 404, expected 200` })] } });
  });

  it('reprocesses, lists with page tokens, and deletes', async () => {
    const again = await call(url(`/v1/inspect/links/${testId}`), { method: 'POST' });
    expect(again.json).toMatchObject({ meta: { status: 'Processing' }, items: { id: testId } });
    await settled(`/v1/inspect/links/${testId}`);
    const second = (await post('/v1/inspect/links', { links: [`${siteUrl}/ok`], userAgent: null })).json.items as { id: string };
    await settled(`/v1/inspect/links/${second.id}`);
    const first = await call(url('/v1/inspect/links?limit=1'));
    expect(first.json.meta).toEqual({ count: 2 });
    expect((first.json.items as Array<{ id: string }>).map((t) => t.id)).toEqual([second.id]);
    const next = await call((first.json.paging as { next: string }).next);
    expect((next.json.items as Array<{ id: string }>).map((t) => t.id)).toEqual([testId]);
    const filtered = await call(url('/v1/inspect/links?statusCode=404'));
    expect((filtered.json.items as Array<{ id: string }>).map((t) => t.id)).toEqual([testId]);
    expect((await call(url(`/v1/inspect/links/${second.id}`), { method: 'DELETE' })).status).toBe(200);
    const gone = await call(url(`/v1/inspect/links/${second.id}`), { method: 'DELETE' });
    expect(gone.status).toBe(404);
    expect(gone.json.message).toMatch(/not found/);
  });

  it('fetches the email by URL, and ends Failed with the reason when the URL does not answer with it', async () => {
    const byUrl = (await post('/v1/inspect/links/html-validate', { url: `${siteUrl}/email.html` })).json.items as { id: string };
    const done = await settled(`/v1/inspect/links/${byUrl.id}`);
    expect((done.json.items as { results: LinkResult[] }).results).toHaveLength(2);
    const missing = (await post('/v1/inspect/links/html-validate', { url: `${siteUrl}/nothing-here` })).json.items as { id: string };
    const failed = await settled(`/v1/inspect/links/${missing.id}`);
    expect(failed.json.meta).toEqual({ status: 'Failed' });
  });
});

describe('image validation and optimisation', () => {
  it('checks the images of an email, optimises them, and serves the optimised files', async () => {
    const created = await post('/v1/inspect/images/html-validate', { html: Buffer.from(EMAIL()).toString('base64'), transfer_encoding: 'base64' });
    const id = (created.json.items as { id: string }).id;
    const done = await settled(`/v1/inspect/images/${id}`);
    expect((done.json.meta as { status: string }).status).toBe('Complete');
    const images = (done.json.items as { images: Array<{ id: string; url: string; status: string; line: number; failures: Array<{ rule: string }> }> }).images;
    expect(images.map((i) => [i.url, i.line])).toEqual([
      [`${siteUrl}/photo.jpg`, lineOf('photo.jpg')],
      [`${siteUrl}/logo.png`, lineOf('logo.png')],
    ]);
    expect(images[0]!.failures.map((f) => f.rule)).toEqual(expect.arrayContaining(['Missing Alt Text', 'Oversized Image']));

    const optimized = await call(url(`/v1/inspect/images/${id}/optimize`), { method: 'POST' });
    expect(optimized.status).toBe(200);
    const [optimization] = optimized.json.items as Array<{ optimized_images: Array<{ original_image_id: string; status: string; optimized_file_size: string; optimized_url: string }> }>;
    const photoResult = optimization!.optimized_images.find((o) => o.original_image_id === images[0]!.id)!;
    expect(photoResult.status).toBe('Complete');
    expect(Number(photoResult.optimized_file_size)).toBeLessThan(photo.length);
    const download = await new Promise<{ status: number; type?: string; body: Buffer }>((resolve, reject) => {
      const req = request(photoResult.optimized_url, { headers: { authorization: `Basic ${Buffer.from(`api:${ADMIN_KEY}`).toString('base64')}` } }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect([download.status, download.type, download.body.length]).toEqual([200, 'image/jpeg', Number(photoResult.optimized_file_size)]);
    expect((await sharp(download.body).metadata()).width).toBe(600);

    const one = await call(url(`/v1/inspect/images/${id}/optimize/${images[1]!.id}`), { method: 'POST' });
    expect((one.json.items as { optimized_images: unknown[] }).optimized_images).toHaveLength(1);
    expect((await call(url(`/v1/inspect/images/${id}/optimize/ffffffffffffffffffffffff`), { method: 'POST' })).status).toBe(404);
    const shown = await call(url(`/v1/inspect/images/${id}`));
    expect((shown.json.items as { image_optimization?: { optimized_images: unknown[] } }).image_optimization!.optimized_images).toHaveLength(2);
  });

  it('analyses an upload at once, and lists tests with limit and skip', async () => {
    const boundary = 'img';
    const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`), logo, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const uploaded = await call(url('/v1/inspect/images/upload'), { method: 'POST', contentType: `multipart/form-data; boundary=${boundary}`, body });
    expect(uploaded.status).toBe(200);
    expect(uploaded.json.meta).toEqual({ status: 'Complete' });
    expect((uploaded.json.items as { images: Array<{ status: string }> }).images[0]!.status).toBe('Valid');
    const page = await call(url('/v1/inspect/images?limit=1&skip=1'));
    expect(page.json.meta).toEqual({ count: 2 });
    expect((page.json.paging as { first: string }).first).toBe(url('/v1/inspect/images?limit=1&skip=0'));
    expect(page.json.items).toHaveLength(1);
  });
});

describe('accessibility', () => {
  it('answers 201, ends Complete, and points each failure at its line', async () => {
    const created = await post('/v1/inspect/accessibility', { html: EMAIL() });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ meta: { status: 'Processing', created_at: expect.any(String) }, items: { id: expect.any(String) } });
    const id = (created.json.items as { id: string }).id;
    const done = await settled(`/v1/inspect/accessibility/${id}`);
    expect((done.json.meta as { status: string }).status).toBe('Complete');
    const [report] = done.json.items as Array<{ checks: number; failures: Array<{ id: string; instances: Array<{ lineNumber: number }> }> }>;
    expect(report!.failures.find((f) => f.id === 'image-alt')!.instances[0]!.lineNumber).toBe(lineOf('photo.jpg'));
    const list = await call(url('/v1/inspect/accessibility'));
    expect(list.json.items).toEqual([expect.objectContaining({ id, status: 'Complete', checks: report!.checks, failures: report!.failures.length })]);
  });

  it('refuses a create without html in its own error shape', async () => {
    const res = await post('/v1/inspect/accessibility', { encoded: true });
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([{ status: '400', title: 'Bad Request', detail: ["'html' is required: the email's HTML as a string"] }]);
  });
});

describe('code analysis', () => {
  it('finds the features, keeps versions and resolved marks, and deletes every version', async () => {
    const created = await post('/v1/inspect/analyze', { html: EMAIL() });
    expect(created.json).toMatchObject({ meta: { status: 'Processing', version: 1 } });
    const id = (created.json.items as { id: string }).id;
    const done = await settled(`/v1/inspect/analyze/${id}`);
    expect(done.json.meta).toMatchObject({ status: 'Completed', version: 1 });
    const features = (done.json.items as { features: Array<{ slug: string; instances: Array<{ id: string; line: number }> }> }).features;
    const flex = features.find((f) => f.slug === 'css-display-flex')!;
    expect(flex.instances[0]!.line).toBe(lineOf('display: flex'));
    expect(features.map((f) => f.slug)).toEqual(expect.arrayContaining(['css-at-media', 'html-style', 'css-important']));

    const resolved = await post(`/v1/inspect/analyze/${id}/resolve/${flex.instances[0]!.id}`, { resolved: true });
    expect((resolved.json.items as { features: typeof features }).features.find((f) => f.slug === 'css-display-flex')!.instances[0]).toMatchObject({ resolved: true });

    const v2 = await post(`/v1/inspect/analyze/${id}`, { html: EMAIL() });
    expect(v2.json).toMatchObject({ meta: { status: 'Processing', version: 2 }, items: { id } });
    const latest = await settled(`/v1/inspect/analyze/${id}?slug=css-display-flex&support_type=n`);
    expect(latest.json.meta).toMatchObject({ status: 'Completed', version: 2, count: 1 });
    const latestFlex = (latest.json.items as { features: Array<{ instances: Array<{ resolved: boolean }>; support: Record<string, unknown[]> }> }).features[0]!;
    expect(latestFlex.instances[0]!.resolved).toBe(true);
    expect(latestFlex.support['y']).toEqual([]);

    const versions = await call(url(`/v1/inspect/analyze/${id}/versions`));
    const listed = (versions.json.items as { versions: Array<{ id: string; version: number }> }).versions;
    expect(versions.json.meta).toEqual({ count: 2 });
    const first = await call(url(`/v1/inspect/analyze/${id}/versions/${listed[0]!.id}`));
    expect(first.json.meta).toMatchObject({ status: 'Completed', version: 1 });

    expect((await call(url('/v1/inspect/analyze'))).status).toBe(400);
    const list = await call(url('/v1/inspect/analyze?limit=10&status=completed'));
    expect(list.json.items).toEqual([expect.objectContaining({ test_id: id, version: 2, status: 'Completed' })]);
    expect((await call(url(`/v1/inspect/analyze/${id}`), { method: 'DELETE' })).json).toEqual({ message: `Test ${id} has been successfully deleted.` });
    const gone = await call(url(`/v1/inspect/analyze/${id}`), { method: 'DELETE' });
    expect([gone.status, typeof gone.json.Description]).toEqual([404, 'string']);
  });

  it('serves the dictionary', async () => {
    const res = await call(url('/v1/inspect/analyze/dictionary'));
    expect(Object.keys(res.json.lookups as object).sort()).toEqual(['application_type', 'categories', 'clients', 'platforms', 'support_levels', 'variants']);
  });
});

test('finished tests count in the usage metrics, failed ones as failed', async () => {
  const res = await post('/v1/analytics/usage/metrics', { duration: '1d', resolution: 'day', metrics: ['link_validation_count', 'link_validation_failed_count', 'image_validation_count', 'accessibility_count'], include_aggregates: true });
  expect(res.status).toBe(200);
  const totals = (res.json.aggregates as { metrics: Record<string, number> }).metrics;
  // Link runs: two of the first test, one of the second, the email by URL, and the URL that failed.
  expect(totals).toEqual({ link_validation_count: 5, link_validation_failed_count: 1, image_validation_count: 2, accessibility_count: 1 });
});

// After the usage totals above, which count the image tests made before it.
describe('an image that cannot be decoded', () => {
  it('finds an image that cannot be decoded, and optimize answers it with a 400 that says so', async () => {
    const boundary = 'img';
    const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="broken.png"\r\nContent-Type: image/png\r\n\r\n`), corrupt, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const uploaded = await call(url('/v1/inspect/images/upload'), { method: 'POST', contentType: `multipart/form-data; boundary=${boundary}`, body });
    expect(uploaded.status).toBe(200);
    const { id, images } = uploaded.json.items as { id: string; images: Array<{ id: string; url: string; status: string; failures: Array<{ rule: string; impact: string }> }> };
    expect(images[0]!.status).toBe('Invalid');
    expect(images[0]!.failures).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'Corrupt Image', impact: 'critical' })]));

    for (const path of [`/v1/inspect/images/${id}/optimize`, `/v1/inspect/images/${id}/optimize/${images[0]!.id}`]) {
      const optimized = await call(url(path), { method: 'POST' });
      expect([optimized.status, optimized.json.message]).toEqual([400, `Image ${images[0]!.url} cannot be optimized: the PNG cannot be decoded (its data is damaged or cut off)`]);
    }
    // Nothing was recorded as an optimisation.
    expect((await call(url(`/v1/inspect/images/${id}`))).json.items).not.toHaveProperty('image_optimization');

    // Beside an image that decodes, the broken one is an Error entry and the other is optimised.
    const html = `<img src="${siteUrl}/photo.jpg" alt="Photo"><img src="${siteUrl}/corrupt.png" alt="Broken">`;
    const mixed = ((await post('/v1/inspect/images/html-validate', { html })).json.items as { id: string }).id;
    const done = await settled(`/v1/inspect/images/${mixed}`);
    const checked = (done.json.items as { images: Array<{ id: string; url: string; status: string }> }).images;
    expect(checked.map((i) => [i.url, i.status])).toEqual([[`${siteUrl}/photo.jpg`, 'Valid'], [`${siteUrl}/corrupt.png`, 'Invalid']]);
    const both = await call(url(`/v1/inspect/images/${mixed}/optimize`), { method: 'POST' });
    expect(both.status).toBe(200);
    const entries = (both.json.items as Array<{ optimized_images: Array<{ original_image_id: string; status: string; error_message: string | null }> }>)[0]!.optimized_images;
    expect(entries.map((e) => [e.original_image_id, e.status, e.error_message])).toEqual([
      [checked[0]!.id, 'Complete', null],
      [checked[1]!.id, 'Error', 'the PNG cannot be decoded (its data is damaged or cut off)'],
    ]);
  });
});
