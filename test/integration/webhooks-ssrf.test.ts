import type { LocalPlatform } from '../../lib/local/platform';
import { call, sandboxOf, sdk, sdkError, startTestPlatform } from '../support/platform';

// As deployed on AWS (loopback not allowed): webhook URLs that reach into the platform's own
// network are refused at every level, and nothing is stored. The newer setting is the one turned
// off, since it wins over the older name whichever of the two local mode sets.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { WEBHOOK_ALLOW_LOOPBACK_URLS: 'false' } });
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
});
afterAll(() => platform.close());

const internal = [
  ['http://127.0.0.1:8080/hook', 'loopback'],
  ['http://localhost/hook', 'loopback'],
  ['http://[::1]/hook', 'loopback'],
  ['http://[::ffff:127.0.0.1]/hook', 'loopback'],
  ['http://169.254.169.254/latest/meta-data', 'cloud metadata'],
  ['http://[fd00:ec2::254]/latest/meta-data', 'cloud metadata'],
  ['http://[fe80::1]/hook', 'link-local'],
  ['https://10.0.0.8/hook', 'private'],
  ['https://100.64.1.1/hook', 'carrier-grade NAT'],
  ['http://[fd00::1]/hook', 'unique-local'],
  ['http://0.0.0.0/hook', 'unspecified'],
] as const;

it.each(internal)('refuses %s (%s) at domain level, v4 and account level', async (url, category) => {
  const message = new RegExp(`is not a valid url: its host resolves to a ${category} address`);
  const v3 = await sdkError(mg.webhooks.create(sandbox, 'delivered', url, false));
  expect([v3.status, v3.details]).toEqual([400, expect.stringMatching(message)]);
  const body = new URLSearchParams([['url', url], ['event_types', 'opened']]).toString();
  const contentType = 'application/x-www-form-urlencoded';
  const v4 = await call(`${platform.us.url}/v4/domains/${sandbox}/webhooks`, { method: 'POST', body, contentType });
  expect([v4.status, v4.json.message]).toEqual([400, expect.stringMatching(message)]);
  const v1 = await call(`${platform.us.url}/v1/webhooks`, { method: 'POST', body, contentType });
  expect([v1.status, v1.json.message]).toEqual([400, expect.stringMatching(message)]);
  const test = await sdkError(mg.webhooks.create(sandbox, 'delivered', url, true));
  expect(test.status).toBe(400);
});

it('stored nothing', async () => {
  expect(await mg.webhooks.list(sandbox, {})).toEqual({});
  expect((await call(`${platform.us.url}/v1/webhooks`)).json).toEqual({ webhooks: [] });
});

it('refuses a host that does not resolve', async () => {
  const error = await sdkError(mg.webhooks.create(sandbox, 'delivered', 'https://no-such-host.invalid/hook', false));
  expect([error.status, error.details]).toEqual([400, 'https://no-such-host.invalid/hook is not a valid url: host not found']);
});
