import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventsOf, eventually, sandboxOf, sdk, sdkError, sesSendsOf, startTestPlatform } from '../support/platform';

// Sending through the official SDK, from acceptance to SES and back as events (contract §2, §6).
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;

type Ev = Record<string, unknown> & { event: string; recipient?: string; severity?: string; reason?: string; storage?: { key: string; url: string } };

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
});
afterAll(() => platform.close());

const settled = (messageId: string, count: number) =>
  eventually(async () => {
    const events = await eventsOf<Ev>(platform.us.url, sandbox, messageId);
    return events.filter((e) => e.event !== 'accepted').length >= count ? events : undefined;
  });

it('accepts a message, sends it through SES and records accepted then delivered per recipient', async () => {
  const sent = await mg.messages.create(sandbox, {
    from: `Sender <news@${sandbox}>`,
    to: ['Ann <ann@example.com>', 'bob@example.com'],
    cc: 'carol@example.com',
    bcc: 'dan@example.com',
    subject: 'Hello',
    text: 'plain body',
    html: '<p>html body</p>',
    'o:tag': ['welcome', 'onboarding'],
    'v:plan': 'pro',
    'h:X-Campaign': 'spring',
    attachment: [{ filename: 'report.txt', data: Buffer.from('attached bytes') }],
  } as never);
  expect(sent).toMatchObject({ status: 200, message: 'Queued. Thank you.' });
  expect(sent.id).toMatch(new RegExp(`^<\\d{14}\\.[0-9a-f]{16}@${sandbox.replace(/\./g, '\\.')}>$`));

  const events = await settled(sent.id!, 4);
  const byType = (name: string) => events.filter((e) => e.event === name).map((e) => e.recipient).sort();
  const everyone = ['ann@example.com', 'bob@example.com', 'carol@example.com', 'dan@example.com'];
  expect(byType('accepted')).toEqual(everyone);
  expect(byType('delivered')).toEqual(everyone);
  const accepted = events.find((e) => e.event === 'accepted')!;
  expect(accepted).toMatchObject({
    'log-level': 'info',
    method: 'http',
    tags: ['welcome', 'onboarding'],
    'user-variables': { plan: 'pro' },
    message: { headers: { 'message-id': sent.id!.slice(1, -1), subject: 'Hello' }, attachments: [{ filename: 'report.txt', 'content-type': 'text/plain', size: 14 }] },
  });
  expect(typeof accepted.timestamp).toBe('number');
  expect(accepted.storage!.url).toBe(`${platform.us.url}/v3/domains/${sandbox}/messages/${accepted.storage!.key}`);

  // One SES call for the message; Bcc travels in the envelope only.
  const raw = sesSendsOf(platform.us, sent.id!)[0]!;
  expect(raw.destinations.sort()).toEqual(everyone);
  const mime = raw.raw.toString();
  expect(mime).toContain('X-Campaign: spring');
  expect(mime).toContain('X-Mailgun-Tag: welcome');
  expect(mime).not.toMatch(/^Bcc:/im);
  expect(mime).toContain('report.txt');
});

it('turns SES bounces and complaints into failed and complained events for the recipients SES names', async () => {
  const sent = await mg.messages.create(sandbox, {
    from: `news@${sandbox}`,
    to: ['bounce@simulator.amazonses.com', 'complaint@simulator.amazonses.com', 'ok@example.com'],
    subject: 'Sim',
    text: 'x',
  } as never);
  const events = await settled(sent.id!, 4);
  expect(events.find((e) => e.event === 'failed')).toMatchObject({
    recipient: 'bounce@simulator.amazonses.com',
    severity: 'permanent',
    reason: 'bounce',
    'delivery-status': { code: 550, 'enhanced-code': '5.1.1' },
  });
  expect(events.filter((e) => e.event === 'complained').map((e) => e.recipient)).toEqual(['complaint@simulator.amazonses.com']);
  expect(events.filter((e) => e.event === 'delivered').map((e) => e.recipient).sort()).toEqual(['complaint@simulator.amazonses.com', 'ok@example.com']);
});

it('records test-mode messages without handing them to SES', async () => {
  const before = platform.us.ses.sentTotal;
  const sent = await mg.messages.create(sandbox, { from: `t@${sandbox}`, to: 'x@example.com', subject: 'T', text: 't', 'o:testmode': true } as never);
  const events = await settled(sent.id!, 1);
  expect(events.find((e) => e.event === 'delivered')).toMatchObject({ flags: { 'is-test-mode': true } });
  expect(platform.us.ses.sentTotal).toBe(before);
});

it('sends a caller-built MIME message to the given recipients', async () => {
  const mime = [`From: mime@${sandbox}`, 'To: someone@example.com', 'Subject: Raw', 'Message-ID: <raw-1@example.com>', '', 'Body'].join('\r\n');
  const sent = await mg.messages.create(sandbox, { to: 'someone@example.com', message: Buffer.from(mime) } as never);
  expect(sent.id).toBe('<raw-1@example.com>');
  const events = await settled(sent.id!, 1);
  expect(events.find((e) => e.event === 'delivered')!.recipient).toBe('someone@example.com');
});

it('serves the stored message as parsed JSON or raw MIME, and resends it as a new message', async () => {
  const sent = await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: 'keep@example.com', subject: 'Stored', text: 'stored text', html: '<b>stored</b>' } as never);
  const key = (await settled(sent.id!, 1))[0]!.storage!.key;
  const stored = await call(`${platform.us.url}/v3/domains/${sandbox}/messages/${key}`);
  expect(stored.json).toMatchObject({ subject: 'Stored', 'body-plain': 'stored text', 'body-html': '<b>stored</b>', recipients: 'keep@example.com', 'Message-Id': sent.id });
  expect(Array.isArray(stored.json['message-headers'])).toBe(true);
  const raw = await call(`${platform.us.url}/v3/domains/${sandbox}/messages/${key}`, { headers: { accept: 'message/rfc2822' } });
  expect(String(raw.json['body-mime'])).toContain('Subject: Stored');

  // mailgun.js has resendEmail at run time; its IMessagesClient interface omits it.
  const messages = mg.messages as unknown as { resendEmail(domain: string, key: string, to: string): Promise<{ id?: string }> };
  const again = await messages.resendEmail(sandbox, key, 'other@example.com');
  expect(again.id).not.toBe(sent.id);
  const events = await settled(again.id!, 1);
  expect(events.find((e) => e.event === 'delivered')!.recipient).toBe('other@example.com');
  expect((await call(`${platform.us.url}/v3/domains/${sandbox}/messages/nope`)).status).toBe(404);
});

describe('TLS', () => {
  const sendTo = async (recipient: string, extra: Record<string, unknown> = {}) => {
    const sent = await mg.messages.create(sandbox, { from: `f@${sandbox}`, to: recipient, subject: 'tls', text: 't', ...extra } as never);
    const events = await settled(sent.id!, 1);
    const ses = sesSendsOf(platform.us, sent.id!)[0]!;
    return { policy: ses.tlsPolicy, delivered: events.find((e) => e.event === 'delivered') as Ev & { 'delivery-status': Record<string, unknown> } };
  };

  it('sends o:require-tls messages through the configuration set whose TLS policy is Require', async () => {
    const required = await sendTo('tls-required@example.com', { 'o:require-tls': true });
    expect(required.policy).toBe('REQUIRE');
    // TLS is known only when it was required; SES says nothing of certificates or the MX it reached.
    expect(required.delivered['delivery-status']).toMatchObject({ tls: true, code: 250 });
    expect(required.delivered['delivery-status']).not.toHaveProperty('certificate-verified');
    expect(required.delivered['delivery-status']).not.toHaveProperty('mx-host');

    const opportunistic = await sendTo('tls-optional@example.com');
    expect(opportunistic.policy).toBe('OPTIONAL');
    expect(opportunistic.delivered['delivery-status']).not.toHaveProperty('tls');
  });

  it("follows the domain's require_tls unless the message says otherwise", async () => {
    await mg.domains.update(sandbox, { require_tls: 'true' } as never);
    try {
      expect((await mg.domains.get(sandbox)).require_tls).toBe(true);
      expect((await sendTo('domain-tls@example.com')).policy).toBe('REQUIRE');
      expect((await sendTo('domain-tls-off@example.com', { 'o:require-tls': 'no' })).policy).toBe('OPTIONAL');
    } finally {
      await mg.domains.update(sandbox, { require_tls: 'false' } as never);
    }
  });

  it('refuses a value that is not yes, no, true or false', async () => {
    for (const option of ['o:require-tls', 'o:skip-verification', 'o:dkim']) {
      expect(await sdkError(mg.messages.create(sandbox, { from: `f@${sandbox}`, to: 'a@example.com', text: 't', [option]: 'maybe' } as never))).toEqual({
        status: 400,
        details: `Invalid parameter '${option}': must be one of yes, no, true or false`,
      });
    }
  });
});

describe('refusals', () => {
  it.each([
    [{ from: 'f@x.com', subject: 's', text: 't' }, "Missing parameter 'to'."],
    [{ from: 'f@x.com', to: 'a@example.com', subject: 's' }, "Need at least one of 'text', 'html', 'amp-html' or 'template' parameters specified"],
    [{ from: 'f@x.com', to: 'not-an-address', subject: 's', text: 't' }, "'to' parameter is not a valid address. please check documentation"],
    [{ from: 'f@x.com', to: 'a@example.com', text: 't', 'o:tag': ['1', '2', '3', '4'] }, 'A message can carry at most 3 tags'],
    [{ from: 'f@x.com', to: 'a@example.com', text: 't', 'v:big': 'x'.repeat(17 * 1024) }, 'The o:, h:, v: and t: options together exceed 16KB'],
  ])('%j → 400 and nothing stored or sent', async (form, message) => {
    const before = platform.us.ses.sentTotal;
    expect(await sdkError(mg.messages.create(sandbox, form as never))).toEqual({ status: 400, details: message });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(platform.us.ses.sentTotal).toBe(before);
  });

  it('sends to more recipients than SES takes in one call, in chunks of 50', async () => {
    const to = Array.from({ length: 120 }, (_, i) => `many${i}@example.com`).join(',');
    const sent = await mg.messages.create(sandbox, { from: `f@${sandbox}`, to, subject: 'many', text: 't' } as never);
    await settled(sent.id!, 120);
    const calls = sesSendsOf(platform.us, sent.id!);
    expect(calls.map((m) => m.destinations.length)).toEqual([50, 50, 20]);
  });

  it('refuses more than 1000 recipients', async () => {
    const to = Array.from({ length: 1001 }, (_, i) => `r${i}@example.com`).join(',');
    expect(await sdkError(mg.messages.create(sandbox, { from: `f@${sandbox}`, to, text: 't' } as never))).toEqual({ status: 400, details: 'Too many recipients: at most 1000 per request' });
  });

  it('refuses unknown and unverified domains', async () => {
    expect((await sdkError(mg.messages.create('nowhere.example.com', { from: 'f@x.com', to: 'a@example.com', text: 't' } as never))).status).toBe(404);
    await mg.domains.create({ name: 'unverified.example.com', dkim_key_size: '1024' } as never);
    const error = await sdkError(mg.messages.create('unverified.example.com', { from: 'f@unverified.example.com', to: 'a@example.com', text: 't' } as never));
    expect(error.status).toBe(400);
    expect(error.details).toContain('is not verified');
  });
});

describe('events API', () => {
  it('pages with opaque tokens in the last path segment and ends on an empty page', async () => {
    for (let i = 0; i < 3; i++) await mg.messages.create(sandbox, { from: `p@${sandbox}`, to: `page${i}@example.com`, subject: `P${i}`, text: 't', 'o:tag': 'paging' } as never);
    await eventually(async () => ((await call(`${platform.us.url}/v3/${sandbox}/events?tags=paging&event=delivered`)).json.items as Ev[]).length === 3);
    const seen: string[] = [];
    let url = `${platform.us.url}/v3/${sandbox}/events?tags=paging&event=accepted%20OR%20delivered&limit=2&ascending=yes`;
    for (let pages = 0; pages < 10; pages++) {
      const page = await call(url);
      const items = page.json.items as Ev[];
      const paging = page.json.paging as Record<string, string>;
      expect(Object.keys(paging).sort()).toEqual(['first', 'last', 'next', 'previous']);
      if (!items.length) break;
      seen.push(...items.map((e) => `${e.event}:${e.recipient}`));
      url = paging.next!;
      expect(url.startsWith(`${platform.us.url}/v3/${sandbox}/events/`)).toBe(true);
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  it('reads pages the way mailgun.js asks for them', async () => {
    const first = await mg.events.get(sandbox, { tags: 'paging', limit: 2 } as never);
    expect(first.items).toHaveLength(2);
    const next = await mg.events.get(sandbox, { page: first.pages.next!.page } as never);
    expect(next.items.length).toBeGreaterThan(0);
    expect(next.items.map((e) => e.id)).not.toContain(first.items[0]!.id);
  });

  it('refuses a contradictory range and a bad filter', async () => {
    const bad = await call(`${platform.us.url}/v3/${sandbox}/events?begin=1700000000&end=1600000000&ascending=yes`);
    expect(bad).toMatchObject({ status: 400, json: { message: "'ascending' contradicts the order of 'begin' and 'end'" } });
    const filter = await call(`${platform.us.url}/v3/${sandbox}/events?event=OR`);
    expect(filter.status).toBe(400);
    expect((await call(`${platform.us.url}/v3/${sandbox}/events/not-a-token`)).status).toBe(400);
  });
});

describe('batch sending', () => {
  it('sends each recipient its own copy with its variables, showing only itself in To', async () => {
    const sent = await mg.messages.create(sandbox, {
      from: `b@${sandbox}`,
      to: ['ann@batch.example', 'Bob <bob@batch.example>', 'cy@batch.example'],
      subject: 'Hi %recipient.first%',
      text: 'Your code is %recipient.code%.',
      'recipient-variables': JSON.stringify({ 'ann@batch.example': { first: 'Ann', code: 1 }, 'bob@batch.example': { first: 'Bob', code: 2 } }),
    } as never);
    const events = await settled(sent.id!, 3);
    expect(events.filter((e) => e.event === 'delivered').map((e) => e.recipient).sort()).toEqual(['ann@batch.example', 'bob@batch.example', 'cy@batch.example']);
    const copies = sesSendsOf(platform.us, sent.id!);
    expect(copies).toHaveLength(3);
    const ann = copies.find((m) => m.destinations[0] === 'ann@batch.example')!.raw.toString();
    expect(ann).toMatch(/^To: ann@batch\.example$/m);
    expect(ann).toContain('Subject: Hi Ann');
    expect(ann).toContain('Your code is 1.');
    expect(ann).not.toContain('bob@batch.example');
    // Someone without variables gets the placeholders emptied, as Mailgun does.
    expect(copies.find((m) => m.destinations[0] === 'cy@batch.example')!.raw.toString()).toContain('Your code is .');
  });

  it('refuses malformed recipient-variables and cc with a batch', async () => {
    const base = { from: `b@${sandbox}`, to: 'a@example.com', text: 't' };
    expect(await sdkError(mg.messages.create(sandbox, { ...base, 'recipient-variables': '{nope' } as never))).toEqual({ status: 400, details: "'recipient-variables' parameter is not a valid JSON" });
    expect((await sdkError(mg.messages.create(sandbox, { ...base, cc: 'c@example.com', 'recipient-variables': '{}' } as never))).status).toBe(400);
  });
});

describe('suppressions at send time', () => {
  it('adds hard bounces and complaints to the lists, and then stops sending to them', async () => {
    // Earlier tests bounced these addresses already; start from clean lists.
    await call(`${platform.us.url}/v3/${sandbox}/bounces/bounce@simulator.amazonses.com`, { method: 'DELETE' });
    await call(`${platform.us.url}/v3/${sandbox}/complaints/complaint@simulator.amazonses.com`, { method: 'DELETE' });
    const first = await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: ['bounce@simulator.amazonses.com', 'complaint@simulator.amazonses.com'], subject: 'x', text: 'x' } as never);
    await settled(first.id!, 3);
    await eventually(async () => (await call(`${platform.us.url}/v3/${sandbox}/bounces/bounce@simulator.amazonses.com`)).status === 200);
    expect((await call(`${platform.us.url}/v3/${sandbox}/bounces/bounce@simulator.amazonses.com`)).json).toMatchObject({ address: 'bounce@simulator.amazonses.com', code: '550' });
    await eventually(async () => (await call(`${platform.us.url}/v3/${sandbox}/complaints/complaint@simulator.amazonses.com`)).status === 200);

    await mg.suppressions.create(sandbox, 'unsubscribes', { address: 'unsub@example.com', tag: 'newsletter' } as never);
    const second = await mg.messages.create(sandbox, {
      from: `s@${sandbox}`,
      to: ['bounce@simulator.amazonses.com', 'complaint@simulator.amazonses.com', 'unsub@example.com', 'fine@example.com'],
      subject: 'again',
      text: 'x',
      'o:tag': 'newsletter',
    } as never);
    const events = await settled(second.id!, 4);
    const failed = Object.fromEntries(events.filter((e) => e.event === 'failed').map((e) => [e.recipient, e.reason]));
    expect(failed).toEqual({
      'bounce@simulator.amazonses.com': 'suppress-bounce',
      'complaint@simulator.amazonses.com': 'suppress-complaint',
      'unsub@example.com': 'suppress-unsubscribe',
    });
    const sentNow = platform.us.ses.sent.filter((m) => m.raw.toString().includes(second.id!));
    expect(sentNow.flatMap((m) => m.destinations)).toEqual(['fine@example.com']);
  });

  it('never adds an allowlisted address to the bounce list', async () => {
    await mg.suppressions.create(sandbox, 'whitelists', { domain: 'simulator.amazonses.com' } as never);
    await call(`${platform.us.url}/v3/${sandbox}/bounces/bounce@simulator.amazonses.com`, { method: 'DELETE' });
    const sent = await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: 'bounce@simulator.amazonses.com', subject: 'x', text: 'x' } as never);
    await settled(sent.id!, 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await call(`${platform.us.url}/v3/${sandbox}/bounces/bounce@simulator.amazonses.com`)).status).toBe(404);
    await call(`${platform.us.url}/v3/${sandbox}/whitelists/simulator.amazonses.com`, { method: 'DELETE' });
  });
});

describe('templates', () => {
  beforeAll(async () => {
    await call(`${platform.us.url}/v3/${sandbox}/templates`, {
      method: 'POST',
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({
        name: 'welcome',
        template: '<h1>Hi {{name}}</h1><p>{{{raw}}}</p>',
        tag: 'v1',
        headers: JSON.stringify({ From: `Team <team@${sandbox}>`, Subject: 'Welcome {{name}}', 'Reply-To': 'help@example.com' }),
      }).toString(),
    });
  });

  it('renders the active version with t:variables, taking From, Subject and Reply-To from it', async () => {
    const sent = await mg.messages.create(sandbox, { to: 'tpl@example.com', template: 'welcome', 't:variables': JSON.stringify({ name: '<Ann>', raw: '<i>ok</i>' }), 't:text': 'yes' } as never);
    const events = await settled(sent.id!, 1);
    expect(events.find((e) => e.event === 'accepted')).toMatchObject({ template: { name: 'welcome', version: 'v1', 'is-text': true }, message: { headers: { subject: 'Welcome <Ann>' } } });
    const mime = sesSendsOf(platform.us, sent.id!)[0]!.raw.toString();
    expect(mime).toContain('Subject: Welcome <Ann>');
    expect(mime).toMatch(/^Reply-To: help@example\.com$/m);
    expect(mime).toContain('team@');
    expect(mime).toContain('&lt;Ann&gt;');
    expect(mime).toContain('<i>ok</i>');
    expect(mime).toContain('text/plain');
  });

  it("lets the message's own headers win over the template's", async () => {
    const sent = await mg.messages.create(sandbox, { from: `me@${sandbox}`, to: 'tpl2@example.com', subject: 'Mine', template: 'welcome', 'h:Reply-To': 'me@example.com', 'h:X-Mailgun-Variables': JSON.stringify({ name: 'Go' }) } as never);
    await settled(sent.id!, 1);
    const mime = sesSendsOf(platform.us, sent.id!)[0]!.raw.toString();
    expect(mime).toContain('Subject: Mine');
    expect(mime).toMatch(/^Reply-To: me@example\.com$/m);
    expect(mime).toContain('Hi Go');
  });

  it('renders a template as the body of a messages.mime send, with a batch of recipient variables', async () => {
    const mime = [`From: me@${sandbox}`, 'To: a@example.com, b@example.com', 'Subject: Batch %recipient.first%', 'Content-Type: text/plain', '', 'ignored'].join('\r\n');
    const sent = await mg.messages.create(sandbox, {
      to: ['a@example.com', 'b@example.com'],
      message: Buffer.from(mime),
      template: 'welcome',
      't:variables': JSON.stringify({ name: '%recipient.first%' }),
      'recipient-variables': JSON.stringify({ 'a@example.com': { first: 'Ann' }, 'b@example.com': { first: 'Bea' } }),
    } as never);
    const events = await settled(sent.id!, 2);
    expect(events.filter((e) => e.event === 'accepted').map((e) => (e as { template?: { name: string } }).template?.name)).toEqual(['welcome', 'welcome']);
    const copies = sesSendsOf(platform.us, sent.id!).map((m) => m.raw.toString());
    const ann = copies.find((c) => c.includes('Hi Ann'))!;
    // The message's own Subject wins over the template's; each copy shows only its recipient.
    expect(ann).toMatch(/^Subject: Batch Ann$/m);
    expect(ann).toMatch(/^To: a@example\.com$/m);
    expect(copies.find((c) => c.includes('Hi Bea'))).toMatch(/^To: b@example\.com$/m);
    expect(ann).toMatch(/^Reply-To: help@example\.com$/m);
  });

  it('sends from the domain postmaster when neither message nor template names a sender', async () => {
    const sent = await mg.messages.create(sandbox, { to: 'nofrom@example.com', subject: 's', text: 't' } as never);
    const accepted = (await settled(sent.id!, 1)).find((e) => e.event === 'accepted')!;
    expect((accepted.message as { headers: { from: string } }).headers.from).toBe(`postmaster@${sandbox}`);
  });

  it('refuses an unknown template or version, and bad t:variables', async () => {
    expect(await sdkError(mg.messages.create(sandbox, { to: 'a@example.com', template: 'nope' } as never))).toEqual({ status: 400, details: 'template not found' });
    expect((await sdkError(mg.messages.create(sandbox, { to: 'a@example.com', template: 'welcome', 't:version': 'v9' } as never))).status).toBe(400);
    expect(await sdkError(mg.messages.create(sandbox, { to: 'a@example.com', template: 'welcome', 't:variables': '[1]' } as never))).toEqual({ status: 400, details: "'t:variables' must be a JSON object" });
  });
});
