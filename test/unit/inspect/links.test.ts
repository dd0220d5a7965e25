import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { Workbook } from 'exceljs';
import { utils as sheetUtils, write as writeWorkbook } from '@e965/xlsx';
import { localCa, signCertificate } from '../../../lib/local/local-ca';
import { PUBLIC_ONLY } from '../../../functions/webhooks/address-policy';
import { FetchError, fetchOnce } from '../../../functions/inspect/common/safe-fetch';
import { checkLinks, type LinkResult } from '../../../functions/inspect/links/link-checker';
import { extractLinks } from '../../../functions/inspect/links/link-extractor';
import { compareWithExpected } from '../../../functions/inspect/links/expected-links';
import { goDuration } from '../../../functions/inspect/links/go-duration';
import { PATIENCE_MS } from '../../support/eventually';

// Link checking against servers on this machine: each answer a real site gives (200, 404,
// redirect chains and loops, a slow site, a server refusing HEAD, bad certificates).
const LOOPBACK = { allowLoopback: true };
const servers: Server[] = [];
let http = '';
let active = 0;
let maxActive = 0;
const seenAgents: string[] = [];
const requests: string[] = [];

function handle(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/';
  seenAgents.push(req.headers['user-agent'] ?? '');
  requests.push(`${req.method} ${path}`);
  if (path === '/ok') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': '5' }).end(req.method === 'HEAD' ? undefined : 'hello');
  if (path === '/missing') return void res.writeHead(404).end();
  if (path === '/a') return void res.writeHead(301, { location: '/b' }).end();
  if (path === '/b') return void res.writeHead(302, { location: `${http}/ok` }).end();
  if (path === '/loop1') return void res.writeHead(302, { location: '/loop2' }).end();
  if (path === '/loop2') return void res.writeHead(302, { location: '/loop1' }).end();
  if (path.startsWith('/hop')) {
    const n = Number(path.slice(4));
    return void res.writeHead(302, { location: `/hop${n + 1}` }).end();
  }
  if (path === '/slow') return void setTimeout(() => res.writeHead(200).end('late'), 1500);
  // A router that knows GET routes only, as many do: HEAD of a page it serves is a 404.
  if (path === '/get-only') return void (req.method === 'HEAD' ? res.writeHead(404).end() : res.writeHead(200, { 'content-type': 'text/html' }).end('page'));
  if (path === '/no-head') return void (req.method === 'HEAD' ? res.writeHead(405).end() : res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  if (path.startsWith('/busy')) {
    active++;
    maxActive = Math.max(maxActive, active);
    return void setTimeout(() => {
      active--;
      res.writeHead(200).end();
    }, 60);
  }
  res.writeHead(500).end();
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function selfSigned(host: string): { key: string; cert: string } {
  const key = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
  const forgeKey = forge.pki.privateKeyFromPem(key);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: host }]);
  cert.setIssuer([{ name: 'commonName', value: host }]);
  cert.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 7, ip: host }] }]);
  signCertificate(cert, key);
  return { key, cert: forge.pki.certificateToPem(cert) };
}

const ca = localCa(null);
let expiredUrl = '';
let selfSignedUrl = '';
let mismatchUrl = '';
let validTlsUrl = '';

beforeAll(async () => {
  http = `http://127.0.0.1:${await listen(createHttpServer(handle))}`;
  const tlsServer = async (key: string, cert: string) => `https://127.0.0.1:${await listen(createHttpsServer({ key, cert }, (_req, res) => res.writeHead(200).end('tls')))}`;
  const expired = ca.issue(['127.0.0.1'], 30, new Date(Date.now() - 400 * 86_400_000));
  expiredUrl = await tlsServer(expired.privateKeyPem, expired.certificatePem);
  const own = selfSigned('127.0.0.1');
  selfSignedUrl = await tlsServer(own.key, own.cert);
  const other = ca.issue(['other.example'], 90);
  mismatchUrl = await tlsServer(other.privateKeyPem, other.certificatePem);
  const valid = ca.issue(['127.0.0.1'], 90);
  validTlsUrl = await tlsServer(valid.privateKeyPem, valid.certificatePem);
});
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

const check = (urls: string[], options: Partial<Parameters<typeof checkLinks>[1]> = {}) => checkLinks(urls.map((url) => ({ url })), { policy: LOOPBACK, ca: [ca.certificatePem], ...options });
const rules = (result: LinkResult, list: 'passes' | 'failures' | 'informational') => result[list].map((f) => f.rule);

describe('checkLinks', () => {
  it('reports a page, a broken link, and a redirect chain hop by hop with each hop\'s status, location and time', async () => {
    const [ok, missing, chain] = await check([`${http}/ok`, `${http}/missing`, `${http}/a`]);
    expect(ok).toMatchObject({ status: 'Valid', status_code: 200 });
    expect(rules(ok!, 'passes')).toEqual(expect.arrayContaining(['Valid HTTP Response', 'Fast Response Time']));
    expect(ok!.informational).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'content_type_check', details: [{ content_type: 'text/html; charset=utf-8' }] }), expect.objectContaining({ id: 'content_length_check', details: [{ content_length: '5' }] })]));
    expect(missing).toMatchObject({ status: 'Invalid', status_code: 404 });
    expect(missing!.failures).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'http_status_check', rule: 'Broken Link', impact: 'critical', details: [{ status_code: 404 }] })]));
    expect(chain).toMatchObject({ status: 'Valid', status_code: 200 });
    const hops = chain!.passes.find((f) => f.id === 'redirect_check')!.details;
    expect(hops.map((h) => [h['url'], h['status_code'], h['location']])).toEqual([
      [`${http}/a`, 301, '/b'],
      [`${http}/b`, 302, `${http}/ok`],
      [`${http}/ok`, 200, null],
    ]);
    for (const hop of hops) expect(hop['time_elapsed']).toMatch(/^\d+(\.\d+)?(µs|ms|s)$/);
  });

  it('stops at a redirect loop and at a chain longer than the limit, and says so', async () => {
    const [loop, long] = await check([`${http}/loop1`, `${http}/hop0`], { maxHops: 4 });
    expect(loop!.failures.map((f) => [f.rule, f.impact])).toContainEqual(['Redirect Loop', 'serious']);
    expect(loop!.status).toBe('Invalid');
    expect(long!.failures.map((f) => f.rule)).toContain('Too Many Redirects');
    expect(long!.failures.find((f) => f.rule === 'Too Many Redirects')!.details).toHaveLength(4);
  });

  it('times out a slow site as an error, and asks with GET where HEAD is refused', async () => {
    // The short timeout for the slow site alone: the other answers in its own time.
    const [slow] = await check([`${http}/slow`], { timeoutMs: 300 });
    const [noHead] = await check([`${http}/no-head`]);
    expect(slow).toMatchObject({ status: 'Error', status_code: null });
    expect(slow!.failures.find((f) => f.id === 'http_status_check')).toMatchObject({ rule: 'Request Timed Out', details: [{ kind: 'timeout' }] });
    expect(noHead).toMatchObject({ status: 'Valid', status_code: 200 });
  });

  it('asks once more with GET when HEAD is answered 404: a page served by GET is not broken, a missing one still is', async () => {
    requests.length = 0;
    const [getOnly, missing] = await check([`${http}/get-only`, `${http}/missing`]);
    expect(getOnly).toMatchObject({ status: 'Valid', status_code: 200 });
    expect(rules(getOnly!, 'passes')).toContain('Valid HTTP Response');
    expect(missing).toMatchObject({ status: 'Invalid', status_code: 404 });
    expect(missing!.failures.find((f) => f.id === 'http_status_check')).toMatchObject({ rule: 'Broken Link', details: [{ status_code: 404 }] });
    expect(requests.filter((r) => r.endsWith(' /get-only'))).toEqual(['HEAD /get-only', 'GET /get-only']);
    expect(requests.filter((r) => r.endsWith(' /missing'))).toEqual(['HEAD /missing', 'GET /missing']);
  });

  it('sends the caller\'s user agent, or a browser-like one', async () => {
    seenAgents.length = 0;
    await check([`${http}/ok`], { userAgent: 'Checker/9' });
    await check([`${http}/ok`]);
    expect(seenAgents[0]).toBe('Checker/9');
    expect(seenAgents[1]).toMatch(/^Mozilla\/5\.0/);
  });

  it('reads certificates: valid, expired, self-signed, for another host', async () => {
    const [valid, expired, own, mismatch] = await check([validTlsUrl, expiredUrl, selfSignedUrl, mismatchUrl]);
    expect(valid!.passes.find((f) => f.id === 'ssl_certificate_check')).toMatchObject({ rule: 'SSL Certificate Valid', details: [expect.objectContaining({ common_name: '127.0.0.1' })] });
    expect(expired!.failures.find((f) => f.id === 'ssl_certificate_check')).toMatchObject({ rule: 'Expired SSL Certificate', impact: 'critical' });
    expect(new Date(expired!.failures.find((f) => f.id === 'ssl_certificate_check')!.details[0]!['expires_on'] as string).getTime()).toBeLessThan(Date.now());
    expect(own!.failures.find((f) => f.id === 'ssl_certificate_check')!.rule).toBe('Self-Signed SSL Certificate');
    expect(mismatch!.failures.find((f) => f.id === 'ssl_certificate_check')).toMatchObject({ rule: 'Hostname Mismatch', details: [expect.objectContaining({ common_name: 'other.example' })] });
    for (const result of [expired, own, mismatch]) expect(result!.status).toBe('Invalid');
  });

  it('does not fetch mail, phone, anchor, template and relative links, and flags the ones that go nowhere', async () => {
    const results = await check(['mailto:a@example.com', 'tel:+123', '#top', '{{unsubscribe_url}}', '%recipient.link%', '/relative', 'javascript:alert(1)', '']);
    expect(results.map((r) => r.status)).toEqual(['Valid', 'Valid', 'Valid', 'Valid', 'Valid', 'Invalid', 'Invalid', 'Invalid']);
    expect(results.every((r) => r.status_code === null)).toBe(true);
    expect(rules(results[3]!, 'informational')).toEqual(['Template Placeholder']);
  });

  it('keeps to the per-host limit however many links there are', async () => {
    maxActive = 0;
    const results = await check(Array.from({ length: 12 }, (_, i) => `${http}/busy${i}`), { concurrency: 8, perHost: 2 });
    expect(results.every((r) => r.status_code === 200)).toBe(true);
    expect(maxActive).toBe(2);
  });

  it('refuses loopback, private and metadata addresses on AWS, whatever the name resolves through', async () => {
    const [loopback, metadata, named] = await checkLinks([{ url: `${http}/ok` }, { url: 'http://169.254.169.254/latest/meta-data/' }, { url: `http://localhost:${new URL(http).port}/ok` }], { policy: PUBLIC_ONLY });
    for (const result of [loopback, metadata, named]) {
      expect(result!.status).toBe('Error');
      expect(result!.failures.find((f) => f.id === 'http_status_check')).toMatchObject({ rule: 'Blocked Address', details: [expect.objectContaining({ kind: 'forbidden-address' })] });
    }
    await expect(fetchOnce('http://10.1.2.3/', { method: 'GET', timeoutMs: 1000, maxBytes: 10, policy: PUBLIC_ONLY })).rejects.toMatchObject({ kind: 'forbidden-address' });
    await expect(fetchOnce('ftp://example.com/', { method: 'GET', timeoutMs: 1000, maxBytes: 10, policy: PUBLIC_ONLY })).rejects.toBeInstanceOf(FetchError);
  });
});

describe('fetchOnce', () => {
  it('stops reading at maxBytes and says the body was cut', async () => {
    const out = await fetchOnce(`${http}/ok`, { method: 'GET', timeoutMs: PATIENCE_MS, maxBytes: 3, policy: LOOPBACK, readBody: true });
    expect(out).toMatchObject({ status: 200, truncated: true });
    expect(out.body!.toString()).toBe('hel');
  });
});

describe('extractLinks', () => {
  it('finds anchors, image-map areas and Outlook VML buttons with their line and column', () => {
    const html = ['<html><body>', '<p><a href="https://x.example/1">one</a></p>', '<map><area href="https://x.example/2"></map>', '<!--[if mso]>', '  <v:roundrect href="https://x.example/3"></v:roundrect>', '<![endif]-->', '<link href="https://x.example/style.css">', '</body></html>'].join('\n');
    expect(extractLinks(html)).toEqual([
      { url: 'https://x.example/1', line: 2, column: 4, absolute_index: 16, selector: 'html > body > p > a' },
      { url: 'https://x.example/2', line: 3, column: 6, absolute_index: expect.any(Number), selector: 'html > body > map > area' },
      { url: 'https://x.example/3', line: 5, column: 3, absolute_index: expect.any(Number), selector: 'v\\:roundrect' },
    ]);
  });
});

describe('compareWithExpected', () => {
  const results: LinkResult[] = [
    { url: 'https://a.example/', status: 'Valid', status_code: 200, line: 1, column: 1, selector: 'a', absolute_index: 0, passes: [], failures: [], informational: [] },
    { url: 'https://b.example/', status: 'Invalid', status_code: 404, line: 2, column: 1, selector: 'a', absolute_index: 9, passes: [], failures: [{ id: 'http_status_check', rule: 'Broken Link', description: '', impact: 'critical', details: [] }], informational: [] },
  ];

  it('compares a CSV: expected statuses, links missing from the test, links missing from the file', async () => {
    const csv = Buffer.from('\uFEFFurl;expected_status\nhttps://a.example/;200\nhttps://b.example/;200\nhttps://c.example/;\n');
    // a.example twice (a button and its VML twin): one row covers both.
    const out = await compareWithExpected({ data: csv }, [...results, { ...results[0]! }, { ...results[0]!, url: 'https://d.example/' }]);
    expect(out.valid).toBe(false);
    expect(out.errors.map((e) => [e.row, e.message])).toEqual([
      [2, 'https://b.example/ answered 404, expected 200'],
      [3, 'https://c.example/ is not among the links of this test'],
      [0, 'https://d.example/ is in the email but not in the file'],
    ]);
  });

  it('reads an XLSX workbook and a legacy binary XLS, and refuses a file that is neither', async () => {
    const workbook = new Workbook();
    const sheet = workbook.addWorksheet('links');
    sheet.addRow(['URL']);
    sheet.addRow(['https://a.example/']);
    sheet.addRow(['https://b.example/']);
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());
    const out = await compareWithExpected({ data: xlsx }, results);
    expect(out.errors).toEqual([{ row: 2, message: 'https://b.example/ did not pass: Broken Link', alert: results[1] }]);
    const legacy = sheetUtils.book_new();
    sheetUtils.book_append_sheet(legacy, sheetUtils.aoa_to_sheet([['url', 'expected_status'], ['https://a.example/', 301], ['https://b.example/', 404]]), 'links');
    const xls = writeWorkbook(legacy, { type: 'buffer', bookType: 'biff8' }) as Buffer;
    expect(xls.subarray(0, 4).toString('hex')).toBe('d0cf11e0');
    const fromXls = await compareWithExpected({ data: xls }, results);
    expect(fromXls.errors).toEqual([{ row: 1, message: 'https://a.example/ answered 200, expected 301', alert: results[0] }]);
    const binary = Buffer.concat([Buffer.from('PK'), Buffer.alloc(64, 0)]);
    await expect(compareWithExpected({ data: binary }, results)).rejects.toThrow(/not a readable XLSX workbook|neither CSV/);
  });
});

test('durations read as Go prints them', () => {
  expect([goDuration(209.914666), goDuration(1500), goDuration(0.5), goDuration(61_000)]).toEqual(['209.914666ms', '1.5s', '500µs', '1m1s']);
});
