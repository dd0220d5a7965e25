import { createHmac } from 'node:crypto';
import { getItem } from '../../functions/data/store';
import { dayOf, type EventData, type RecordedEvent } from '../../functions/events/event-store';
import { failedDeliveries } from '../../functions/webhooks/failed-deliveries';
import { fanOutWebhooks } from '../../functions/webhooks/fan-out';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, primaryAccountId, sandboxOf, sdk, sdkError, startTestPlatform } from '../support/platform';
import { WebhookReceiver } from '../support/webhook-receiver';
import { signingKeyKeys } from '../../functions/webhooks/signing-key';

// Webhooks from configuration to signed deliveries: domain level (v3 through mailgun.js, v4),
// account level (/v1/webhooks), the signing key, and delivery with Mailgun's retry rules against
// a receiver on loopback. The retry schedule is scaled down to about a second per step.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
let accountId: string;
let receiver: WebhookReceiver;
let base: string;

const form = (fields: Array<[string, string]>) => ({ contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() });

beforeAll(async () => {
  // The longest delivery timeout, so a receiver held open by a test is not given up on however slow the machine.
  platform = await startTestPlatform({ env: { WEBHOOK_RETRY_SCALE: '0.0001', WEBHOOK_TIMEOUT_MS: '60000' } });
  mg = sdk(platform.us.url);
  base = platform.us.url;
  sandbox = await sandboxOf(mg);
  accountId = await primaryAccountId(platform.us);
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await platform.close();
  await receiver.close();
});

/** A test-mode send: the send worker records accepted and delivered events, as for real mail. */
async function send(recipient: string): Promise<void> {
  await mg.messages.create(sandbox, { from: `hooks@${sandbox}`, to: recipient, subject: 'Webhook', text: 'hi', 'o:testmode': 'yes' } as never);
}

/** An event as the events API shows it, once recorded. */
async function eventOf(name: 'accepted' | 'delivered', recipient: string): Promise<EventData> {
  return eventually(async () => {
    const res = await call(`${base}/v3/${sandbox}/events?event=${name}&recipient=${encodeURIComponent(recipient)}`);
    return (res.json.items as EventData[])[0];
  });
}

const fanOut = (events: RecordedEvent[]) => platform.us.run(() => fanOutWebhooks(events));
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const verifies = (key: string, s: { timestamp: string; token: string; signature: string }) => createHmac('sha256', key).update(s.timestamp + s.token).digest('hex') === s.signature;

describe('domain webhooks (v3, through mailgun.js)', () => {
  it('create, list, get, update and delete one type; unsubscribe is an alias of unsubscribed', async () => {
    const created = await mg.webhooks.create(sandbox, 'clicked', `${receiver.url}/v3-a`, false);
    expect(created).toMatchObject({ id: 'clicked', urls: [`${receiver.url}/v3-a`] });
    await mg.webhooks.create(sandbox, 'unsubscribe', `${receiver.url}/v3-u`, false);
    expect(await mg.webhooks.list(sandbox, {})).toEqual({ clicked: { urls: [`${receiver.url}/v3-a`] }, unsubscribed: { urls: [`${receiver.url}/v3-u`] } });
    expect(await mg.webhooks.get(sandbox, 'unsubscribe' as never)).toMatchObject({ urls: [`${receiver.url}/v3-u`] });

    const updated = await mg.webhooks.update(sandbox, 'clicked', [`${receiver.url}/v3-b`, `${receiver.url}/v3-c`]);
    expect(updated.urls).toEqual([`${receiver.url}/v3-b`, `${receiver.url}/v3-c`]);
    const raw = await call(`${base}/v3/domains/${sandbox}/webhooks/clicked`);
    expect(raw.json).toEqual({ webhook: { urls: [`${receiver.url}/v3-b`, `${receiver.url}/v3-c`] } });

    const deleted = await call(`${base}/v3/domains/${sandbox}/webhooks/clicked`, { method: 'DELETE' });
    expect(deleted.json).toEqual({ message: 'Webhook has been deleted', webhook: { urls: [`${receiver.url}/v3-b`, `${receiver.url}/v3-c`] } });
    expect(await mg.webhooks.destroy(sandbox, 'unsubscribed')).toMatchObject({ urls: [`${receiver.url}/v3-u`] });
    expect(await sdkError(mg.webhooks.get(sandbox, 'clicked' as never))).toEqual({ status: 404, details: 'Webhook not found' });
    expect(await mg.webhooks.list(sandbox, {})).toEqual({});
  });

  it('refuses bad input with a 4xx message and changes nothing', async () => {
    await mg.webhooks.create(sandbox, 'opened', `${receiver.url}/keep`, false);
    const url = `${receiver.url}/x`;
    const refusals: Array<[() => Promise<unknown>, number, RegExp]> = [
      [() => mg.webhooks.create(sandbox, 'bogus', url, false), 400, /Invalid webhook name 'bogus'/],
      [() => mg.webhooks.create(sandbox, 'delivered', 'ftp://example.com/hook', false), 400, /is not a valid url: invalid URL scheme/],
      [() => mg.webhooks.create(sandbox, 'delivered', 'not a url', false), 400, /is not a valid url/],
      [() => mg.webhooks.create(sandbox, 'opened', url, false), 409, /Webhook already exists/],
      [() => mg.webhooks.update(sandbox, 'opened', [`${url}1`, `${url}2`, `${url}3`, `${url}4`]), 400, /more than 3 urls/],
      [() => mg.webhooks.update(sandbox, 'delivered', url), 404, /Webhook not found/],
      [() => mg.webhooks.list('absent.example.com', {}), 404, /Domain not found/],
    ];
    for (const [attempt, status, message] of refusals) {
      const error = await sdkError(attempt());
      expect([error.status, error.details]).toEqual([status, expect.stringMatching(message)]);
    }
    const missing = await call(`${base}/v3/domains/${sandbox}/webhooks`, { method: 'POST', ...form([['id', 'delivered']]) });
    expect([missing.status, missing.json.message]).toEqual([400, "Missing parameter 'url'"]);
    expect(await mg.webhooks.list(sandbox, {})).toEqual({ opened: { urls: [`${receiver.url}/keep`] } });
    await mg.webhooks.destroy(sandbox, 'opened');
  });

  it('tests a URL for real: the receiver gets a signed sample and its answer comes back', async () => {
    receiver.answer('/probe', () => ({ status: 202, body: 'Hi!' }));
    const result = await mg.webhooks.create(sandbox, 'permanent_fail', `${receiver.url}/probe`, true);
    expect(result).toEqual({ code: 202, message: 'Hi!' });
    const post = receiver.on('/probe')[0]!;
    expect(post.body['event-data']).toMatchObject({ event: 'failed', severity: 'permanent', flags: { 'is-test-mode': true } });
    const { http_signing_key: key } = await mg.accountManagement.getWebhookSigningKey();
    expect(verifies(key, post.body.signature)).toBe(true);
    // A test configures nothing.
    expect(await mg.webhooks.list(sandbox, {})).toEqual({});
  });
});

describe('domain webhooks (v4: one URL, several types)', () => {
  const url = () => `${receiver.url}/v4`;
  it('adds, replaces and removes a URL across types, answering the whole map', async () => {
    const added = await call(`${base}/v4/domains/${sandbox}/webhooks`, { method: 'POST', ...form([['url', url()], ['event_types', 'delivered'], ['event_types', 'opened']]) });
    expect(added.json).toEqual({ webhooks: { delivered: { urls: [url()] }, opened: { urls: [url()] } } });
    const again = await call(`${base}/v4/domains/${sandbox}/webhooks`, { method: 'POST', ...form([['url', url()], ['event_types', 'opened']]) });
    expect([again.status, again.json.message]).toEqual([400, `Webhook for event type 'opened' with URL '${url()}' already exists`]);

    const replaced = await call(`${base}/v4/domains/${sandbox}/webhooks`, { method: 'PUT', ...form([['url', url()], ['event_types', 'clicked,complained']]) });
    expect(replaced.json).toEqual({ webhooks: { clicked: { urls: [url()] }, complained: { urls: [url()] } } });
    const unknown = await call(`${base}/v4/domains/${sandbox}/webhooks`, { method: 'PUT', ...form([['url', `${url()}/other`], ['event_types', 'clicked']]) });
    expect([unknown.status, unknown.json.message]).toEqual([404, 'Webhook not found']);

    const removed = await call(`${base}/v4/domains/${sandbox}/webhooks?url=${encodeURIComponent(`${url()},http://127.0.0.1:1/none`)}`, { method: 'DELETE' });
    expect(removed.json).toEqual({ webhooks: {} });
    const noUrl = await call(`${base}/v4/domains/${sandbox}/webhooks`, { method: 'DELETE' });
    expect([noUrl.status, noUrl.json.message]).toEqual([400, "Missing parameter 'url'"]);
  });
});

describe('account webhooks (/v1/webhooks)', () => {
  const create = (url: string, types: string[], description?: string) =>
    call(`${base}/v1/webhooks`, { method: 'POST', ...form([['url', url], ...types.map((t): [string, string] => ['event_types', t]), ...(description ? [['description', description] as [string, string]] : [])]) });

  it('create, list, get, replace, delete one and delete many (ids win over all)', async () => {
    const one = await create(`${receiver.url}/acct-1`, ['delivered', 'permanent_fail'], 'first');
    expect(one.status).toBe(200);
    const id1 = one.json.webhook_id as string;
    expect(id1).toMatch(/^[0-9a-f]{24}$/);
    const id2 = (await create(`${receiver.url}/acct-2`, ['opened'])).json.webhook_id as string;
    const id3 = (await create(`${receiver.url}/acct-3`, ['clicked'])).json.webhook_id as string;

    const got = await call(`${base}/v1/webhooks/${id1}`);
    expect(got.json).toEqual({ webhook_id: id1, description: 'first', url: `${receiver.url}/acct-1`, event_types: ['delivered', 'permanent_fail'], created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
    expect(((await call(`${base}/v1/webhooks`)).json.webhooks as Array<{ webhook_id: string }>).map((w) => w.webhook_id)).toEqual([id1, id2, id3]);
    expect(((await call(`${base}/v1/webhooks?webhook_ids=${id3},${id1}`)).json.webhooks as Array<{ webhook_id: string }>).map((w) => w.webhook_id)).toEqual([id1, id3]);

    const replaced = await call(`${base}/v1/webhooks/${id1}`, { method: 'PUT', ...form([['url', `${receiver.url}/acct-1b`], ['event_types', 'accepted']]) });
    expect(replaced.status).toBe(200);
    expect((await call(`${base}/v1/webhooks/${id1}`)).json).toMatchObject({ url: `${receiver.url}/acct-1b`, event_types: ['accepted'], description: '' });

    expect((await call(`${base}/v1/webhooks/${id2}`, { method: 'DELETE' })).json).toEqual({ message: 'Webhook has been deleted', webhook_id: id2 });
    expect((await call(`${base}/v1/webhooks/${id2}`)).status).toBe(404);
    // webhook_ids wins over all=true: id3 stays.
    const many = await call(`${base}/v1/webhooks?webhook_ids=${id1}&all=true`, { method: 'DELETE' });
    expect(many.json).toEqual({ message: 'Webhooks have been deleted', webhook_ids: [id1] });
    expect(((await call(`${base}/v1/webhooks`)).json.webhooks as Array<{ webhook_id: string }>).map((w) => w.webhook_id)).toEqual([id3]);
    expect((await call(`${base}/v1/webhooks?all=true`, { method: 'DELETE' })).json).toEqual({ message: 'Webhooks have been deleted', webhook_ids: [id3] });
    expect((await call(`${base}/v1/webhooks`)).json).toEqual({ webhooks: [] });
  });

  it('refuses bad input with a 4xx message and changes nothing', async () => {
    const kept = (await create(`${receiver.url}/acct-keep`, ['delivered'])).json.webhook_id as string;
    await create(`${receiver.url}/acct-k2`, ['delivered']);
    await create(`${receiver.url}/acct-k3`, ['delivered']);
    const cases: Array<[Promise<{ status: number; json: Record<string, unknown> }>, number, string]> = [
      [create(`${receiver.url}/acct-k4`, ['delivered']), 409, 'unable to add more than 3 urls for event type delivered'],
      [create(`${receiver.url}/acct-keep`, ['delivered']), 409, `url ${receiver.url}/acct-keep already exists for event type delivered`],
      [create(`${receiver.url}/acct-x`, ['opened', 'opened']), 400, "duplicate event types: 'opened'"],
      [create(`${receiver.url}/acct-x`, ['exploded']), 400, "event_type 'exploded' is invalid"],
      [create('javascript:alert(1)', ['opened']), 400, 'javascript:alert(1) is not a valid url: invalid URL scheme'],
      [create(`${receiver.url}/acct-x`, []), 400, "Missing parameter 'event_types'"],
      [call(`${base}/v1/webhooks?webhook_ids=${kept},,x`), 400, 'Invalid parameter: webhook_ids malformed webhook_ids parameter: empty values not allowed'],
      [call(`${base}/v1/webhooks`, { method: 'DELETE' }), 400, "Missing parameter 'webhook_ids' (or all=true to delete every account webhook)"],
      [call(`${base}/v1/webhooks?webhook_ids=nope`, { method: 'DELETE' }), 404, 'no webhooks found for account'],
      [call(`${base}/v1/webhooks/nope`, { method: 'PUT', ...form([['url', `${receiver.url}/z`], ['event_types', 'opened']]) }), 404, 'webhook_id not found: nope'],
      [call(`${base}/v1/webhooks/nope`), 404, 'webhook not found'],
    ];
    for (const [promise, status, message] of cases) {
      const res = await promise;
      expect([res.status, res.json.message]).toEqual([status, message]);
    }
    expect(((await call(`${base}/v1/webhooks`)).json.webhooks as unknown[]).length).toBe(3);
    await call(`${base}/v1/webhooks?all=true`, { method: 'DELETE' });
  });

  it('is per region: the EU account has its own', async () => {
    await create(`${receiver.url}/us-only`, ['opened']);
    expect((await call(`${platform.eu.url}/v1/webhooks`)).json).toEqual({ webhooks: [] });
    await call(`${base}/v1/webhooks?all=true`, { method: 'DELETE' });
  });
});

describe('the HTTP signing key', () => {
  it('is made on first read, stays until rotated, and is not an API key', async () => {
    const first = await mg.accountManagement.getWebhookSigningKey();
    expect(first.http_signing_key).toMatch(/^key-[0-9a-f]{32}$/);
    expect((await mg.accountManagement.getWebhookSigningKey()).http_signing_key).toBe(first.http_signing_key);
    // mailgun.js types the reply without the key; it is there at run time.
    const rotated = (await mg.accountManagement.createWebhookSigningKey()) as unknown as { message: string; http_signing_key: string };
    expect(rotated).toMatchObject({ message: 'regenerated HTTP signing key for account', http_signing_key: expect.stringMatching(/^key-[0-9a-f]{32}$/) });
    expect(rotated.http_signing_key).not.toBe(first.http_signing_key);
    expect((await mg.accountManagement.getWebhookSigningKey()).http_signing_key).toBe(rotated.http_signing_key);
    expect((await call(`${base}/v4/domains`, { key: rotated.http_signing_key })).status).toBe(401);
    // Stored sealed: the key's text is nowhere in its item.
    const item = await platform.us.run(() => getItem<Record<string, unknown>>(signingKeyKeys.httpSigningKey(accountId)));
    expect(JSON.stringify(item)).not.toContain(rotated.http_signing_key.slice(4));
  });
});

describe('delivery, from real sends through the event stream', () => {
  afterEach(async () => {
    await call(`${base}/v1/webhooks?all=true`, { method: 'DELETE' });
    const hooks = (await call(`${base}/v3/domains/${sandbox}/webhooks`)).json.webhooks as Record<string, unknown>;
    for (const name of Object.keys(hooks)) await call(`${base}/v3/domains/${sandbox}/webhooks/${name}`, { method: 'DELETE' });
  });

  it('POSTs signed JSON once per URL, a URL at both levels once, with the event as the events API shows it', async () => {
    await mg.webhooks.create(sandbox, 'delivered', `${receiver.url}/both`, false);
    await call(`${base}/v1/webhooks`, { method: 'POST', ...form([['url', `${receiver.url}/both`], ['event_types', 'delivered']]) });
    await call(`${base}/v1/webhooks`, { method: 'POST', ...form([['url', `${receiver.url}/account`], ['event_types', 'delivered'], ['event_types', 'opened']]) });
    await mg.webhooks.create(sandbox, 'accepted', `${receiver.url}/accepted-only`, false);

    const sentAt = Date.now();
    await send('dedupe@example.com');
    await eventually(async () => receiver.on('/both').length === 1 && receiver.on('/account').length === 1 && receiver.on('/accepted-only').length === 1);
    await settle(500);
    expect(receiver.on('/both')).toHaveLength(1);
    expect(receiver.on('/account')).toHaveLength(1);
    expect(receiver.on('/accepted-only')[0]!.body['event-data']).toMatchObject({ event: 'accepted', recipient: 'dedupe@example.com' });

    const post = receiver.on('/both')[0]!;
    expect(post.contentType).toBe('application/json');
    expect(post.body['event-data']).toEqual(await eventOf('delivered', 'dedupe@example.com'));
    const { signature } = post.body;
    expect(signature.token).toMatch(/^[0-9a-f]{50}$/);
    // Signed when it was sent: after the message was, before it arrived (whole seconds).
    expect(Number(signature.timestamp)).toBeGreaterThanOrEqual(Math.floor(sentAt / 1000));
    expect(Number(signature.timestamp)).toBeLessThanOrEqual(Math.ceil(post.at / 1000));
    const { http_signing_key: key } = await mg.accountManagement.getWebhookSigningKey();
    expect(verifies(key, signature)).toBe(true);
    expect(verifies(`${key}x`, signature)).toBe(false);
  });

  it('leaves the recipient out of the payload once the account turns webhooks_redact_pii on; events keep it', async () => {
    await mg.webhooks.create(sandbox, 'delivered', `${receiver.url}/redacted`, false);
    const features = (value: string) => call(`${base}/v5/accounts/features`, { method: 'PUT', ...form([['webhooks_redact_pii', value]]) });
    expect((await features('{"enabled":true}')).json).toEqual({ success: true });
    expect((await call(`${base}/v5/accounts/features`, { method: 'PUT', ...form([['ai_insights', '{"enabled":true}']]) })).status).toBe(400);
    try {
      await send('private.person@example.com');
      const post = await eventually(async () => receiver.on('/redacted')[0]);
      expect(post.body['event-data']).toMatchObject({ recipient: 'redacted@example.com', 'recipient-domain': 'example.com', envelope: { targets: 'redacted@example.com' } });
      expect(JSON.stringify(post.body['event-data'])).not.toContain('private.person');
      expect((await eventOf('delivered', 'private.person@example.com')).recipient).toBe('private.person@example.com');
    } finally {
      await features('{"enabled":false}');
    }
  });

  it('delivers an event once when its stream batch is replayed', async () => {
    await mg.webhooks.create(sandbox, 'delivered', `${receiver.url}/replay`, false);
    await send('replay@example.com');
    await eventually(async () => receiver.on('/replay').length === 1);
    // The stream handed the event over once; a replayed batch hands it over again.
    await fanOut([{ accountId, domain: sandbox, data: await eventOf('delivered', 'replay@example.com') }]);
    await settle(800);
    expect(receiver.on('/replay')).toHaveLength(1);
  });

  it('retries after a 500 on the schedule and stops at the first 2xx', async () => {
    receiver.answer('/flaky', (_, n) => ({ status: n === 1 ? 500 : 200 }));
    await mg.webhooks.create(sandbox, 'delivered', `${receiver.url}/flaky`, false);
    await send('flaky@example.com');
    await eventually(async () => receiver.on('/flaky').length === 2);
    const [first, second] = receiver.on('/flaky');
    expect(second!.body['event-data'].id).toBe(first!.body['event-data'].id);
    // A new signature for each attempt, made at the time of sending.
    expect(second!.body.signature.token).not.toBe(first!.body.signature.token);
    await settle(1500);
    expect(receiver.on('/flaky')).toHaveLength(2);
  });

  it('stops after a 406 and records the delivery as rejected', async () => {
    receiver.answer('/reject', () => ({ status: 406, body: 'no thanks' }));
    await mg.webhooks.create(sandbox, 'delivered', `${receiver.url}/reject`, false);
    await send('reject@example.com');
    const event = await eventOf('delivered', 'reject@example.com');
    const failed = await eventually(async () => (await platform.us.run(() => failedDeliveries(accountId, dayOf(Date.now())))).find((f) => f.eventId === event.id));
    expect(failed).toMatchObject({ url: `${receiver.url}/reject`, reason: 'rejected', lastOutcome: '406', attempts: 1, webhook: 'delivered' });
    await settle(1500);
    expect(receiver.on('/reject')).toHaveLength(1);
  });

  it('gives up after the last retry (8 attempts) and records it', async () => {
    receiver.answer('/down', () => ({ status: 503 }));
    await mg.webhooks.create(sandbox, 'accepted', `${receiver.url}/down`, false);
    await send('down@example.com');
    const event = await eventOf('accepted', 'down@example.com');
    const failed = await eventually(async () => (await platform.us.run(() => failedDeliveries(accountId, dayOf(Date.now())))).find((f) => f.eventId === event.id));
    expect(failed).toMatchObject({ reason: 'retries-exhausted', lastOutcome: '503', attempts: 8, webhook: 'accepted' });
    expect(receiver.on('/down')).toHaveLength(8);
  });

  it('does not let a slow receiver hold back another', async () => {
    // The slow receiver answers only once the other has had its delivery: were deliveries made
    // one after another, the other's would wait for the slow one's timeout, which ends its request.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver.answer('/slow', () => ({ status: 200, after: released }));
    try {
      await call(`${base}/v1/webhooks`, { method: 'POST', ...form([['url', `${receiver.url}/slow`], ['event_types', 'delivered']]) });
      await send('slow@example.com');
      await eventually(async () => receiver.held('/slow').length === 1);
      await call(`${base}/v1/webhooks?all=true`, { method: 'DELETE' });
      await mg.webhooks.create(sandbox, 'delivered', `${receiver.url}/fast`, false);
      await send('fast@example.com');
      await eventually(async () => receiver.on('/fast').length === 1);
      expect(receiver.held('/slow')).toHaveLength(1);
    } finally {
      release();
    }
  });
});
