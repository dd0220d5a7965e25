import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dkimSign } from 'mailauth/lib/dkim/sign';
import { Outbox, OUTBOX_RETENTION_MS } from '../../../lib/local/outbox';
import type { SentMessage } from '../../../lib/local/ses-standin';
import { startDnsServer } from '../../support/dns-server';

// The outbox checks signatures as a recipient's server would: against real DNS answers (a DNS
// server on loopback) for messages signed by mailauth's signer, the one the SES stand-in uses.
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let dir: string;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
const publicKeyBase64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

beforeAll(async () => {
  dns = await startDnsServer();
  dns.set('s1._domainkey.signed.example.com', { txt: [`v=DKIM1; k=rsa; p=${publicKeyBase64}`] });
});
afterAll(() => dns.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'outbox-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const plain = (from: string) => Buffer.from(`From: ${from}\r\nTo: reader@example.net\r\nSubject: hello\r\nMessage-ID: <${Math.random()}@x>\r\n\r\nHello there.\r\n`);

async function signed(raw: Buffer, domain: string, selector: string): Promise<Buffer> {
  const signature = { signingDomain: domain, selector, privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), algorithm: 'rsa-sha256', canonicalization: 'relaxed/relaxed' };
  const result = await dkimSign(raw, { ...signature, signatureData: [signature] });
  return Buffer.concat([Buffer.from(result.signatures), raw]);
}

const message = (raw: Buffer, id = `${Math.random().toString(16).slice(2)}-000000`): SentMessage => ({ sesMessageId: id, destinations: ['reader@example.net'], raw, tags: {} });

async function delivered(raw: Buffer): Promise<string> {
  const outbox = new Outbox(dir, [dns.address]);
  const sent = message(raw);
  outbox.record(sent, sent.destinations);
  await outbox.close();
  return readFileSync(join(dir, `${sent.sesMessageId}.eml`), 'utf8');
}

it('stores a delivered message with a passing DKIM verdict when the published key verifies it', async () => {
  const raw = await signed(plain('news@signed.example.com'), 'signed.example.com', 's1');
  const file = await delivered(raw);
  expect(file).toMatch(/^Authentication-Results: outbox\.mailplane\.local;\r\n dkim=pass header\.i=@signed\.example\.com header\.s=s1 /);
  expect(file).toContain('X-Delivered-To: reader@example.net\r\n');
  expect(file.endsWith(raw.toString('utf8'))).toBe(true);
});

it('says when a signature does not verify, or there is none', async () => {
  // Signed with a selector DNS does not publish.
  expect(await delivered(await signed(plain('news@signed.example.com'), 'signed.example.com', 'gone'))).toMatch(/dkim=(neutral|fail|temperror|permerror)[^\r]*header\.s=gone/);
  expect(await delivered(plain('news@unsigned.example.com'))).toMatch(/^Authentication-Results: outbox\.mailplane\.local;\r\n dkim=none/);
});

it('writes nothing for a message no recipient received, and drops copies older than the retention', async () => {
  const old = join(dir, 'old-000000.eml');
  writeFileSync(old, 'x');
  const longAgo = (Date.now() - OUTBOX_RETENTION_MS - 60_000) / 1000;
  utimesSync(old, longAgo, longAgo);
  writeFileSync(join(dir, 'recent-000000.eml'), 'x');
  const outbox = new Outbox(dir, [dns.address]);
  outbox.record(message(plain('a@signed.example.com')), []);
  await outbox.close();
  expect(readdirSync(dir)).toEqual(['recent-000000.eml']);
});

it('lists an account its own sends only, newest first, with SES refusals and bounces among them', async () => {
  const outbox = new Outbox(undefined, [dns.address]);
  const tagged = (account: string, destinations: string[]): SentMessage => ({ ...message(plain('a@signed.example.com')), destinations, tags: { mp_account: [account], mp_storage: [`key-${account}`] } });
  outbox.record(tagged('acct-1', ['reader@example.net']), ['reader@example.net']);
  outbox.record(tagged('acct-2', ['other@example.net']), ['other@example.net']);
  outbox.record(tagged('acct-1', ['bounce@simulator.amazonses.com']), []);
  outbox.refuse({ destinations: ['reader@example.net'], raw: plain('nobody@unverified.example.com'), tags: { mp_account: ['acct-1'] }, reason: 'Email address is not verified.' });
  await outbox.close();
  const { messages, total } = outbox.list({ accountId: 'acct-1', limit: 10 });
  expect(total).toBe(3);
  expect(messages.map((m) => m.status)).toEqual(['refused', 'bounced', 'delivered']);
  expect(messages[0]).toMatchObject({ reason: 'Email address is not verified.', from: 'nobody@unverified.example.com', subject: 'hello' });
  expect(messages[2]).toMatchObject({ storageKey: 'key-acct-1', recipients: [{ address: 'reader@example.net', outcome: 'delivered' }] });
  expect(outbox.entry(outbox.list({ accountId: 'acct-2', limit: 1 }).messages[0]!.id, 'acct-1')).toBeUndefined();
  expect((await outbox.source(messages[2]!.id))!.toString()).toMatch(/^Authentication-Results: outbox\.mailplane\.local;\r\n dkim=none/);
  expect(outbox.clear('acct-1')).toBe(3);
  expect(outbox.list({ accountId: 'acct-2', limit: 10 }).total).toBe(1);
});

it("names the mailbox simulator's outcome for its labelled addresses too (bounce+<label>@, complaint+<label>@), as SES's simulator takes them", async () => {
  const outbox = new Outbox(undefined, [dns.address]);
  const to = ['bounce+list-1@simulator.amazonses.com', 'complaint+list-1@simulator.amazonses.com', 'suppressionlist+x@simulator.amazonses.com', 'reader@example.net'];
  outbox.record({ ...message(plain('a@signed.example.com')), destinations: to, tags: { mp_account: ['acct-1'] } }, [to[1]!, to[3]!]);
  await outbox.close();
  const [entry] = outbox.list({ accountId: 'acct-1', limit: 1 }).messages;
  expect(entry!.recipients).toEqual([
    { address: to[0], outcome: 'bounced' },
    { address: to[1], outcome: 'complained' },
    { address: to[2], outcome: 'bounced' },
    { address: to[3], outcome: 'delivered' },
  ]);
  expect(entry!.status).toBe('partly delivered');
});
