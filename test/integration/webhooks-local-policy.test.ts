import { dayOf } from '../../functions/events/event-store';
import { failedDeliveries } from '../../functions/webhooks/failed-deliveries';
import { changeDomainHooks } from '../../functions/webhooks/webhook-store';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, primaryAccountId, sandboxOf, sdk, sdkError, startTestPlatform } from '../support/platform';
import { WebhookReceiver } from '../support/webhook-receiver';

// Local mode as `npm start` configures it: webhooks may reach receivers on this machine and
// nothing else internal. It may run on a cloud VM, where 169.254.169.254 hands out credentials.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
let accountId: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
  accountId = await primaryAccountId(platform.us);
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await platform.close();
  await receiver.close();
});

const form = (fields: Array<[string, string]>) => ({ contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() });

async function send(recipient: string): Promise<void> {
  await mg.messages.create(sandbox, { from: `hooks@${sandbox}`, to: recipient, subject: 'Webhook', text: 'hi', 'o:testmode': 'yes' } as never);
}

describe('refused when saved or tested, at every level', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data', 'cloud metadata'],
    ['http://169.254.170.2/v2/credentials', 'cloud metadata'],
    ['http://[fd00:ec2::254]/latest/meta-data', 'cloud metadata'],
    ['http://[fe80::1]/hook', 'link-local'],
    ['http://10.0.0.1/hook', 'private'],
    ['http://192.168.1.1/hook', 'private'],
  ])('%s (%s)', async (url, category) => {
    const message = `${url} is not a valid url: its host resolves to a ${category} address, which webhooks may not reach`;
    expect(await sdkError(mg.webhooks.create(sandbox, 'delivered', url, false))).toEqual({ status: 400, details: message });
    const body = form([['url', url], ['event_types', 'opened']]);
    const v4 = await call(`${platform.us.url}/v4/domains/${sandbox}/webhooks`, { method: 'POST', ...body });
    expect([v4.status, v4.json]).toEqual([400, { message }]);
    const v1 = await call(`${platform.us.url}/v1/webhooks`, { method: 'POST', ...body });
    expect([v1.status, v1.json]).toEqual([400, { message }]);
    // The test endpoint POSTs at once: it must refuse before sending anything.
    expect(await sdkError(mg.webhooks.create(sandbox, 'delivered', url, true))).toEqual({ status: 400, details: message });
  });

  it('stored none of them', async () => {
    expect(await mg.webhooks.list(sandbox, {})).toEqual({});
    expect((await call(`${platform.us.url}/v1/webhooks`)).json).toEqual({ webhooks: [] });
  });
});

describe('receivers on this machine', () => {
  it('are accepted by address and by name, tested, and delivered to', async () => {
    const byAddress = `${receiver.url}/by-address`;
    const byName = byAddress.replace('127.0.0.1', 'localhost').replace('/by-address', '/by-name');
    expect(await mg.webhooks.create(sandbox, 'delivered', byAddress, false)).toMatchObject({ urls: [byAddress] });
    expect(await mg.webhooks.update(sandbox, 'delivered', [byAddress, byName])).toMatchObject({ urls: [byAddress, byName] });
    const tested = byName.replace('/by-name', '/tested');
    expect(await mg.webhooks.create(sandbox, 'delivered', tested, true)).toMatchObject({ code: 200 });
    expect(receiver.on('/tested')).toHaveLength(1);

    await send('local-receiver@example.com');
    await eventually(async () => receiver.on('/by-address').length === 1 && receiver.on('/by-name').length === 1);
    expect(receiver.on('/by-address')[0]!.body['event-data']).toMatchObject({ event: 'delivered', recipient: 'local-receiver@example.com' });
    await mg.webhooks.destroy(sandbox, 'delivered');
  });
});

describe('a URL stored before the policy refused it', () => {
  it('is not delivered to, and the delivery is recorded as failed at once', async () => {
    // As an older version accepted and stored it, straight into the table.
    const metadata = 'http://169.254.169.254/latest/meta-data/iam/security-credentials/';
    const control = `${receiver.url}/stored-earlier`;
    await platform.us.run(() => changeDomainHooks(accountId, sandbox, (hooks) => ({ hooks: { ...hooks, delivered: [metadata, control] }, result: undefined })));

    await send('stored-earlier@example.com');
    await eventually(async () => receiver.on('/stored-earlier').length === 1);
    const eventId = receiver.on('/stored-earlier')[0]!.body['event-data'].id;
    const failed = await eventually(async () => (await platform.us.run(() => failedDeliveries(accountId, dayOf(Date.now())))).find((f) => f.eventId === eventId));
    expect(failed).toMatchObject({
      url: metadata,
      reason: 'refused-address',
      attempts: 1,
      lastOutcome: '169.254.169.254 is a cloud metadata address, which webhooks may not reach',
    });
  });
});
