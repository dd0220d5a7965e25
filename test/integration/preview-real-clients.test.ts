import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, startTestPlatform } from '../support/platform';

// The real-client tier behind the preview contract: with Email on Acid configured, its clients
// join the catalog as `real`, a test naming them is created there, and each finished client's
// screenshots are copied into our storage and served like an emulated client's. Email on Acid is
// a stand-in on loopback speaking its API v5 (Basic auth, /email/clients, /email/tests, results),
// answering `Processing` before `Complete` as the service does while it renders.
let platform: LocalPlatform;
let service: Server;
let png: Buffer;
const created: Array<{ subject: string; html: string; clients: string[] }> = [];
let polls = 0;

const AUTH = `Basic ${Buffer.from('eoa-key:eoa-password').toString('base64')}`;

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => resolve(text));
  });
}

beforeAll(async () => {
  png = await sharp({ create: { width: 640, height: 900, channels: 3, background: '#123456' } }).png().toBuffer();
  service = createServer((req, res) => {
    void (async () => {
      const json = (status: number, value: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.headers.authorization !== AUTH) return json(401, { error: { name: 'AccessDenied', message: 'Invalid credentials' } });
      const base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
      if (req.method === 'GET' && req.url === '/v5/email/clients') {
        return json(200, { clients: { outlook16: { id: 'outlook16', client: 'Outlook 2016', os: 'Windows', category: 'Application', browser: '', rotate: false, image_blocking: true, default: false }, iphone6p_9: { id: 'iphone6p_9', client: 'iPhone 6 Plus', os: 'iOS 9', category: 'Mobile', rotate: true, image_blocking: false } } });
      }
      if (req.method === 'POST' && req.url === '/v5/email/tests') {
        created.push(JSON.parse(await body(req)) as (typeof created)[number]);
        return json(200, { id: 'remote-test-1' });
      }
      if (req.method === 'GET' && req.url === '/v5/email/tests/remote-test-1/results') {
        polls++;
        const done = polls > 1;
        return json(200, {
          outlook16: { id: 'outlook16', status: done ? 'Complete' : 'Processing', screenshots: done ? { default: `${base}/shots/outlook16.png` } : {}, thumbnail: done ? `${base}/shots/outlook16-thumb.png` : '', status_details: { bounce_code: '', bounce_message: '' } },
          iphone6p_9: { id: 'iphone6p_9', status: 'Bounced', screenshots: {}, status_details: { bounce_code: '550 5.5.0', bounce_message: 'Mailbox unavailable' } },
        });
      }
      if (req.method === 'GET' && req.url?.startsWith('/shots/')) return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      json(404, { error: { name: 'NotFound', message: req.url } });
    })();
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}/v5`;
  platform = await startTestPlatform({ env: { PREVIEW_REAL_CLIENTS: 'emailonacid', EOA_API_URL: url, EOA_API_KEY: 'eoa-key', EOA_PASSWORD: 'eoa-password', PREVIEW_REAL_POLL_SECONDS: '0.2' } });
});
afterAll(async () => {
  await platform?.close();
  await new Promise((resolve) => service.close(resolve));
});

const send = (method: string, path: string, json?: unknown) => call(`${platform.us.url}${path}`, { method, contentType: 'application/json', body: json === undefined ? undefined : JSON.stringify(json) });

function bytes(url: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { authorization: `Basic ${Buffer.from('api:test-admin-key-0123456789abcdef').toString('base64')}` }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

test("the service's clients join the catalog as real ones, over the emulated client of the same id", async () => {
  const catalog = (await send('GET', '/v1/preview/tests/clients')).json.clients as Record<string, { fidelity: string; client: string }>;
  expect(catalog['outlook16']).toMatchObject({ client: 'Outlook 2016', fidelity: 'real' });
  expect(catalog['iphone6p_9']).toMatchObject({ client: 'iPhone 6 Plus', fidelity: 'real' });
  expect(catalog['gmail_chr26_win']!.fidelity).toBe('approximate');
});

test('a test with real clients is made at the service, and their screenshots are copied and served as ours; a bounce there is a bounce here', async () => {
  const res = await send('POST', '/v2/preview/tests', { subject: 'Real', html: '<p>Hello</p>', clients: ['outlook16', 'iphone6p_9', 'appmail14'] });
  expect(res.status).toBe(200);
  const id = res.json.id as string;
  expect(created).toEqual([{ subject: 'Real', html: '<p>Hello</p>', clients: ['outlook16', 'iphone6p_9'], image_blocking: false }]);
  const info = await eventually(async () => {
    const current = (await send('GET', `/v2/preview/tests/${id}`)).json as { processing: string[]; completed: string[]; bounced: string[] };
    return current.processing.length === 0 && current;
  });
  expect(info.completed.sort()).toEqual(['appmail14', 'outlook16']);
  expect(info.bounced).toEqual(['iphone6p_9']);
  const result = ((await send('GET', `/v2/preview/tests/${id}/results/outlook16`)).json as Record<string, { fidelity: string; client: string; screenshots: Record<string, string>; thumbnail: string }>)['outlook16']!;
  expect(result).toMatchObject({ fidelity: 'real', client: 'Outlook 2016' });
  const shot = await bytes(result.screenshots['default']!);
  expect(shot.status).toBe(200);
  expect(shot.body.equals(png)).toBe(true);
  const bounced = ((await send('GET', `/v2/preview/tests/${id}/results/iphone6p_9`)).json as Record<string, { status_details: { bounce_code: string; bounce_message: string } }>)['iphone6p_9']!;
  expect(bounced.status_details).toMatchObject({ bounce_code: '550 5.5.0', bounce_message: 'Mailbox unavailable' });
});
