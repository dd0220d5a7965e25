import packagedChromium from '@sparticuz/chromium';
import { chromium } from 'playwright-core';
import type { RouteSpec } from '../../functions/platform/http/route';
import { routes } from '../../functions/routes';
import type { LocalPlatform } from '../../lib/local/platform';
import { validateOpenApi } from '../support/openapi-validator';
import { sdkCoverage } from '../support/sdk-paths';
import { call, startTestPlatform } from '../support/platform';
import { checkLinks } from '../../functions/inspect/links/link-checker';

// The API reference: GET /openapi.json (generated from the route table and the operations' zod
// schemas) and GET /docs (Swagger UI from its npm package), public, in both regions.

interface Operation {
  operationId: string;
  security: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required: string[] }> };
}

/**
 * What mailgun.js calls that this platform does not serve, each outside the service spec. The test
 * fails when one becomes served (take it off) or another goes unserved (serve it, or add it here).
 */
const NOT_SERVED: Record<string, string> = {
  'GET /v4/address/validate': "Mailgun's address validation product",
  'GET /v4/address/validate/bulk': "Mailgun's address validation product",
  'GET /v4/address/validate/bulk/{}': "Mailgun's address validation product",
  'DELETE /v4/address/validate/bulk/{}': "Mailgun's address validation product",
  'GET /v3/lists/{}/validate': "the address validation product's mailing list verification",
  'POST /v3/lists/{}/validate': "the address validation product's mailing list verification",
  'DELETE /v3/lists/{}/validate': "the address validation product's mailing list verification",
  'POST /v1/keys/public': "the address validation product's public key",
  'POST /v2/bounce-classification/metrics': "Mailgun's bounce classification analytics",
  'POST /v5/accounts/resend_activation_email': "Mailgun's own sign-up: accounts here are made by the operator",
  // The SDK's paging helpers fetch whatever URL a page gave them: not a path of the SDK's own.
  'GET /{}': 'a URL handed to the SDK (a page link)',
};

let platform: LocalPlatform;
let document: Document;

beforeAll(async () => {
  platform = await startTestPlatform();
  const res = await call(`${platform.us.url}/openapi.json`, { key: null });
  expect(res.status).toBe(200);
  expect(res.contentType).toBe('application/json');
  document = res.json as unknown as Document;
}, 60_000);
afterAll(() => platform.close());

const templateOf = (route: RouteSpec) => route.path.replace(/\{(\w+)\+\}/g, '{$1}');
const operationOf = (route: RouteSpec) => document.paths[templateOf(route)]?.[route.method.toLowerCase()];

test('is a valid OpenAPI 3 document, served by both regions without a key', async () => {
  expect(document.openapi).toMatch(/^3\./);
  expect(await validateOpenApi(document)).toEqual({ valid: true, errors: [] });
  const eu = await call(`${platform.eu.url}/openapi.json`, { key: null });
  expect(eu.status).toBe(200);
  expect(eu.json).toEqual(document);
});

test('has an operation for every row of the route table, secured by the row\'s access, with its path parameters', () => {
  const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
  expect(operations).toHaveLength(routes.length);
  for (const route of routes) {
    const operation = operationOf(route);
    expect([route.method, route.path, operation === undefined]).toEqual([route.method, route.path, false]);
    expect(operation!.security).toEqual(route.access === 'public' ? [] : [{ basicAuth: [] }]);
    const pathParams = (operation!.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
    expect(pathParams).toEqual([...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]));
  }
});

test('describes query parameters and bodies from the zod schemas, offering both form encodings and JSON', () => {
  const list = operationOf(routes.find((r) => r.operation === 'listTemplates')!)!;
  expect(list.parameters!.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(expect.arrayContaining(['limit', 'page', 'p', 'active']));
  const create = operationOf(routes.find((r) => r.operation === 'createTemplate')!)!;
  expect(Object.keys(create.requestBody!.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
  const body = create.requestBody!.content['application/x-www-form-urlencoded']!.schema;
  expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['name', 'description', 'template', 'tag', 'comment']));
  expect(body).toMatchObject({ required: ['name'] });
});

test('gives every operation its error shape, with the field Mailgun uses on that route', () => {
  expect(document.components.schemas['Error']!.required).toEqual(['message']);
  for (const route of routes) {
    const error = operationOf(route)!.responses['4XX']!.content!['application/json']!.schema;
    const expected = { message: 'Error', Reason: 'ErrorWithReason', Description: 'ErrorWithDescription' }[route.errorField ?? 'message'];
    expect(error).toEqual({ $ref: `#/components/schemas/${expected}` });
  }
});

test('covers every path the official JS SDK (mailgun.js) calls, but for what the platform leaves out on purpose', async () => {
  const served = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
  const { requests, unserved } = await sdkCoverage(served);
  expect(requests).toBeGreaterThan(150);
  // Placeholders stand where the SDK puts the caller's values.
  const shapes = new Set(unserved.map((request) => request.replace(/\/(sample\d+|%5Bobject%20Object%5D|\[object%20Object\])(?=\/|$)/g, '/{}')));
  expect([...shapes].sort()).toEqual(Object.keys(NOT_SERVED).sort());
}, 120_000);

test('serves the reference page with a policy that runs only its own scripts, and its renderer from this host', async () => {
  const page = await call(`${platform.us.url}/docs`, { key: null });
  expect(page.status).toBe(200);
  expect(page.contentType).toBe('text/html; charset=utf-8');
  const scripts = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
  expect(scripts).toEqual(['/docs/swagger-ui-bundle.js', '/docs/reference.js']);
  expect(page.text).not.toMatch(/<script>|https?:\/\//);
  for (const script of scripts) {
    const file = await call(`${platform.us.url}${script}`, { key: null });
    expect([script, file.status, file.contentType]).toEqual([script, 200, 'text/javascript; charset=utf-8']);
  }
  const missing = await call(`${platform.us.url}/docs/secrets.json`, { key: null });
  expect([missing.status, missing.json]).toEqual([404, { message: 'No file secrets.json in the API reference' }]);
  const inherited = await call(`${platform.us.url}/docs/constructor`, { key: null });
  expect(inherited.status).toBe(404);
});

test('answers HEAD of the reference and its files as their GET without the body, so a link to /docs checks as working', async () => {
  for (const path of ['/docs', '/docs/reference.js', '/openapi.json']) {
    const [get, head] = [await call(`${platform.us.url}${path}`, { key: null }), await call(`${platform.us.url}${path}`, { method: 'HEAD', key: null })];
    expect([path, head.status, head.contentType, head.headers['content-length'], head.text]).toEqual([path, 200, get.contentType, String(Buffer.byteLength(get.text)), '']);
  }
  expect((await call(`${platform.us.url}/docs/secrets.json`, { method: 'HEAD', key: null })).status).toBe(404);
  // HEAD of an authenticated API route stays unrouted, as on API Gateway without a HEAD route.
  expect((await call(`${platform.us.url}/v4/domains`, { method: 'HEAD' })).status).toBe(404);
  const [docs] = await checkLinks([{ url: `${platform.us.url}/docs` }], { policy: { allowLoopback: true } });
  expect(docs).toMatchObject({ status: 'Valid', status_code: 200 });
});

test('renders in Chromium from this host alone, with no script refused by its policy', async () => {
  const browser = await chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? (await packagedChromium.executablePath()),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    headless: true,
  });
  try {
    const page = await browser.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    // A deep link opens the operation: its path parameter shows once the document was read and rendered.
    await page.goto(`${platform.us.url}/docs#/messages/messages-sendMessage`);
    await page.getByRole('heading', { name: /Mailplane API/ }).waitFor();
    const send = page.locator('#operations-messages-messages-sendMessage');
    await send.locator('.opblock-summary-path[data-path="/v3/{domain}/messages"]').waitFor();
    await send.locator('.parameters-col_name', { hasText: 'domain' }).waitFor();
    const origin = new URL(platform.us.url).origin;
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(requested).toContain(`${origin}/openapi.json`);
    expect(problems).toEqual([]);
  } finally {
    await browser.close();
  }
}, 120_000);
