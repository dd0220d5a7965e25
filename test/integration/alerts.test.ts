import { createHmac } from 'node:crypto';
import type { LocalPlatform } from '../../lib/local/platform';
import type { AlertEvent } from '../../functions/optimize/alerts/alert-event';
import { raiseAlert } from '../../functions/optimize/alerts/raise';
import { updateItem } from '../../functions/data/store';
import { call, eventually, primaryAccountId, startTestPlatform } from '../support/platform';
import { scanTable } from '../support/table';
import { SlackStandIn } from '../support/slack-standin';
import { WebhookReceiver, type ReceivedPost } from '../support/webhook-receiver';
import { alertKeys } from '../../functions/optimize/alerts/settings-store';

// Alerts end to end on one local host: settings (with mailgun-go's aliases), the webhook URL's GET
// check, signed test deliveries, the Slack connection against a loopback Slack stand-in, and
// raiseAlert delivering a transition once to a webhook, an email and Slack, then retrying a
// failing receiver until its setting is disabled. The retry schedule is scaled to about a second a step.
let platform: LocalPlatform;
let base: string;
let accountId: string;
let receiver: WebhookReceiver;
let slack: SlackStandIn;
const SLACK_TOKEN = 'xoxb-0000-standin-token';

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  slack = await new SlackStandIn({ id: 'T0STANDIN', name: 'Standin' }, [
    { id: 'C0ALERTS', name: 'alerts' },
    { id: 'C0OPS', name: 'ops' },
    { id: 'C0OLD', name: 'old', is_archived: true },
  ]).start();
  slack.grant(SLACK_TOKEN);
  // A dedupe window longer than any test: the one that sees it end moves its end, rather than waiting.
  platform = await startTestPlatform({ env: { ALERT_RETRY_SCALE: '0.0001', ALERT_DEDUPE_WINDOW_SECONDS: '3600', SLACK_API_URL: slack.url } });
  base = platform.us.url;
  accountId = await primaryAccountId(platform.us);
});
afterAll(async () => {
  await platform.close();
  await receiver.close();
  await slack.close();
});

const api = (method: string, path: string, body?: unknown) =>
  call(`${base}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' }) });

interface EventSettingJson {
  id: string;
  event_type: string;
  channel: string;
  settings: Record<string, unknown>;
  disabled_at: string | null;
  disabled_reason?: string;
}
const settings = async () => (await api('GET', '/v1/alerts/settings')).json as { events: EventSettingJson[]; slack: Record<string, string>; webhooks: { signing_key: string } };
const signingKey = async () => (await settings()).webhooks.signing_key;
const signs = (key: string, raw: string, header: unknown) => createHmac('sha256', key).update(raw).digest('hex') === header;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** An alert delivery's `event_data` (the receiver's type is the sending webhooks' body). */
const eventDataOf = (post: ReceivedPost) => (post.body as unknown as { event_data: Record<string, unknown> }).event_data;
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('lists exactly the events the platform emits', async () => {
  const res = await api('GET', '/v1/alerts/events');
  expect([res.status, res.json]).toEqual([200, { events: ['ip_listed', 'ip_delisted', 'domain_listed', 'domain_delisted', 'reputation_warning', 'reputation_recovered', 'sending_paused', 'sending_resumed'] }]);
});

describe('settings', () => {
  it('answers an empty configuration with a lazily made 32-hex signing key that stays put', async () => {
    const first = await settings();
    expect(first).toEqual({ events: [], slack: { token: '', team_id: '', team_name: '', scope: '' }, webhooks: { signing_key: expect.stringMatching(/^[0-9a-f]{32}$/) } });
    expect(await signingKey()).toBe(first.webhooks.signing_key);
  });

  it('creates, replaces and deletes settings, through the documented routes and mailgun-go aliases', async () => {
    const created = await api('POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'email', settings: { emails: ['ops@example.com'] } });
    expect(created.status).toBe(200);
    const setting = created.json as unknown as EventSettingJson;
    expect(setting).toEqual({ id: expect.stringMatching(UUID), event_type: 'ip_listed', channel: 'email', settings: { emails: ['ops@example.com'] }, disabled_at: null });

    // mailgun-go's AddAlert posts to /v1/alerts/settings.
    const viaGo = await api('POST', '/v1/alerts/settings', { event_type: 'ip_delisted', channel: 'email', settings: { emails: ['a@example.com', 'b@example.com'] } });
    expect([viaGo.status, viaGo.json.event_type]).toEqual([200, 'ip_delisted']);

    const replaced = await api('PUT', `/v1/alerts/settings/events/${setting.id}`, { event_type: 'ip_listed', channel: 'email', settings: { emails: ['noc@example.com'] } });
    expect([replaced.status, replaced.json]).toEqual([200, { ...setting, settings: { emails: ['noc@example.com'] } }]);
    expect((await settings()).events.map((e) => e.id).sort()).toEqual([setting.id, String(viaGo.json.id)].sort());

    // mailgun-go's DeleteAlert deletes /v1/alerts/settings/{id}.
    expect((await api('DELETE', `/v1/alerts/settings/${String(viaGo.json.id)}`)).json).toEqual({ message: 'Alert setting deleted' });
    expect((await api('DELETE', `/v1/alerts/settings/events/${setting.id}`)).status).toBe(200);
    expect((await api('DELETE', `/v1/alerts/settings/events/${setting.id}`)).status).toBe(404);
    expect((await settings()).events).toEqual([]);
  });

  it('refuses bad input with a 4xx message and changes nothing', async () => {
    const kept = (await api('POST', '/v1/alerts/settings/events', { event_type: 'domain_delisted', channel: 'email', settings: { emails: ['keep@example.com'] } })).json as unknown as EventSettingJson;
    const other = (await api('POST', '/v1/alerts/settings/events', { event_type: 'domain_delisted', channel: 'webhook', settings: { url: `${receiver.url}/kept` } })).json as unknown as EventSettingJson;
    const before = await settings();
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['POST', '/v1/alerts/settings/events', { event_type: 'domain_delisted', channel: 'email', settings: { emails: ['x@example.com'] } }, 409, /already exists/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'validation_job', channel: 'email', settings: { emails: ['x@example.com'] } }, 400, /Invalid parameter 'event_type'/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'pager', settings: {} }, 400, /Invalid parameter 'channel'/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'email' }, 400, /Missing parameter 'settings'/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'email', settings: 'nope' }, 400, /Invalid parameter 'settings'/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'email', settings: { emails: [] } }, 400, /settings.emails/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'email', settings: { emails: ['not-an-address'] } }, 400, /not a valid email address/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'webhook', settings: {} }, 400, /settings.url/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'webhook', settings: { url: 'ftp://example.com/x' } }, 400, /invalid URL scheme/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'webhook', settings: { url: 'http://169.254.169.254/latest' } }, 400, /cloud metadata/],
      ['POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'slack', settings: { channel_ids: ['C0ALERTS'] } }, 400, /Slack is not connected/],
      ['PUT', `/v1/alerts/settings/events/${kept.id}`, { event_type: 'domain_delisted', channel: 'webhook', settings: { url: `${receiver.url}/kept` } }, 409, /already exists/],
      ['PUT', '/v1/alerts/settings/events/00000000-0000-4000-8000-000000000000', { event_type: 'ip_listed', channel: 'email', settings: { emails: ['x@example.com'] } }, 404, /not found/],
      ['PUT', '/v1/alerts/settings/events/not-a-uuid', { event_type: 'ip_listed', channel: 'email', settings: { emails: ['x@example.com'] } }, 404, /not found/],
      ['DELETE', '/v1/alerts/settings/not-a-uuid', undefined, 404, /not found/],
      ['GET', '/v1/alerts/slack/channels', undefined, 400, /Slack is not connected/],
      ['POST', '/v1/alerts/slack/test', { event_type: 'ip_listed', channel_ids: ['C0ALERTS'] }, 400, /Slack is not connected/],
      ['DELETE', '/v1/alerts/slack/oauth', undefined, 404, /Slack is not connected/],
      ['POST', '/v1/alerts/email/test', { event_type: 'ip_listed' }, 400, /Missing parameter 'emails'/],
      ['POST', '/v1/alerts/webhooks/test', { event_type: 'nope', url: `${receiver.url}/x` }, 400, /event_type/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await api(method, path, body);
      expect([method, path, res.status, res.json?.message]).toEqual([method, path, status, expect.stringMatching(message)]);
    }
    expect(await settings()).toEqual(before);
    await api('DELETE', `/v1/alerts/settings/events/${kept.id}`);
    await api('DELETE', `/v1/alerts/settings/events/${other.id}`);
  });

  it('checks a webhook URL with a GET when it is saved: anything but 200 is refused', async () => {
    receiver.answer('/gone', () => ({ status: 404, body: 'no' }));
    const refused = await api('POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'webhook', settings: { url: `${receiver.url}/gone` } });
    expect([refused.status, refused.json.message]).toEqual([400, expect.stringMatching(/answered the GET check with 404/)]);
    expect(receiver.on('/gone').map((post) => post.method)).toEqual(['GET']);
    expect((await settings()).events).toEqual([]);

    const saved = await api('POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'webhook', settings: { url: `${receiver.url}/fine` } });
    expect([saved.status, saved.json.settings]).toEqual([200, { url: `${receiver.url}/fine` }]);
    await api('DELETE', `/v1/alerts/settings/events/${String(saved.json.id)}`);
  });
});

describe('test sends', () => {
  it('posts a compact, X-Sign signed test alert; a rotated key signs from then on and the old one no more', async () => {
    const key = await signingKey();
    expect((await api('POST', '/v1/alerts/webhooks/test', { event_type: 'ip_listed', url: `${receiver.url}/signed` })).json).toEqual({ message: 'sent' });
    const [post] = receiver.on('/signed');
    expect(post!.raw).toBe(JSON.stringify(JSON.parse(post!.raw)));
    expect(signs(key, post!.raw, post!.headers['x-sign'])).toBe(true);
    expect(post!.body).toEqual({
      signature: { timestamp: expect.any(Number), token: expect.stringMatching(/^[0-9a-f]{50}$/) },
      event_data: { id: expect.stringMatching(UUID), timestamp: expect.any(String), log_level: 'warn', event: 'ip_listed', ip: '192.0.2.1', blocklist: 'Mailplane test list', message: 'IP 192.0.2.1 was blocklisted by Mailplane test list' },
    });

    const rotated = await api('PUT', '/v1/alerts/settings/webhooks/signing_key');
    const fresh = String(rotated.json.signing_key);
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh).not.toBe(key);
    expect(await signingKey()).toBe(fresh);
    await api('POST', '/v1/alerts/webhooks/test', { event_type: 'domain_delisted', url: `${receiver.url}/signed` });
    const second = receiver.on('/signed')[1]!;
    expect(eventDataOf(second)).toMatchObject({ event: 'domain_delisted', domain: 'example.com', message: 'Domain example.com was removed by Mailplane test list' });
    expect([signs(fresh, second.raw, second.headers['x-sign']), signs(key, second.raw, second.headers['x-sign'])]).toEqual([true, false]);

    receiver.answer('/refusing', () => ({ status: 500 }));
    const failed = await api('POST', '/v1/alerts/webhooks/test', { event_type: 'ip_listed', url: `${receiver.url}/refusing` });
    expect([failed.status, failed.json.message]).toEqual([400, expect.stringMatching(/did not take the test alert: HTTP 500/)]);
  });

  it('mails a test alert through the sending pipeline', async () => {
    expect((await api('POST', '/v1/alerts/email/test', { event_type: 'ip_delisted', emails: ['test-alert@example.com'] })).json).toEqual({ message: 'sent' });
    const mail = await eventually(async () => platform.us.ses.sent.find((m) => m.raw.toString().includes('test-alert@example.com')));
    expect(mail.raw.toString()).toMatch(/Subject: \[Test\] Alert: IP 192\.0\.2\.1 removed from Mailplane test list/);
  });

  it("keeps a subaccount's alert email out of its analytics and its tags: platform mail, flagged is-system-test in its events", async () => {
    const sub = (await api('POST', '/v5/accounts/subaccounts', { name: 'Alerted tenant' })).json.subaccount as { id: string };
    const behalf = { 'x-mailgun-on-behalf-of': sub.id };
    const asSub = (method: string, path: string, body?: unknown) =>
      call(`${base}${path}`, { method, headers: behalf, ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' }) });
    const domain = ((await asSub('GET', '/v4/domains')).json.items as Array<{ name: string; type: string }>).find((d) => d.type === 'sandbox')!.name;
    expect((await asSub('POST', '/v1/alerts/email/test', { event_type: 'ip_listed', emails: ['tenant-ops@example.com'] })).json).toEqual({ message: 'sent' });
    const delivered = async (to: string) =>
      ((await asSub('GET', `/v3/${domain}/events?event=delivered&recipient=${encodeURIComponent(to)}`)).json.items as Array<{ flags: Record<string, boolean> }>)[0];
    const alertDelivery = await eventually(() => delivered('tenant-ops@example.com'));
    expect(alertDelivery.flags).toMatchObject({ 'is-system-test': true });
    // The tenant's own message is counted; the alert never is.
    await call(`${base}/v3/${domain}/messages`, { method: 'POST', headers: behalf, contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams({ from: `me@${domain}`, to: 'customer@example.com', subject: 'own', text: 'x', 'o:tag': 'own-newsletter' }).toString() });
    expect((await eventually(() => delivered('customer@example.com'))).flags['is-system-test']).toBeUndefined();
    const counts = async () =>
      ((await asSub('POST', '/v1/analytics/metrics', { duration: '1d', resolution: 'day', metrics: ['accepted_outgoing_count', 'delivered_count'], include_aggregates: true })).json.aggregates as { metrics: Record<string, number> }).metrics;
    await eventually(async () => (await counts()).delivered_count! >= 1);
    expect(await counts()).toMatchObject({ accepted_outgoing_count: 1, delivered_count: 1 });
    // Its tag list has its own message's tag, and none of the alert's.
    const tags = async () => ((await asSub('GET', `/v3/${domain}/tags`)).json.items as Array<{ tag: string }>).map((t) => t.tag);
    await eventually(async () => (await tags()).includes('own-newsletter'));
    expect(await tags()).toEqual(['own-newsletter']);
  });
});

describe('Slack', () => {
  it('refuses a token Slack does not honour, and never shows the stored one', async () => {
    const bad = await api('PUT', '/v1/alerts/settings/slack', { token: 'xoxb-wrong', team_id: 'T0STANDIN' });
    expect([bad.status, bad.json.message]).toEqual([400, expect.stringMatching(/invalid_auth/)]);
    const saved = await api('PUT', '/v1/alerts/settings/slack', { token: SLACK_TOKEN, team_id: 'T0STANDIN', team_name: 'Standin', scope: 'chat:write,channels:read' });
    expect([saved.status, saved.json]).toEqual([200, { message: 'Slack settings updated' }]);
    const raw = await api('GET', '/v1/alerts/settings');
    expect(raw.json.slack).toEqual({ token: '', team_id: 'T0STANDIN', team_name: 'Standin', scope: 'chat:write,channels:read' });
    expect(raw.text).not.toContain(SLACK_TOKEN);
  });

  it('pages through the workspace channels and reads one', async () => {
    const first = await api('GET', '/v1/alerts/slack/channels?limit=2');
    expect(first.json.items).toEqual([
      { id: 'C0ALERTS', name: 'alerts', is_archived: false },
      { id: 'C0OPS', name: 'ops', is_archived: false },
    ]);
    const paging = first.json.paging as Record<string, string>;
    expect(Object.keys(paging).sort()).toEqual(['first', 'last', 'next', 'previous']);
    const second = await call(paging['next']!);
    expect(second.json.items).toEqual([{ id: 'C0OLD', name: 'old', is_archived: true }]);
    const end = await call((second.json.paging as Record<string, string>)['next']!);
    expect(end.json.items).toEqual([]);
    expect((await api('GET', '/v1/alerts/slack/channels/C0OPS')).json).toEqual({ id: 'C0OPS', name: 'ops', is_archived: false });
    expect((await api('GET', '/v1/alerts/slack/channels/C0NONE')).status).toBe(404);
  });

  it('posts a test alert to the channels given', async () => {
    expect((await api('POST', '/v1/alerts/slack/test', { event_type: 'ip_listed', channel_ids: ['C0OPS'] })).json).toEqual({ message: 'sent' });
    expect(slack.posts.at(-1)).toMatchObject({ channel: 'C0OPS', text: '[Test] IP 192.0.2.1 listed on Mailplane test list' });
    const archived = await api('POST', '/v1/alerts/slack/test', { event_type: 'ip_listed', channel_ids: ['C0OLD'] });
    expect([archived.status, archived.json.message]).toEqual([400, expect.stringMatching(/is_archived/)]);
  });
});

describe('raiseAlert', () => {
  const transition = (over: Partial<AlertEvent>): AlertEvent => ({
    accountId,
    event: 'domain_listed',
    subject: 'listed.example.com',
    list: 'dbl.example.org',
    listName: 'Example DBL',
    firstSeen: '2026-11-26T08:00:00.000Z',
    timestamp: '2026-11-26T09:00:00.000Z',
    ...over,
  });

  it('delivers a transition once to every setting of its type: webhook, email and Slack', async () => {
    const made = await Promise.all([
      api('POST', '/v1/alerts/settings/events', { event_type: 'domain_listed', channel: 'webhook', settings: { url: `${receiver.url}/raised` } }),
      api('POST', '/v1/alerts/settings/events', { event_type: 'domain_listed', channel: 'email', settings: { emails: ['raised@example.com'] } }),
      api('POST', '/v1/alerts/settings/events', { event_type: 'domain_listed', channel: 'slack', settings: { channel_ids: ['C0ALERTS'] } }),
      // Another event type: not alerted.
      api('POST', '/v1/alerts/settings/events', { event_type: 'domain_delisted', channel: 'webhook', settings: { url: `${receiver.url}/other` } }),
    ]);
    expect(made.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    const slackPostsBefore = slack.posts.length;

    // Raised twice (a retried or overlapping check): alerted once.
    await platform.us.run(() => raiseAlert(transition({})));
    await platform.us.run(() => raiseAlert(transition({ timestamp: '2026-11-26T09:05:00.000Z' })));

    const post = await eventually(async () => receiver.on('/raised').find((p) => p.method === 'POST'));
    expect(signs(await signingKey(), post.raw, post.headers['x-sign'])).toBe(true);
    expect(eventDataOf(post)).toEqual({ id: expect.stringMatching(UUID), timestamp: '2026-11-26T09:00:00.000Z', log_level: 'warn', event: 'domain_listed', domain: 'listed.example.com', blocklist: 'Example DBL', message: 'Domain listed.example.com was blocklisted by Example DBL' });
    const mail = await eventually(async () => platform.us.ses.sent.find((m) => m.raw.toString().includes('raised@example.com')));
    expect(mail.raw.toString()).toMatch(/Subject: Alert: Domain listed\.example\.com listed on Example DBL/);
    await eventually(async () => slack.posts.length > slackPostsBefore);
    expect(slack.posts.at(-1)).toMatchObject({ channel: 'C0ALERTS', text: 'Domain listed.example.com listed on Example DBL' });

    await settle(1500);
    expect(receiver.on('/raised').filter((p) => p.method === 'POST')).toHaveLength(1);
    expect(platform.us.ses.sent.filter((m) => m.raw.toString().includes('raised@example.com'))).toHaveLength(1);
    expect(slack.posts.length).toBe(slackPostsBefore + 1);
    expect(receiver.on('/other').filter((p) => p.method === 'POST')).toHaveLength(0);

    // A new listing of the same subject (another firstSeen) is another transition, but within the
    // dedupe window after the last alert of the pair it is not delivered; after it, it is.
    await platform.us.run(() => raiseAlert(transition({ firstSeen: '2026-11-27T08:00:00.000Z' })));
    await settle(1000);
    expect(receiver.on('/raised').filter((p) => p.method === 'POST')).toHaveLength(1);
    const windowPk = alertKeys.alertWindow(accountId, '').pk;
    const windows = (await scanTable(platform.us)).filter((item) => item['pk'] === windowPk);
    expect(windows).toHaveLength(1);
    await platform.us.run(() => updateItem({ pk: windowPk, sk: windows[0]!['sk'] as string }, { until: Date.now() - 1 }));
    await platform.us.run(() => raiseAlert(transition({ firstSeen: '2026-11-28T08:00:00.000Z' })));
    await eventually(async () => receiver.on('/raised').filter((p) => p.method === 'POST').length === 2);
  });

  it('stops posting to a Slack channel Slack refuses for good, and goes on with the others', async () => {
    const made = await api('POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'slack', settings: { channel_ids: ['C0OPS', 'C0OLD'] } });
    await platform.us.run(() => raiseAlert(transition({ event: 'ip_listed', subject: '198.51.100.7', list: 'zen.example.org', listName: 'Example ZEN' })));
    const setting = await eventually(async () => (await settings()).events.find((e) => e.id === made.json.id && Object.keys((e.settings['disabled_channel_ids'] as object | undefined) ?? {}).length));
    expect(setting.settings['disabled_channel_ids']).toEqual({ C0OLD: { disabled_at: expect.stringMatching(/^\d{4}-/), reason: 'is_archived' } });
    expect(setting.disabled_at).toBeNull();
    expect(slack.posts.filter((p) => p.text.includes('198.51.100.7')).map((p) => p.channel)).toEqual(['C0OPS']);
    await api('DELETE', `/v1/alerts/settings/events/${String(made.json.id)}`);
  });

  it('retries a failing receiver on the (scaled) schedule, then disables its setting', async () => {
    receiver.answer('/failing', (post) => ({ status: post.method === 'GET' ? 200 : 503 }));
    const made = await api('POST', '/v1/alerts/settings/events', { event_type: 'ip_delisted', channel: 'webhook', settings: { url: `${receiver.url}/failing` } });
    await platform.us.run(() => raiseAlert(transition({ event: 'ip_delisted', subject: '203.0.113.9', list: 'zen.example.org', listName: 'Example ZEN' })));
    const disabled = await eventually(async () => (await settings()).events.find((e) => e.id === made.json.id && e.disabled_at !== null));
    expect(disabled.disabled_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect(disabled.disabled_reason).toMatch(/8 times.*HTTP 503/);
    // The first attempt and seven retries (1m, 5m, 15m, 30m, 1h, 2h, 4h, scaled).
    expect(receiver.on('/failing').filter((p) => p.method === 'POST')).toHaveLength(8);

    // Saving it again enables it.
    const resaved = await api('PUT', `/v1/alerts/settings/events/${String(made.json.id)}`, { event_type: 'ip_delisted', channel: 'webhook', settings: { url: `${receiver.url}/failing` } });
    expect(resaved.json.disabled_at).toBeNull();
  });
});

describe('Slack disconnection', () => {
  it('revokes the token at Slack (DELETE slack/oauth) or forgets it (DELETE settings/slack), with the Slack settings', async () => {
    expect((await settings()).events.some((e) => e.channel === 'slack')).toBe(true);
    expect((await api('DELETE', '/v1/alerts/slack/oauth')).json).toEqual({ message: 'Slack token revoked' });
    expect(slack.calls).toContain('api/auth.revoke');
    const after = await settings();
    expect([after.slack, after.events.filter((e) => e.channel === 'slack')]).toEqual([{ token: '', team_id: '', team_name: '', scope: '' }, []]);

    slack.grant(SLACK_TOKEN);
    await api('PUT', '/v1/alerts/settings/slack', { token: SLACK_TOKEN });
    expect((await settings()).slack).toMatchObject({ team_id: 'T0STANDIN', team_name: 'Standin' });
    expect((await api('POST', '/v1/alerts/settings/events', { event_type: 'ip_listed', channel: 'slack', settings: { channel_ids: ['C0OPS'] } })).status).toBe(200);
    expect((await api('DELETE', '/v1/alerts/settings/slack')).json).toEqual({ message: 'Slack settings deleted' });
    expect((await settings()).events.filter((e) => e.channel === 'slack')).toEqual([]);
    expect((await api('DELETE', '/v1/alerts/settings/slack')).status).toBe(404);
  });
});
