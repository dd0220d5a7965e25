import nodemailer from 'nodemailer';
import type { LocalPlatform } from '../../lib/local/platform';
import { apiKeys, call, eventually, sdk, sdkError, sesSendsOf, startTestPlatform } from '../support/platform';
import { scanTable } from '../support/table';

// Tenants never send as one another: a From or Sender at a domain another account (the parent,
// a subaccount, a sibling) holds on the platform, itself or through a parent domain, is refused at
// accept with nothing stored, by the API and by SMTP; a From at a domain nobody here holds may
// still be sent, and a From at another of the account's own domains is the account's to use.
let platform: LocalPlatform;
let parent: ReturnType<typeof sdk>;
let tenant: ReturnType<typeof sdk>;
let tenantKey = '';
let sibling: ReturnType<typeof sdk>;
const PARENT = 'victim-parent.example.com';
const PARENT_OTHER = 'parent-other.example.net';
const TENANT = 'tenant-own.example.org';
const SIBLING = 'sibling-own.example.org';
const SMTP_PASSWORD = 'tenant-smtp-password-long';

async function activeDomain(client: ReturnType<typeof sdk>, name: string) {
  await client.domains.create({ name, dkim_key_size: '1024' } as never);
  expect((await client.domains.verify(name)).state).toBe('active');
}

/** A client acting as a new subaccount, with that subaccount's own admin key. */
async function subaccountClient(name: string) {
  const sub = (await parent.subaccounts.create(name)).subaccount;
  const asSub = sdk(platform.us.url);
  asSub.setSubaccount(sub.id);
  const key = (await apiKeys(asSub).create({ role: 'admin', kind: 'user' })).secret;
  return { client: sdk(platform.us.url, key), key };
}

type Ev = { event: string; 'delivery-status'?: { message?: string } };

/** The tenant's events of one message, once one of them is its failure. */
const failureOf = (messageId: string) =>
  eventually(async () => {
    const reply = await call(`${platform.us.url}/v3/${TENANT}/events?message-id=${encodeURIComponent(messageId.replace(/^<|>$/g, ''))}`, { key: tenantKey });
    return (reply.json.items as Ev[] | undefined)?.find((e) => e.event === 'failed');
  }, 30_000);

/** Message items and what SES was handed: refused mail must change neither. */
async function stored() {
  const items = await scanTable(platform.us);
  return { messages: items.filter((item) => String(item.pk).startsWith('MSG#')).length, sent: platform.us.ses.sentTotal };
}

async function refusedWithNothingStored(send: () => Promise<unknown>, domain: string) {
  const before = await stored();
  const error = await sdkError(send());
  expect(error.status).toBe(403);
  expect(error.details).toContain(`domain ${domain} belongs to another account`);
  expect(await stored()).toEqual(before);
}

const dkimDomainsOf = (raw: Buffer) => [...raw.toString('latin1').matchAll(/^DKIM-Signature:[^]*?\bd=([^;\s]+)/gim)].map((m) => m[1]!.toLowerCase());

beforeAll(async () => {
  platform = await startTestPlatform();
  parent = sdk(platform.us.url);
  await activeDomain(parent, PARENT);
  await activeDomain(parent, PARENT_OTHER);
  ({ client: tenant, key: tenantKey } = await subaccountClient('Tenant'));
  await activeDomain(tenant, TENANT);
  sibling = (await subaccountClient('Sibling')).client;
  await activeDomain(sibling, SIBLING);
  await tenant.domains.domainCredentials.create(TENANT, { login: 'app', password: SMTP_PASSWORD });
}, 120_000);
afterAll(() => platform.close());

const message = (from: string, extra: Record<string, string> = {}) => ({ from, to: 'reader@example.net', subject: 'Quarterly numbers', text: 'Please wire the funds.', ...extra });

it("refuses a subaccount's send as its parent's domain, a subdomain of it, or a sibling's domain", async () => {
  await refusedWithNothingStored(() => tenant.messages.create(TENANT, message(`CEO <ceo@${PARENT}>`)), PARENT);
  await refusedWithNothingStored(() => tenant.messages.create(TENANT, message(`ceo@news.${PARENT}`)), `news.${PARENT}`);
  await refusedWithNothingStored(() => tenant.messages.create(TENANT, message(`Boss <boss@${SIBLING}>`)), SIBLING);
  // The Sender field names an author too, as does a From in capitals.
  await refusedWithNothingStored(() => tenant.messages.create(TENANT, message(`me@${TENANT}`, { 'h:Sender': `ceo@${PARENT}` })), PARENT);
  await refusedWithNothingStored(() => tenant.messages.create(TENANT, message(`CEO@${PARENT.toUpperCase()}`)), PARENT);
});

it("refuses the parent's send as a subaccount's domain", async () => {
  await refusedWithNothingStored(() => parent.messages.create(PARENT, message(`support@${TENANT}`)), TENANT);
});

it('refuses a MIME message whose From, a second From or its Sender names another account\'s domain', async () => {
  const mime = (head: string) => Buffer.from(`${head}\r\nTo: reader@example.net\r\nSubject: Hi\r\n\r\nBody\r\n`);
  const post = (raw: Buffer) => tenant.messages.create(TENANT, { to: 'reader@example.net', message: raw } as never);
  await refusedWithNothingStored(() => post(mime(`From: CEO <ceo@${PARENT}>`)), PARENT);
  await refusedWithNothingStored(() => post(mime(`From: me@${TENANT}\r\nFrom: ceo@${PARENT}`)), PARENT);
  await refusedWithNothingStored(() => post(mime(`From: me@${TENANT}\r\nSender: ceo@(comment)${PARENT}`)), PARENT);
  await refusedWithNothingStored(() => post(mime(`From: me@${TENANT}\r\nReturn-Path: <bounces@${PARENT}>`)), PARENT);
  // An unquoted address in front of the real one: a reader could take either.
  await refusedWithNothingStored(() => post(mime(`From: ceo@${PARENT} <me@${TENANT}>`)), PARENT);
});

it('refuses SMTP submission as another account\'s domain, with nothing stored', async () => {
  const { host, port } = platform.us.smtp;
  const smtp = nodemailer.createTransport({ host, port, requireTLS: true, auth: { user: `app@${TENANT}`, pass: SMTP_PASSWORD }, tls: { ca: platform.ca.certificatePem } });
  const before = await stored();
  const error = (await smtp.sendMail({ from: `CEO <ceo@${PARENT}>`, to: 'reader@example.net', subject: 'Wire', text: 'Now.' }).catch((e: unknown) => e)) as { responseCode?: number; response?: string };
  expect(error.responseCode).toBeGreaterThanOrEqual(500);
  expect(error.response).toContain(`domain ${PARENT} belongs to another account`);
  expect(await stored()).toEqual(before);
  // The same session's own domain still sends.
  const info = await smtp.sendMail({ from: `App <app@${TENANT}>`, to: 'reader@example.net', subject: 'Fine', text: 'Ours.' });
  expect(info.response).toMatch(/^250 /);
  smtp.close();
});

it("lets an account send as another of its own domains, and as a domain nobody here holds, never signed by another's key", async () => {
  const own = await parent.messages.create(PARENT_OTHER, message(`News <news@${PARENT}>`));
  expect(own.status).toBe(200);
  const sent = await eventually(async () => sesSendsOf(platform.us, own.id!.replace(/^<|>$/g, ''))[0], 15_000);
  // SES signs with the identity the From names: the account's own.
  expect(dkimDomainsOf(sent.raw)).toEqual([PARENT]);

  const elsewhere = await tenant.messages.create(TENANT, message(`someone@nobody-holds-this.example`));
  expect(elsewhere.status).toBe(200);
  // SES sends only From addresses of its verified identities: the stand-in refuses it as SES would.
  expect((await failureOf(elsewhere.id!))['delivery-status']!.message).toContain('not verified');
  expect(sesSendsOf(platform.us, elsewhere.id!.replace(/^<|>$/g, ''))).toEqual([]);
});

it('fails at send time a message whose From domain another account took after it was accepted', async () => {
  const later = 'taken-later.example.com';
  const deliverAt = new Date(Date.now() + 4000).toUTCString();
  const accepted = await tenant.messages.create(TENANT, message(`someone@${later}`, { 'o:deliverytime': deliverAt }));
  expect(accepted.status).toBe(200);
  await activeDomain(sibling, later);
  expect((await failureOf(accepted.id!))['delivery-status']!.message).toContain(`domain ${later} belongs to another account`);
  expect(sesSendsOf(platform.us, accepted.id!.replace(/^<|>$/g, ''))).toEqual([]);
});

it('refuses a public suffix as a domain: holding one would bar every other account from the names under it', async () => {
  const reply = await call(`${platform.us.url}/v4/domains`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'name=co.uk' });
  expect(reply.status).toBe(400);
  expect(reply.json.message).toContain('public suffix');
});

it("hands SES none of the author's X-SES-* fields: the platform alone picks configuration set, tags and identities", async () => {
  const raw = Buffer.from(
    `From: me@${TENANT}\r\nTo: reader@example.net\r\nX-SES-CONFIGURATION-SET: someone-elses\r\nX-SES-MESSAGE-TAGS: mp_account=victim\r\nX-SES-FROM-ARN: arn:aws:ses:us-east-1:000000000000:identity/${PARENT}\r\nSubject: Tags\r\n\r\nBody\r\n`,
  );
  const accepted = await tenant.messages.create(TENANT, { to: 'reader@example.net', message: raw } as never);
  const sent = await eventually(async () => sesSendsOf(platform.us, accepted.id!.replace(/^<|>$/g, ''))[0], 15_000);
  const head = sent.raw.toString('latin1').split('\r\n\r\n')[0]!;
  expect(head).not.toMatch(/^X-SES-/im);
  expect(head).toContain('Subject: Tags');
  expect(sent.tags['mp_account']).not.toEqual(['victim']);
});

it("forwards mail received from another account's domain as the receiving domain, without its Sender or Return-Path", async () => {
  await tenant.routes.create({ priority: 0, description: '', expression: `match_recipient("fwd@${TENANT}")`, action: ['forward("ann@example.com")'] } as never);
  const { host, port } = platform.us.inboundSmtp;
  const inbound = nodemailer.createTransport({ host, port, secure: false, ignoreTLS: true });
  await inbound.sendMail({ from: `CEO <ceo@${PARENT}>`, sender: `assistant@${PARENT}`, to: `fwd@${TENANT}`, subject: 'Forward me', text: 'Hello', headers: { 'Return-Path': `<bounces@${PARENT}>` } });
  const sent = await eventually(async () => platform.us.ses.sent.find((m) => m.destinations.includes('ann@example.com') && m.raw.toString().includes('Forward me')), 20_000);
  const head = sent.raw.toString('latin1').split('\r\n\r\n')[0]!;
  expect(head).toMatch(new RegExp(`^From: .* <postmaster@${TENANT.replace(/\./g, '\\.')}>`, 'm'));
  expect(head).not.toMatch(/^(Sender|Return-Path):/im);
  expect(dkimDomainsOf(sent.raw)).not.toContain(PARENT);
});
