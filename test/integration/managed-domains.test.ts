import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, sdk, startTestPlatform } from '../support/platform';

// Managed domains of the optimization product as Mailgun's clients call them: the domain in the
// query (its documentation) or the form (its Go client); verified at once when it is an active
// sending domain of the account, else by the TXT record it names at the apex.
let platform: LocalPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.close());

const url = () => platform.us.url;
type Managed = { name: string; acid: string; created_at: number; txt_record: string; verified: { status: string; verified_at: number }; services: Record<string, boolean> };

test('an active sending domain is verified as soon as it is added; the list pages with absolute URLs', async () => {
  await sdk(url()).domains.create({ name: 'mail.example.com' });
  await sdk(url()).domains.verify('mail.example.com');
  const added = await call(`${url()}/v1/inboxready/domains?domain=mail.example.com`, { method: 'POST' });
  expect(added.status).toBe(200);
  const domain = added.json.domain as Managed;
  // A verified domain is watched on the domain blocklists at once (blocklists.test.ts).
  expect(domain).toMatchObject({ name: 'mail.example.com', verified: { status: 'sending' }, services: { domain_blocklist_monitoring: true, spam_trap_monitoring: true } });
  expect(Number.isInteger(domain.created_at) && Number.isInteger(domain.verified.verified_at) && domain.verified.verified_at > 0).toBe(true);
  expect((await call(`${url()}/v1/inboxready/domains?domain=mail.example.com`, { method: 'POST' })).status).toBe(409);

  // The Go client sends the domain as a form field.
  expect((await call(`${url()}/v1/inboxready/domains`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'domain=other.example.com' })).status).toBe(200);
  const page = (await call(`${url()}/v1/inboxready/domains?limit=1`)).json as { items: Managed[]; paging: { next: string } };
  expect(page.items.map((d) => d.name)).toEqual(['mail.example.com']);
  const next = (await call(page.paging.next)).json as { items: Managed[] };
  expect(next.items.map((d) => d.name)).toEqual(['other.example.com']);
  expect((await call(`${url()}/v1/inboxready/domains?domain=not a domain`, { method: 'POST' })).status).toBe(400);
});

test('another domain stays pending until its apex publishes the TXT record it names', async () => {
  const added = (await call(`${url()}/v1/inboxready/domains?domain=brand.example.org`, { method: 'POST' })).json.domain as Managed;
  expect(added.verified).toEqual({ status: 'pending', verified_at: 0 });
  expect(added.services).toEqual({ domain_blocklist_monitoring: false, spam_trap_monitoring: false });
  expect(added.txt_record).toMatch(/^mailplane-verification=[0-9a-f]{32}$/);
  expect((await call(`${url()}/v1/inboxready/domains/verify?domain=brand.example.org`, { method: 'PUT' })).json).toMatchObject({ message: 'Domain pending verification' });

  // Published by hand, as a user does in the region's zone file (in memory here).
  platform.us.dns.publish({ name: 'brand.example.org', type: 'TXT', value: added.txt_record });
  const verified = await eventually(async () => {
    const res = await call(`${url()}/v1/inboxready/domains/verify?domain=brand.example.org`, { method: 'PUT' });
    return (res.json.domain as Managed).verified.status === 'inbox_ready' && res;
  });
  expect(verified.json.message).toBe('Domain verified');

  expect((await call(`${url()}/v1/inboxready/domains?domain=brand.example.org`, { method: 'DELETE' })).json).toEqual({ message: 'brand.example.org has been removed from InboxReady' });
  expect((await call(`${url()}/v1/inboxready/domains?domain=brand.example.org`, { method: 'DELETE' })).status).toBe(404);
});
