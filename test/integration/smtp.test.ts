import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import type { LocalPlatform } from '../../lib/local/platform';
import { eventsOf, eventually, sandboxOf, sdk, sesSendsOf, startTestPlatform } from '../support/platform';
import { scanTable } from '../support/table';
import { decoded, linksIn, mimeOf } from '../support/mail';
import { WebhookReceiver } from '../support/webhook-receiver';

// SMTP submission with credentials made through the API, as a user of nodemailer would send:
// STARTTLS and implicit TLS, trusting local mode's CA, and what follows (events, webhooks).
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
let receiver: WebhookReceiver;
const PASSWORD = 'smtp-secret-password-1';

type Ev = Record<string, unknown> & { event: string; recipient?: string; tags?: string[]; method?: string };

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
  receiver = await new WebhookReceiver().start();
  await mg.webhooks.create(sandbox, 'delivered', `${receiver.url}/delivered`, false);
  await mg.domains.domainCredentials.create(sandbox, { login: 'app', password: PASSWORD });
});
afterAll(async () => {
  await platform.close();
  await receiver.close();
});

const login = () => `app@${sandbox}`;

function transport(mode: 'starttls' | 'tls', auth = { user: login(), pass: PASSWORD }) {
  const { host, port, securePort } = platform.us.smtp;
  return nodemailer.createTransport({
    host,
    port: mode === 'tls' ? securePort : port,
    secure: mode === 'tls',
    requireTLS: mode === 'starttls',
    auth,
    tls: { ca: platform.ca.certificatePem },
  });
}

const settled = (messageId: string, count: number) =>
  eventually(async () => {
    const events = await eventsOf<Ev>(platform.us.url, sandbox, messageId);
    return events.filter((e) => e.event === 'delivered').length >= count ? events : undefined;
  });

/** What the region holds of accepted mail: message records, and what SES was given. */
async function storedCount(): Promise<{ messages: number; sent: number }> {
  const items = await scanTable(platform.us);
  return { messages: items.filter((item) => String(item.pk).startsWith('MSG#')).length, sent: platform.us.ses.sentTotal };
}

it('sends over STARTTLS with a credential made through the API: accepted, delivered, tagged, and its webhook fires', async () => {
  const info = await transport('starttls').sendMail({
    from: `App <app@${sandbox}>`,
    to: 'ann@example.com',
    bcc: 'bob@example.com',
    subject: 'Over SMTP',
    text: 'Hello over SMTP',
    headers: { 'X-Mailgun-Tag': 'smtp-tag', 'X-Mailgun-Variables': '{"plan":"pro","n":3}', 'X-Mailgun-Track': 'no', 'X-Mailgun-Require-TLS': 'yes' },
  });
  expect(info.response).toMatch(/^250 /);
  expect(info.accepted.sort()).toEqual(['ann@example.com', 'bob@example.com']);

  const events = await settled(info.messageId, 2);
  const accepted = events.filter((e) => e.event === 'accepted');
  expect(accepted.map((e) => e.recipient).sort()).toEqual(['ann@example.com', 'bob@example.com']);
  expect(accepted[0]).toMatchObject({ method: 'smtp', tags: ['smtp-tag'], 'user-variables': { plan: 'pro', n: '3' }, message: { headers: { subject: 'Over SMTP' } } });
  expect(events.filter((e) => e.event === 'delivered').map((e) => e.tags)).toEqual([['smtp-tag'], ['smtp-tag']]);

  // SES got the message as sent, less the options that were only instructions, over TLS.
  const raw = sesSendsOf(platform.us, info.messageId.slice(1, -1))[0]!;
  expect(raw.destinations.sort()).toEqual(['ann@example.com', 'bob@example.com']);
  const mime = raw.raw.toString();
  expect(mime).toContain('Hello over SMTP');
  expect(mime).toContain('X-Mailgun-Tag: smtp-tag');
  expect(mime).not.toMatch(/^X-Mailgun-Track:/im);
  expect(mime).not.toMatch(/^X-Mailgun-Require-TLS:/im);
  expect(mime).not.toMatch(/^Bcc:/im);

  const hooks = await eventually(async () => {
    const posts = receiver.on('/delivered').filter((post) => (post.body['event-data'].message as { headers: { 'message-id': string } }).headers['message-id'] === info.messageId.slice(1, -1));
    return posts.length === 2 ? posts : undefined;
  });
  expect(hooks[0]!.body['event-data']).toMatchObject({ event: 'delivered', tags: ['smtp-tag'] });
});

it('tracks SMTP mail that asks for it as any other: a copy per recipient with its own links, attachments untouched', async () => {
  const info = await transport('starttls').sendMail({
    from: `app@${sandbox}`,
    to: ['eve@example.com', 'fay@example.com'],
    subject: 'Tracked over SMTP',
    html: '<html><body><p>Caf\u00e9 <a href="https://example.org/menu?x=1&amp;y=2">menu</a></p></body></html>',
    text: 'See https://example.org/plain',
    attachments: [{ filename: 'page.html', content: '<a href="https://example.org/kept">kept</a>', contentType: 'text/html' }],
    headers: { 'X-Mailgun-Track': 'yes', 'X-Mailgun-Tag': 'tracked-smtp' },
  });
  await settled(info.messageId, 2);
  const eveRaw = await mimeOf(platform.us, info.messageId.slice(1, -1), 'eve@example.com');
  const eve = decoded(eveRaw);
  const fay = decoded(await mimeOf(platform.us, info.messageId.slice(1, -1), 'fay@example.com'));
  // One click link in the HTML body, one in the text body, and the open pixel; each copy its own.
  expect(linksIn(platform.us, eve, 'c')).toHaveLength(2);
  expect(linksIn(platform.us, eve, 'o')).toHaveLength(1);
  expect(linksIn(platform.us, eve, 'c')[0]).not.toBe(linksIn(platform.us, fay, 'c')[0]);
  expect(eve).toMatch(/^To: eve@example\.com, fay@example\.com$/m);
  // The rewritten bodies are UTF-8, quoted-printable as they came; the attachment is sent as written.
  expect(eveRaw).toContain('Caf=C3=A9');
  expect(eveRaw).toContain(Buffer.from('<a href="https://example.org/kept">kept</a>').toString('base64'));

  const locations: Array<string | null> = [];
  for (const link of linksIn(platform.us, eve, 'c')) locations.push((await fetch(link, { redirect: 'manual' })).headers.get('location'));
  expect(locations.sort()).toEqual(['https://example.org/menu?x=1&y=2', 'https://example.org/plain']);
  const clicked = await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, info.messageId)).find((e) => e.event === 'clicked'));
  expect(clicked).toMatchObject({ recipient: 'eve@example.com', tags: ['tracked-smtp'] });
});

it('sends a batch over SMTP: each recipient gets a copy addressed to them alone, with their values', async () => {
  const info = await transport('starttls').sendMail({
    from: `app@${sandbox}`,
    to: ['gus@example.com', 'hal@example.com'],
    subject: 'Hello %recipient.first%',
    text: 'Dear %recipient.first%, your code is %recipient.code%.',
    headers: { 'X-Mailgun-Recipient-Variables': JSON.stringify({ 'gus@example.com': { first: 'Gus', code: 7 }, 'hal@example.com': { first: 'H\u00e4l', code: 8 } }) },
  });
  await settled(info.messageId, 2);
  const gus = await mimeOf(platform.us, info.messageId.slice(1, -1), 'gus@example.com');
  const hal = simpleParser(await mimeOf(platform.us, info.messageId.slice(1, -1), 'hal@example.com'));
  expect(decoded(gus)).toMatch(/^To: gus@example\.com$/m);
  expect(decoded(gus)).toMatch(/^Subject: Hello Gus$/m);
  expect(decoded(gus)).toContain('Dear Gus, your code is 7.');
  expect(gus).not.toMatch(/X-Mailgun-Recipient-Variables|hal@example\.com/i);
  expect((await hal).subject).toBe('Hello H\u00e4l');
  expect((await hal).text?.trim()).toBe('Dear H\u00e4l, your code is 8.');
});

it('renders a stored template named in the headers as the body, keeping the message\'s own headers and attachments', async () => {
  await mg.domains.domainTemplates.create(sandbox, { name: 'smtp-welcome', description: 'for SMTP', template: '<p>Welcome, {{name}}!</p>', tag: 'v1', engine: 'handlebars' } as never);
  const info = await transport('starttls').sendMail({
    from: `app@${sandbox}`,
    to: 'ivy@example.com',
    subject: 'Your account',
    text: 'replaced by the template',
    attachments: [{ filename: 'terms.txt', content: 'the terms' }],
    headers: { 'X-Mailgun-Template-Name': 'smtp-welcome', 'X-Mailgun-Template-Variables': '{"name":"Ivy"}', 'X-Custom': 'kept' },
  });
  const events = await settled(info.messageId, 1);
  expect(events.find((e) => e.event === 'accepted')).toMatchObject({ template: { name: 'smtp-welcome' } });
  const parsed = await simpleParser(await mimeOf(platform.us, info.messageId.slice(1, -1), 'ivy@example.com'));
  expect(parsed.html).toContain('<p>Welcome, Ivy!</p>');
  expect(parsed.subject).toBe('Your account');
  expect(parsed.messageId).toBe(info.messageId);
  expect(parsed.headers.get('x-custom')).toBe('kept');
  expect(parsed.headers.get('x-mailgun-template-name')).toBe('smtp-welcome');
  expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['terms.txt', 'the terms']]);
});

it('refuses a template that does not exist with 550 and the reason', async () => {
  const error = await transport('starttls')
    .sendMail({ from: `app@${sandbox}`, to: 'jay@example.com', subject: 's', text: 't', headers: { 'X-Mailgun-Template-Name': 'no-such-template' } })
    .catch((e: { responseCode: number; response: string }) => e);
  expect(error).toMatchObject({ responseCode: 550 });
  expect((error as { response: string }).response).toContain('template not found');
});

it('sends over implicit TLS (SMTPS) too', async () => {
  const info = await transport('tls').sendMail({ from: `app@${sandbox}`, to: 'carol@example.com', subject: 'Over SMTPS', text: 'hi', headers: { 'X-Mailgun-Tag': 'smtps' } });
  const events = await settled(info.messageId, 1);
  expect(events.find((e) => e.event === 'delivered')).toMatchObject({ recipient: 'carol@example.com', tags: ['smtps'] });
});

it('answers a wrong password with 535 and stores nothing', async () => {
  const before = await storedCount();
  const error = await transport('starttls', { user: login(), pass: 'wrong-password' })
    .sendMail({ from: `app@${sandbox}`, to: 'dan@example.com', subject: 'No', text: 'no' })
    .then(
      () => undefined,
      (e: { responseCode?: number; code?: string }) => e,
    );
  expect(error).toMatchObject({ responseCode: 535, code: 'EAUTH' });
  const unknown = await transport('starttls', { user: `nobody@${sandbox}`, pass: PASSWORD })
    .verify()
    .catch((e: { responseCode?: number }) => e);
  expect(unknown).toMatchObject({ responseCode: 535 });
  expect(await storedCount()).toEqual(before);
});

it('refuses AUTH before TLS', async () => {
  const plain = nodemailer.createTransport({ host: platform.us.smtp.host, port: platform.us.smtp.port, secure: false, ignoreTLS: true, auth: { user: login(), pass: PASSWORD } });
  const error = await plain.verify().catch((e: { responseCode?: number; response?: string }) => e);
  expect(error).toMatchObject({ responseCode: 538 });
});

it('reads X-Mailgun-* options with the HTTP checks: a bad one is refused with 550, a schedule waits', async () => {
  const bad = await transport('starttls')
    .sendMail({ from: `app@${sandbox}`, to: 'erin@example.com', subject: 'Bad', text: 'x', headers: { 'X-Mailgun-Drop-Message': 'perhaps' } })
    .catch((e: { responseCode?: number; response?: string }) => e);
  expect(bad).toMatchObject({ responseCode: 550 });
  expect((bad as { response: string }).response).toContain("Invalid parameter 'o:testmode'");

  const later = new Date(Date.now() + 3600_000);
  const info = await transport('starttls').sendMail({ from: `app@${sandbox}`, to: 'frank@example.com', subject: 'Later', text: 'x', headers: { 'X-Mailgun-Deliver-By': later.toUTCString() } });
  const [accepted] = await eventually(async () => {
    const events = await eventsOf<Ev>(platform.us.url, sandbox, info.messageId);
    return events.length ? events : undefined;
  });
  expect(accepted).toMatchObject({ event: 'accepted', message: { 'scheduled-for': Math.floor(later.getTime() / 1000) } });
});

it('refuses mail from a domain that cannot send yet', async () => {
  await mg.domains.create({ name: 'smtp-unverified.example.com', dkim_key_size: '1024' } as never);
  await mg.domains.domainCredentials.create('smtp-unverified.example.com', { login: 'app', password: PASSWORD });
  const error = await transport('starttls', { user: 'app@smtp-unverified.example.com', pass: PASSWORD })
    .sendMail({ from: 'app@smtp-unverified.example.com', to: 'gina@example.com', subject: 'x', text: 'x' })
    .catch((e: { responseCode?: number; response?: string }) => e);
  expect(error).toMatchObject({ responseCode: 550 });
  expect((error as { response: string }).response).toContain('is not verified');
});
