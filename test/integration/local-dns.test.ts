import { lookup } from '../../functions/platform/dns';
import type { LocalPlatform } from '../../lib/local/platform';
import { eventsOf, eventually, sdk, startTestPlatform } from '../support/platform';

// A new user's first act: create their own domain, verify it and send from it, in local mode as
// it comes (no DNS_SERVERS): the region's own DNS publishes what each domain asks for.
let platform: LocalPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.close());

type Rec = { name: string; record_type: string; valid: string };

it('verifies a newly created domain through local DNS, and sends from it', async () => {
  const mg = sdk(platform.us.url);
  await mg.domains.create({ name: 'mine.example.com' } as never);
  const verified = await mg.domains.verify('mine.example.com');
  expect(verified.state).toBe('active');
  const records = [...(verified.sending_dns_records as Rec[]), ...(verified.receiving_dns_records as Rec[])];
  // Every record is looked up for real; all but the tracking CNAME are published.
  for (const record of records) expect([record.name, record.record_type, record.valid]).toEqual([record.name, record.record_type, record.record_type === 'CNAME' ? 'invalid' : 'valid']);

  const sent = await mg.messages.create('mine.example.com', { from: 'hello@mine.example.com', to: 'friend@example.com', subject: 'from my domain', html: '<p>Hi <a href="https://example.com/x">there</a></p>' } as never);
  const delivered = await eventually(async () => (await eventsOf(platform.us.url, 'mine.example.com', sent.id!)).find((e) => e.event === 'delivered'));
  expect(delivered).toMatchObject({ recipient: 'friend@example.com' });
});

it('publishes each region its own domains only', async () => {
  await sdk(platform.eu.url).domains.create({ name: 'eu-only.example.com' } as never);
  expect((await sdk(platform.eu.url).domains.verify('eu-only.example.com')).state).toBe('active');
  // The US region has no such domain, and its DNS does not know it either.
  expect(platform.us.env.DNS_SERVERS).not.toBe(platform.eu.env.DNS_SERVERS);
  expect(await platform.us.run(() => lookup('MX', 'bounce.eu-only.example.com'))).toEqual([]);
  expect(await platform.eu.run(() => lookup('MX', 'bounce.eu-only.example.com'))).toEqual(['feedback-smtp.eu-west-1.amazonses.com']);
});
