import { createHmac } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, sandboxOf, sdk, sdkError, startTestPlatform } from '../support/platform';
import { WebhookReceiver, type ReceivedPost } from '../support/webhook-receiver';

// The reputation guard (functions/reputation) on a local host, on the analytics counters the
// platform keeps anyway: subaccounts send to the SES stand-in's mailbox-simulator addresses, which
// bounce or complain as SES's do, and the guard, run every second here, judges them against the
// levels. A volume of 20 messages counts; bounces pause at 4% (the default), complaints warn at 1%
// and pause at 10% (set here, so that one complaint in twenty only warns).
let platform: LocalPlatform;
let receiver: WebhookReceiver;
const emf: Array<Record<string, unknown>> = [];
let stdoutSpy: jest.SpyInstance;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  platform = await startTestPlatform({
    env: { REPUTATION_CHECK_INTERVAL: '1', REPUTATION_MIN_VOLUME: '20', REPUTATION_COMPLAINT_WARNING_PERCENT: '1', REPUTATION_COMPLAINT_PAUSE_PERCENT: '10', ALERT_DEDUPE_WINDOW_SECONDS: '0' },
  });
  // The guard's metrics are EMF lines on stdout (CloudWatch reads them from a Lambda's log).
  const write = process.stdout.write.bind(process.stdout);
  stdoutSpy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    for (const line of String(chunk).split('\n')) if (line.startsWith('{"_aws"')) emf.push(JSON.parse(line) as Record<string, unknown>);
    return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  });
});
afterAll(async () => {
  stdoutSpy.mockRestore();
  await platform.close();
  await receiver.close();
});

const parent = () => sdk(platform.us.url);
const asSubaccount = (id: string) => {
  const client = parent();
  client.setSubaccount(id);
  return client;
};
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  call(`${platform.us.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' }) });
const eventDataOf = (post: ReceivedPost) => (post.body as unknown as { event_data: Record<string, unknown> }).event_data;
const alertsFor = (path: string, event: string) => receiver.on(path).filter((post) => post.method === 'POST' && eventDataOf(post)['event'] === event);

/** The parent's webhook alert for one event type, delivered to `path` on the receiver. */
async function alertParentAt(path: string, eventType: string): Promise<void> {
  const created = await api('POST', '/v1/alerts/settings/events', { event_type: eventType, channel: 'webhook', settings: { url: `${receiver.url}${path}` } });
  expect(created.status).toBe(200);
}

async function subaccount(name: string) {
  const sub = (await parent().subaccounts.create(name)).subaccount;
  const client = asSubaccount(sub.id);
  return { id: sub.id, client, sandbox: await sandboxOf(client) };
}

const features = async (id: string) => (await parent().subaccounts.get(id)).subaccount.features as unknown as Record<string, Record<string, unknown>>;

test('a subaccount sending to addresses that bounce is paused at 4%: its parent is alerted, its sends are refused saying why, it can still read its logs and clean its list, and what it had sent is delivered; the parent turns it back on', async () => {
  await alertParentAt('/paused', 'sending_paused');
  await alertParentAt('/resumed', 'sending_resumed');
  const { id, client, sandbox } = await subaccount('Bouncy');
  const good = Array.from({ length: 16 }, (_, i) => `reader${i}@example.com`);
  const bad = Array.from({ length: 4 }, (_, i) => `bounce+${i}@simulator.amazonses.com`);
  for (const to of [...good, ...bad]) await client.messages.create(sandbox, { from: `news@${sandbox}`, to, subject: 'Weekly', text: 'Hello' });

  // 4 hard bounces in 20 messages: 20%, above the pause level of 4%.
  const paused = await eventually(async () => {
    const sending = (await features(id))['sending']!;
    return sending['enabled'] === false && sending;
  }, 60_000);
  expect(paused['paused_by']).toBe('reputation-guard');
  expect(paused['reason']).toMatch(/^its bounce rate of 20% over the last 24 hours \(4 hard bounces in 20 messages delivered or bounced\) is above the pause level of 4% \(turned off by the reputation guard at \d{4}-\d\d-\d\dT/);

  const refused = await sdkError(client.messages.create(sandbox, { from: `news@${sandbox}`, to: 'reader0@example.com', subject: 'Again', text: 'Hello' }));
  expect(refused.status).toBe(403);
  expect(refused.details).toBe(`Domain ${sandbox} is not allowed to send: sending is turned off for this account: ${paused['reason'] as string}`);

  // The parent is told, signed with its alerts key, naming the subaccount and its figures.
  const [alert] = await eventually(async () => alertsFor('/paused', 'sending_paused').length > 0 && alertsFor('/paused', 'sending_paused'), 30_000);
  expect(alertsFor('/paused', 'sending_paused')).toHaveLength(1);
  const signingKey = ((await api('GET', '/v1/alerts/settings')).json as { webhooks: { signing_key: string } }).webhooks.signing_key;
  expect(alert!.headers['x-sign']).toBe(createHmac('sha256', signingKey).update(alert!.raw).digest('hex'));
  expect(eventDataOf(alert!)).toMatchObject({ event: 'sending_paused', log_level: 'warn', account_id: id, account_name: 'Bouncy', bounce_rate: 20, complaint_rate: 0, volume: 20, window_hours: 24 });
  expect(eventDataOf(alert!)['message']).toBe(`Sending of Bouncy (${id}) was turned off: ${paused['reason'] as string}`);

  // The region's metrics say a subaccount is paused (the primary account's alarm watches this).
  await eventually(async () => emf.some((line) => line['PausedSubaccounts'] === 1 && line['PlatformRegion'] === 'us'), 10_000);
  expect(emf.find((line) => line['AccountId'] === id)).toMatchObject({ BounceRate: 20, ComplaintRate: 0 });

  // Paused, it still signs in and works: its events (every reader delivered, nothing accepted
  // lost) and its bounces list, which it can clean.
  const events = await eventually(async () => {
    const items = (await api('GET', `/v3/${sandbox}/events?event=delivered&limit=300`, undefined, { 'x-mailgun-on-behalf-of': id })).json.items as Array<{ recipient: string }>;
    return items.length >= 16 && items;
  }, 30_000);
  expect(events.map((e) => e.recipient).sort()).toEqual([...good].sort());
  expect((await client.suppressions.list(sandbox, 'bounces')).items.map((b) => (b as { address: string }).address).sort()).toEqual([...bad].sort());
  expect(await client.suppressions.destroy(sandbox, 'bounces', bad[0]!)).toMatchObject({ message: 'Bounced addresses for this domain have been removed' });

  // The parent turns sending back on through the same features route; the guard notes it, and
  // judges only what is sent from that moment on, so the old bounces do not pause it again.
  const resumed = await call(`${platform.us.url}/v5/accounts/subaccounts/${id}/features`, {
    method: 'PUT',
    contentType: 'application/x-www-form-urlencoded',
    body: new URLSearchParams({ sending: JSON.stringify({ enabled: true }) }).toString(),
  });
  expect((resumed.json.features as Record<string, unknown>)['sending']).toEqual({ enabled: true });
  expect((await client.messages.create(sandbox, { from: `news@${sandbox}`, to: 'reader0@example.com', subject: 'Back', text: 'Hello' })).message).toBe('Queued. Thank you.');
  const [back] = await eventually(async () => alertsFor('/resumed', 'sending_resumed').length > 0 && alertsFor('/resumed', 'sending_resumed'), 30_000);
  expect(eventDataOf(back!)).toMatchObject({ event: 'sending_resumed', log_level: 'info', account_id: id });
  expect(eventDataOf(back!)['message']).toMatch(new RegExp(`^Sending of Bouncy \\(${id}\\) was turned back on: turned back on by its parent account; its rates count again from `));
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect((await features(id))['sending']).toEqual({ enabled: true });
  expect(alertsFor('/paused', 'sending_paused')).toHaveLength(1);

  // What it sends from then on counts at once, in the rest of that hour too: the same bad list
  // again pauses it again (4 hard bounces in 20 messages, the one sent on resuming among them).
  const again = Array.from({ length: 4 }, (_, i) => `bounce+again${i}@simulator.amazonses.com`);
  for (const to of [...good.slice(1), ...again]) await client.messages.create(sandbox, { from: `news@${sandbox}`, to, subject: 'Weekly', text: 'Hello' });
  const pausedAgain = await eventually(async () => {
    const sending = (await features(id))['sending']!;
    return sending['enabled'] === false && sending;
  }, 60_000);
  expect(pausedAgain['reason']).toMatch(/^its bounce rate of 20% over the last 24 hours \(4 hard bounces in 20 messages delivered or bounced\) is above the pause level of 4% /);
  await eventually(async () => alertsFor('/paused', 'sending_paused').length === 2, 30_000);
}, 240_000);

test('a subaccount above a warning level only is alerted, and keeps sending', async () => {
  await alertParentAt('/warned', 'reputation_warning');
  const { id, client, sandbox } = await subaccount('Complained');
  const to = [...Array.from({ length: 19 }, (_, i) => `member${i}@example.com`), 'complaint+1@simulator.amazonses.com'];
  for (const recipient of to) await client.messages.create(sandbox, { from: `news@${sandbox}`, to: recipient, subject: 'Offer', text: 'Hello' });

  // One complaint in 20 delivered: 5%, above the warning level of 1%, below the pause level of 10%.
  const warnedOf = () => alertsFor('/warned', 'reputation_warning').filter((post) => eventDataOf(post)['account_id'] === id);
  const [warned] = await eventually(async () => warnedOf().length > 0 && warnedOf(), 60_000);
  expect(warnedOf()).toHaveLength(1);
  expect(eventDataOf(warned!)).toMatchObject({ account_name: 'Complained', complaint_rate: 5, bounce_rate: 0, volume: 20 });
  expect(eventDataOf(warned!)['message']).toBe(`Complained (${id}) is above a reputation warning level: its complaint rate of 5% over the last 24 hours (1 complaint in 20 messages delivered or bounced) is above the warning level of 1%`);
  expect((await features(id))['sending']).toEqual({ enabled: true });
  expect((await asSubaccount(id).messages.create(sandbox, { from: `news@${sandbox}`, to: 'member0@example.com', subject: 'Still', text: 'Hello' })).message).toBe('Queued. Thank you.');
}, 120_000);

test("a subaccount whose sending is off relays no received mail: its routes' forwards to addresses and its mailing lists' posts fail, saying why", async () => {
  const { id, client, sandbox } = await subaccount('Relay');
  await client.lists.create({ address: `team@${sandbox}`, access_level: 'everyone' });
  await client.lists.members.createMember(`team@${sandbox}`, { address: 'member@example.com' });
  await client.routes.create({ priority: '1' as unknown as number, description: 'relay', expression: `match_recipient("desk@${sandbox}")`, action: [`forward("helper@example.com")`] });
  const off = await call(`${platform.us.url}/v5/accounts/subaccounts/${id}/features`, {
    method: 'PUT',
    contentType: 'application/x-www-form-urlencoded',
    body: new URLSearchParams({ sending: JSON.stringify({ enabled: false }) }).toString(),
  });
  expect(off.status).toBe(200);

  const inbound = nodemailer.createTransport({ host: platform.us.inboundSmtp.host, port: platform.us.inboundSmtp.port, secure: false, ignoreTLS: true });
  await inbound.sendMail({ from: 'outsider@example.org', to: [`team@${sandbox}`, `desk@${sandbox}`], subject: 'From outside', text: 'Hello' });

  const why = `Domain ${sandbox} is not allowed to send: sending is turned off for this account`;
  type Ev = { event: string; recipient: string; 'delivery-status'?: { message?: string } };
  const eventsOf = async () => (await api('GET', `/v3/${sandbox}/events?limit=300`, undefined, { 'x-mailgun-on-behalf-of': id })).json.items as Ev[];
  const failed = await eventually(async () => {
    const items = (await eventsOf()).filter((e) => e.event === 'failed');
    return items.length >= 2 && items;
  }, 30_000);
  expect(failed.find((e) => e.recipient === `team@${sandbox}`)?.['delivery-status']?.message).toBe(why);
  expect(failed.find((e) => e.recipient === `desk@${sandbox}`)?.['delivery-status']?.message).toBe(`route action forward-address to helper@example.com: ${why}`);
  const sent = (await eventsOf()).filter((e) => e.recipient === 'member@example.com' || e.recipient === 'helper@example.com');
  expect(sent).toEqual([]);
}, 120_000);
