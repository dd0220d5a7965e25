import { withEnv } from '../../../functions/platform/env';
import { checkWebhookUrl, webhookAddressPolicy } from '../../../functions/webhooks/url-policy';

// Names resolve through a fixed table here, so a name pointing at the metadata service can be
// tested without a DNS server that serves one; other names fail as unknown hosts do.
const HOSTS: Record<string, string[]> = {
  'metadata.google.internal': ['169.254.169.254'],
  'ecs-credentials.test': ['169.254.170.2'],
  'lan-box.test': ['192.168.1.20'],
  'localhost': ['127.0.0.1', '::1'],
  'hooks.example.com': ['93.184.216.34'],
  // One bad address among good ones is enough to refuse: the connection may use any of them.
  'mixed.example.com': ['93.184.216.34', '169.254.169.254'],
};
jest.mock('node:dns/promises', () => ({
  lookup: jest.fn(async (hostname: string) => {
    const addresses = HOSTS[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }),
}));

const AWS = { TABLE_NAME: 't' };
// What lib/local/region-host.ts sets today (the older name), and what it should set.
const LOCAL_LEGACY = { TABLE_NAME: 't', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
const LOCAL = { TABLE_NAME: 't', WEBHOOK_ALLOW_LOOPBACK_URLS: 'true' };

const verdict = async (settings: Record<string, string>, url: string) => {
  try {
    return await withEnv(settings, () => checkWebhookUrl(url));
  } catch (error) {
    return (error as Error).message;
  }
};

describe('the setting', () => {
  it.each([
    [{}, false],
    [{ WEBHOOK_ALLOW_LOOPBACK_URLS: 'true' }, true],
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, true],
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }, false],
    // The newer name wins over the older, either way.
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_ALLOW_LOOPBACK_URLS: 'false' }, false],
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_ALLOW_LOOPBACK_URLS: 'true' }, true],
  ])('%j allows loopback: %s', (settings, allowLoopback) => {
    expect(withEnv({ TABLE_NAME: 't', ...settings }, webhookAddressPolicy)).toEqual({ allowLoopback });
  });
});

describe.each([
  ['AWS (nothing set)', AWS],
  ['local mode', LOCAL],
  ['local mode, older setting', LOCAL_LEGACY],
])('refused in every configuration: %s', (_, settings) => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'cloud metadata'],
    // Other spellings of the same address, as the URL parser normalises them.
    ['http://2852039166/latest/meta-data', 'cloud metadata'],
    ['http://0xa9.0xfe.0xa9.0xfe/latest/meta-data', 'cloud metadata'],
    ['http://[::ffff:169.254.169.254]/latest/meta-data', 'cloud metadata'],
    ['http://169.254.170.2/v2/credentials', 'cloud metadata'],
    ['http://[fd00:ec2::254]/latest/meta-data', 'cloud metadata'],
    ['http://100.100.100.200/latest/meta-data', 'cloud metadata'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'cloud metadata'],
    ['http://ecs-credentials.test/v2/credentials', 'cloud metadata'],
    ['https://mixed.example.com/hook', 'cloud metadata'],
    ['http://[fe80::1]/hook', 'link-local'],
    ['http://169.254.10.10/hook', 'link-local'],
    ['http://10.0.0.1/hook', 'private'],
    ['http://192.168.1.1/hook', 'private'],
    ['http://lan-box.test/hook', 'private'],
    ['http://[fd12::1]/hook', 'unique-local'],
    ['http://100.64.0.1/hook', 'carrier-grade NAT'],
    ['http://0.0.0.0:8080/hook', 'unspecified'],
  ])('%s (%s)', async (url, category) => {
    expect(await verdict(settings, url)).toBe(`${url} is not a valid url: its host resolves to a ${category} address, which webhooks may not reach`);
  });

  it('accepts a public receiver', async () => {
    expect(await verdict(settings, ' https://hooks.example.com/mailgun ')).toBe('https://hooks.example.com/mailgun');
    expect(await verdict(settings, 'https://93.184.216.34/mailgun')).toBe('https://93.184.216.34/mailgun');
  });
});

describe('loopback', () => {
  const urls = ['http://127.0.0.1:8080/hook', 'http://localhost:8080/hook', 'http://[::1]:8080/hook', 'http://[::ffff:127.0.0.1]:8080/hook'];

  it.each(urls)('%s is accepted in local mode, under either name of the setting', async (url) => {
    expect(await verdict(LOCAL, url)).toBe(url);
    expect(await verdict(LOCAL_LEGACY, url)).toBe(url);
  });

  it.each(urls)('%s is refused on AWS', async (url) => {
    expect(await verdict(AWS, url)).toBe(`${url} is not a valid url: its host resolves to a loopback address, which webhooks may not reach`);
  });
});

describe('a name that does not resolve', () => {
  it('is refused on AWS', async () => {
    expect(await verdict(AWS, 'https://no-such-host.test/hook')).toBe('https://no-such-host.test/hook is not a valid url: host not found');
  });

  it('is accepted in local mode, where delivery checks what it resolves to by then', async () => {
    expect(await verdict(LOCAL, 'https://no-such-host.test/hook')).toBe('https://no-such-host.test/hook');
  });
});
