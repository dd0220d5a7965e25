import type { LocalPlatform } from '../../lib/local/platform';
import { startDnsServer } from '../support/dns-server';
import { sdk, startTestPlatform } from '../support/platform';

// PUT /v4/domains/{name}/verify does real lookups through DNS_SERVERS: here a DNS server on
// loopback whose zone the test publishes step by step.
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;

beforeAll(async () => {
  dns = await startDnsServer();
  platform = await startTestPlatform({ env: { DNS_SERVERS: dns.address, TRACKING_CNAME_TARGET: 'track.mailplane.test' } });
  mg = sdk(platform.us.url);
});
afterAll(async () => {
  await platform.close();
  await dns.close();
});

type Rec = { name: string; record_type: string; value: string; valid: string; cached: string[] };
const records = (domain: { sending_dns_records: unknown; receiving_dns_records: unknown }) =>
  [...(domain.sending_dns_records as Rec[]), ...(domain.receiving_dns_records as Rec[])];

/** Publishes what the platform asks for, as a user would in their DNS provider. */
function publish(all: Rec[]) {
  for (const r of all) {
    if (r.record_type === 'TXT') dns.set(r.name, { txt: [r.value] });
    if (r.record_type === 'MX') dns.set(r.name, { mx: [{ exchange: r.value, priority: 10 }] });
    if (r.record_type === 'CNAME') dns.set(r.name, { cname: r.value });
  }
}

it('stays unverified while the records are missing, and turns active once they are published', async () => {
  const created = await mg.domains.create({ name: 'verify.example.com', dkim_key_size: '2048' } as never);
  const before = await mg.domains.verify('verify.example.com');
  expect(before.state).toBe('unverified');
  expect(records(before).every((r) => r.valid === 'invalid' && r.cached.length === 0)).toBe(true);

  publish(records(created));
  const after = await mg.domains.verify('verify.example.com');
  expect(after.state).toBe('active');
  for (const r of records(after)) {
    expect([r.name, r.valid]).toEqual([r.name, 'valid']);
    expect(r.cached).toEqual([r.value]);
  }
  // The state is kept, not recomputed on read.
  expect((await mg.domains.get('verify.example.com')).state).toBe('active');
});

it('marks a wrong record invalid and shows what DNS holds', async () => {
  const created = await mg.domains.create({ name: 'wrong.example.com', dkim_key_size: '1024' } as never);
  publish(records(created));
  dns.set('bounce.wrong.example.com', { txt: ['v=spf1 include:_spf.google.com ~all'] });
  const verified = await mg.domains.verify('wrong.example.com');
  expect(verified.state).toBe('unverified');
  const spf = records(verified).find((r) => r.record_type === 'TXT' && r.name === 'bounce.wrong.example.com')!;
  expect(spf).toMatchObject({ valid: 'invalid', cached: ['v=spf1 include:_spf.google.com ~all'] });
});

it('says unknown, not invalid, when DNS cannot answer', async () => {
  const created = await mg.domains.create({ name: 'flaky.example.com', dkim_key_size: '1024' } as never);
  publish(records(created));
  dns.set('s1._domainkey.flaky.example.com', { servfail: true });
  const verified = await mg.domains.verify('flaky.example.com');
  expect(verified.state).toBe('unverified');
  expect(records(verified).find((r) => r.name === 's1._domainkey.flaky.example.com')).toMatchObject({ valid: 'unknown', cached: [] });
});

it('only lets web_prefix move to a host whose CNAME is published, then asks for re-verification', async () => {
  const created = await mg.domains.create({ name: 'prefix.example.com', dkim_key_size: '1024' } as never);
  publish(records(created));
  expect((await mg.domains.verify('prefix.example.com')).state).toBe('active');
  dns.set('links.prefix.example.com', { cname: 'track.mailplane.test' });
  const updated = await mg.domains.update('prefix.example.com', { web_prefix: 'links' } as never);
  expect(updated).toMatchObject({ web_prefix: 'links', state: 'unverified' });
  expect(records(updated).find((r) => r.record_type === 'CNAME')).toMatchObject({ name: 'links.prefix.example.com', valid: 'unknown' });
  expect((await mg.domains.verify('prefix.example.com')).state).toBe('active');
});
