import busboy from 'busboy';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, sandboxOf, sdk, sdkError, startTestPlatform } from '../support/platform';

// Receiving mail in local mode (the SES receiving stand-in on INBOUND_SMTP_PORT), routed by routes
// made with mailgun.js: forwarded to a receiver on loopback, to an address, and stored.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
let receiver: FormReceiver;

interface FormPost {
  path: string;
  fields: Record<string, string>;
  files: Array<{ field: string; filename: string; type: string; size: number }>;
}

/** A route's receiver: records each multipart form it is posted, answers 200 (or what `status` says). */
class FormReceiver {
  readonly posts: FormPost[] = [];
  status = new Map<string, number>();
  private server?: Server;
  url = '';
  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const post: FormPost = { path: req.url ?? '/', fields: {}, files: [] };
      const form = busboy({ headers: req.headers });
      form.on('field', (name, value) => (post.fields[name] = value));
      form.on('file', (field, stream, info) => {
        let size = 0;
        stream.on('data', (chunk: Buffer) => (size += chunk.length));
        stream.on('end', () => post.files.push({ field, filename: info.filename ?? '', type: info.mimeType, size }));
      });
      form.on('close', () => {
        this.posts.push(post);
        res.writeHead(this.status.get(post.path) ?? 200).end('ok');
      });
      req.pipe(form);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  on(path: string) {
    return this.posts.filter((post) => post.path.startsWith(path));
  }
  async close() {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

beforeAll(async () => {
  platform = await startTestPlatform({ env: { WEBHOOK_RETRY_SCALE: '0.001' } });
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
  receiver = await new FormReceiver().start();
});
afterAll(async () => {
  // Routes are account-wide: leave none behind for the next test of this file.
  await platform.close();
  await receiver.close();
});
afterEach(async () => {
  for (const route of await mg.routes.list({})) await mg.routes.destroy(route.id);
});

// mailgun.js builds a browser FormData, which takes strings only: a number priority is refused client-side.
const PRIORITY_0 = '0' as unknown as number;

const inbound = () => nodemailer.createTransport({ host: platform.us.inboundSmtp.host, port: platform.us.inboundSmtp.port, secure: false, ignoreTLS: true });

type Ev = Record<string, unknown> & { event: string; recipient?: string; flags?: Record<string, boolean>; storage?: { url: string } };
const eventsOf = async (query: string) => (await call(`${platform.us.url}/v3/${sandbox}/events?${query}&limit=300`)).json.items as Ev[];

it('refuses mail for a domain the region does not hold at RCPT TO, with 550', async () => {
  const error = await inbound()
    .sendMail({ from: 'a@example.org', to: 'someone@not-ours.example', subject: 'x', text: 'x' })
    .then(() => undefined, (e: { responseCode?: number; response?: string }) => e);
  expect(error?.responseCode).toBe(550);
  expect(error?.response).toMatch(/not-ours\.example/);
});

describe('routes API (mailgun.js mg.routes)', () => {
  it('creates, reads, lists, updates, matches and deletes routes', async () => {
    const created = await mg.routes.create({ priority: '1' as unknown as number, description: 'support', expression: `match_recipient("support@${sandbox}")`, action: ['forward("https://example.com/in")', 'stop()'] });
    expect(created).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{24}$/), priority: 1, actions: ['forward("https://example.com/in")', 'stop()'] });
    expect(new Date(created.created_at).getTime()).toBeGreaterThan(0);
    const other = await mg.routes.create({ priority: PRIORITY_0, description: 'all', expression: 'catch_all()', action: ['store()'] });
    expect(await mg.routes.get(created.id)).toMatchObject({ id: created.id, description: 'support' });
    // Evaluation order: priority, then age.
    expect((await mg.routes.list({})).map((r) => r.id)).toEqual([other.id, created.id]);
    expect((await mg.routes.list({ skip: 1, limit: 1 })).map((r) => r.id)).toEqual([created.id]);
    const updated = await mg.routes.update(created.id, { priority: PRIORITY_0, description: 'changed', expression: `match_recipient("support@${sandbox}")`, action: ['store()'] });
    expect(updated).toMatchObject({ id: created.id, description: 'changed', message: 'Route has been updated' });
    // Both at priority 0 now: the older route comes first.
    expect(await mg.routes.matchAddress(`support@${sandbox}`)).toMatchObject({ id: created.id });
    expect(await mg.routes.matchAddress('anyone@example.org')).toMatchObject({ id: other.id });
    expect(await mg.routes.destroy(created.id)).toMatchObject({ id: created.id, message: 'Route has been deleted' });
    expect((await sdkError(mg.routes.get(created.id))).status).toBe(404);
  });

  it('refuses a bad regex or action with 400 and stores nothing', async () => {
    const bad = await sdkError(mg.routes.create({ priority: PRIORITY_0, description: '', expression: 'match_recipient("(unclosed")', action: ['stop()'] }));
    expect(bad.status).toBe(400);
    expect(bad.details).toMatch(/Invalid regular expression/);
    expect((await sdkError(mg.routes.create({ priority: PRIORITY_0, description: '', expression: 'catch_all()', action: ['explode()'] }))).status).toBe(400);
    expect((await sdkError(mg.routes.create({ priority: PRIORITY_0, description: '', expression: 'catch_all()', action: ['forward("http://169.254.169.254/latest")'] }))).status).toBe(400);
    const limit = await call(`${platform.us.url}/v3/routes?limit=1001`);
    expect(limit.status).toBe(400);
    expect(limit.json.message).toBe("The 'limit' parameter can't be larger than 1000");
    expect(await mg.routes.list({})).toEqual([]);
  });
});

it('forwards received mail to a URL as Mailgun\'s signed form, captures filled in', async () => {
  await mg.routes.create({ priority: PRIORITY_0, description: '', expression: `match_recipient("(?P<user>[^@]+)@${sandbox.replace(/\./g, '\\.')}")`, action: [`forward("${receiver.url}/in?user=\\g<user>")`] });
  const info = await inbound().sendMail({
    from: 'Bob <bob@example.org>',
    to: `help@${sandbox}`,
    subject: 'Question',
    text: 'Is it ready?\n\nOn Mon, Jan 1, 2024 at 10:00 AM Ann <ann@example.com> wrote:\n> Soon.\n',
    attachments: [{ filename: 'notes.txt', content: 'some notes' }],
  });
  expect(info.response).toMatch(/^250 /);
  const post = await eventually(async () => receiver.on('/in?user=help')[0]);
  expect(post.fields).toMatchObject({ recipient: `help@${sandbox}`, sender: 'bob@example.org', subject: 'Question', 'stripped-text': 'Is it ready?', 'attachment-count': '1' });
  expect(post.fields['body-plain']).toContain('Soon.');
  expect(JSON.parse(post.fields['message-headers']!)).toEqual(expect.arrayContaining([['Subject', 'Question']]));
  expect(post.fields['Subject']).toBe('Question');
  expect(post.files).toEqual([expect.objectContaining({ field: 'attachment-1', filename: 'notes.txt', size: 10 })]);
  // Signed as webhooks are: HMAC-SHA256(signing key, timestamp + token).
  const key = (await call(`${platform.us.url}/v5/accounts/http_signing_key`)).json.http_signing_key as string;
  expect(createHmac('sha256', key).update(post.fields['timestamp']! + post.fields['token']!).digest('hex')).toBe(post.fields['signature']);
  const accepted = await eventually(async () => (await eventsOf('event=accepted')).find((e) => e.recipient === `help@${sandbox}`));
  expect(accepted).toMatchObject({ method: 'smtp', flags: { 'is-routed': true } });
});

it('forwards received mail to an address through the sending pipeline', async () => {
  await mg.routes.create({ priority: PRIORITY_0, description: '', expression: `match_recipient("fwd@${sandbox}")`, action: ['forward("ann@example.com")'] });
  await inbound().sendMail({ from: 'bob@example.org', to: `fwd@${sandbox}`, subject: 'Pass it on', text: 'Hello' });
  const delivered = await eventually(async () => (await eventsOf('event=delivered')).find((e) => e.recipient === 'ann@example.com'));
  expect(delivered).toMatchObject({ message: { headers: { subject: 'Pass it on' } } });
  const sent = platform.us.ses.sent.find((m) => m.destinations.includes('ann@example.com') && m.raw.toString().includes('Pass it on'))!.raw.toString();
  // From the receiving domain (SES sends only verified identities' mail), replies to the sender.
  expect(sent).toMatch(new RegExp(`^From: "bob@example.org via ${sandbox.replace(/\./g, '\\.')}" <postmaster@`, 'm'));
  expect(sent).toMatch(/^Reply-To: bob@example.org/m);
});

it('stores received mail, records a stored event and notifies; the stored message reads back as JSON and MIME', async () => {
  await mg.routes.create({ priority: PRIORITY_0, description: '', expression: 'match_header("subject", "keep.*")', action: [`store(notify="${receiver.url}/stored")`, 'stop()'] });
  await inbound().sendMail({ from: 'bob@example.org', to: `box@${sandbox}`, subject: 'keep this', text: 'Stored body' });
  const note = await eventually(async () => receiver.on('/stored')[0]);
  expect(note.fields).toMatchObject({ domain: sandbox, recipient: `box@${sandbox}`, subject: 'keep this' });
  const url = note.fields['message-url']!;
  expect(url).toMatch(new RegExp(`^${platform.us.url}/v3/domains/${sandbox}/messages/`));
  const json = await call(url);
  expect(json.status).toBe(200);
  expect(json.json).toMatchObject({ subject: 'keep this', 'body-plain': expect.stringContaining('Stored body'), 'stripped-text': 'Stored body' });
  const mime = await call(url, { headers: { accept: 'message/rfc2822' } });
  expect(mime.json['body-mime']).toContain('Subject: keep this');
  const stored = await eventually(async () => (await eventsOf('event=stored'))[0]);
  expect(stored.storage?.url).toBe(url);
});

it('gives a forward that the receiver refuses with 406 a failed event, and does not retry it', async () => {
  receiver.status.set('/refuse', 406);
  await mg.routes.create({ priority: PRIORITY_0, description: '', expression: `match_recipient("no@${sandbox}")`, action: [`forward("${receiver.url}/refuse")`] });
  await inbound().sendMail({ from: 'bob@example.org', to: `no@${sandbox}`, subject: 'Refused', text: 'x' });
  const failed = await eventually(async () => (await eventsOf('event=failed')).find((e) => e.recipient === `no@${sandbox}`));
  expect(failed).toMatchObject({ severity: 'permanent', 'delivery-status': { code: 406 } });
  expect(receiver.on('/refuse')).toHaveLength(1);
});

it("honours the domain's spam_action on SES's verdict: tag adds X-Mailgun-Sflag, block drops the message", async () => {
  const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';
  await mg.routes.create({ priority: PRIORITY_0, description: '', expression: 'match_header("subject", "spam.*")', action: [`forward("${receiver.url}/spam")`] });
  const setAction = (action: string) => call(`${platform.us.url}/v4/domains/${sandbox}`, { method: 'PUT', body: `spam_action=${action}`, contentType: 'application/x-www-form-urlencoded' });
  expect((await setAction('tag')).status).toBe(200);
  await inbound().sendMail({ from: 'bob@example.org', to: `spam@${sandbox}`, subject: 'spam tagged', text: GTUBE });
  const tagged = await eventually(async () => receiver.on('/spam').find((p) => p.fields['subject'] === 'spam tagged'));
  expect(tagged.fields['X-Mailgun-Sflag']).toBe('Yes');
  expect(tagged.fields['X-Ses-Spam-Verdict']).toBe('FAIL');
  expect((await setAction('block')).status).toBe(200);
  await inbound().sendMail({ from: 'bob@example.org', to: `spam@${sandbox}`, subject: 'spam blocked', text: GTUBE });
  await inbound().sendMail({ from: 'bob@example.org', to: `spam@${sandbox}`, subject: 'spam-free', text: 'clean' });
  await eventually(async () => receiver.on('/spam').find((p) => p.fields['subject'] === 'spam-free'));
  expect(receiver.on('/spam').some((p) => p.fields['subject'] === 'spam blocked')).toBe(false);
  await setAction('disabled');
});

it('posts mail received for a mailing list to its members, each with their own values; a readonly list refuses with a failed event', async () => {
  const list = `club@${sandbox}`;
  const readonly = `notices@${sandbox}`;
  await mg.lists.create({ address: list, access_level: 'everyone', reply_preference: 'list' } as never);
  await mg.lists.create({ address: readonly, access_level: 'readonly' } as never);
  await mg.lists.members.createMembers(list, { members: JSON.stringify([{ address: 'kim@example.com', name: 'Kim', vars: { seat: '12A' } }, { address: 'lee@example.com', name: 'Lee', vars: { seat: '3C' } }]), upsert: 'yes' } as never);
  const info = await inbound().sendMail({ from: 'Ola <ola@example.org>', to: [list, readonly], subject: 'Seats for %recipient.name%', text: 'Your seat: %recipient.seat%' });
  expect(info.rejected).toEqual([]);

  const copies = await eventually(async () => {
    const sent = platform.us.ses.sent.filter((m) => m.raw.toString().includes('Seats for'));
    return sent.length >= 2 ? sent : undefined;
  });
  const byMember = Object.fromEntries(copies.map((m) => [m.destinations[0], m.raw.toString()]));
  expect(Object.keys(byMember).sort()).toEqual(['kim@example.com', 'lee@example.com']);
  expect(byMember['kim@example.com']).toContain('Subject: Seats for Kim');
  expect(byMember['kim@example.com']).toContain('Your seat: 12A');
  expect(byMember['lee@example.com']).toContain('Your seat: 3C');
  expect(byMember['kim@example.com']).toMatch(new RegExp(`^Reply-To: ${list}$`, 'm'));

  const refused = await eventually(async () => (await eventsOf('event=failed')).find((e) => e.recipient === readonly));
  expect(JSON.stringify(refused)).toContain('read-only');
  // Neither list address was routed or stored as a received message of its own.
  expect((await eventsOf('event=accepted')).filter((e) => e.recipient === list || e.recipient === readonly)).toEqual([]);
});
