import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { LocalPlatform } from '../../lib/local/platform';
import { eventsOf, eventually, sdk, startTestPlatform } from '../support/platform';

// Symfony Mailer's Mailgun API transport (Laravel's `mailgun` driver) names its files
// `attachment[0]`, `attachment[1]`, `inline[0]` under a base64url boundary. request.http is what
// it put on the wire (test/fixtures/symfony-mailgun/capture.ts records it from send.php), replayed
// here byte for byte; the message it describes must reach the outbox whole.
const REQUEST = readFileSync(join(__dirname, '../fixtures/symfony-mailgun/request.http'));

let platform: LocalPlatform;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailplane-symfony-'));
  platform = await startTestPlatform({ dataDir });
  const mg = sdk(platform.us.url);
  await mg.domains.create({ name: 'symfony.example.com' });
  await mg.domains.verify('symfony.example.com');
});
afterAll(async () => {
  await platform.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Sends the raw bytes to the US API and answers the reply's status line and body. */
function replay(raw: Buffer, port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const reply = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]), body: reply.slice(reply.indexOf('\r\n\r\n') + 4) });
    });
  });
}

it('is the transport as it is: indexed file fields under a boundary with an underscore', () => {
  const head = REQUEST.subarray(0, REQUEST.indexOf('\r\n\r\n')).toString('latin1');
  expect(head).toMatch(/^Content-Type: multipart\/form-data; boundary=[\w-]*_[\w-]*$/m);
  for (const name of ['attachment[0]', 'attachment[1]', 'inline[0]']) expect(REQUEST.includes(`name="${name}"`)).toBe(true);
});

it('delivers every attachment and inline part it sent, with its name and content type', async () => {
  const { port } = new URL(platform.us.url);
  const reply = await replay(REQUEST, Number(port));
  expect(reply.status).toBe(200);
  const id = (JSON.parse(reply.body) as { id: string }).id;

  const outbox = join(dataDir, 'us', 'outbox');
  const file = await eventually(async () => readdirSync(outbox).find((name) => readFileSync(join(outbox, name), 'latin1').includes(id.slice(1, -1))), 15_000);
  const mail = await simpleParser(readFileSync(join(outbox, file)), { skipImageLinks: true });

  expect(mail.subject).toBe('Your order');
  expect(mail.headers.get('x-custom')).toBe('yes');
  expect(mail.html).toContain('<img src="cid:logo.png">');
  // Inline parts sit with the HTML (multipart/related), attachments after it: compared by name.
  const parts = mail.attachments.map((a) => [a.filename, a.contentType, a.contentDisposition, a.cid, a.content.toString('latin1')]);
  expect(parts.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
    ['logo.png', 'image/png', 'inline', 'logo.png', '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR'],
    ['order.csv', 'text/csv', 'attachment', undefined, 'item,qty\nbook,1\n'],
    ['Reçu n°42.pdf', 'application/pdf', 'attachment', undefined, '%PDF-1.4\n%fake\n'],
  ]);

  const delivered = await eventually(async () => (await eventsOf<{ event: string; message: { attachments: unknown[] } }>(platform.us.url, 'symfony.example.com', id)).find((e) => e.event === 'delivered'));
  expect(delivered.message.attachments).toEqual([
    expect.objectContaining({ filename: 'order.csv', 'content-type': 'text/csv' }),
    expect.objectContaining({ filename: 'Reçu n°42.pdf', 'content-type': 'application/pdf' }),
  ]);
}, 60_000);
