import { generateKeyPairSync } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { getItem } from '../../functions/data/store';
import type { LocalPlatform } from '../../lib/local/platform';
import { startDnsServer } from '../support/dns-server';
import { call, eventually, sdk, startTestPlatform } from '../support/platform';
import { domainKeys, type DkimKeyItem } from '../../functions/domains/domain-store';

// Activation and rotation look DKIM records up through DNS_SERVERS: here a DNS server on loopback
// whose zone the test publishes as a user would, and through which the signatures SES's stand-in
// puts on delivered mail are verified.
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
const replies: unknown[] = [];
/** mailgun.js has the domain keys client at run time; its IDomainsClient type does not list it. */
const keysOf = (client: ReturnType<typeof sdk>) => (client.domains as unknown as { domainKeys: import('mailgun.js/definitions').Interfaces.IDomainKeysClient }).domainKeys;

beforeAll(async () => {
  dns = await startDnsServer();
  platform = await startTestPlatform({ env: { DNS_SERVERS: dns.address }, periodicJobEveryMs: 200 });
  mg = sdk(platform.us.url);
});
afterAll(async () => {
  await platform.close();
  await dns.close();
});

type Rec = { name: string; record_type: string; value: string };
const allRecords = (domain: { sending_dns_records: unknown; receiving_dns_records: unknown }) => [...(domain.sending_dns_records as Rec[]), ...(domain.receiving_dns_records as Rec[])];

function publish(records: Rec[]) {
  for (const r of records) {
    // A name holds a CNAME or other records, never both: publishing one replaces the other.
    if (r.record_type === 'TXT') dns.set(r.name, { txt: [r.value], cname: undefined });
    if (r.record_type === 'MX') dns.set(r.name, { mx: [{ exchange: r.value, priority: 10 }] });
    if (r.record_type === 'CNAME') dns.set(r.name, { cname: r.value, txt: undefined });
  }
}

/** A domain with every record published and verified, as a user would have it before sending. */
async function activeDomain(name: string) {
  const created = await mg.domains.create({ name } as never);
  replies.push(created);
  publish(allRecords(created as never));
  expect((await mg.domains.verify(name)).state).toBe('active');
}

async function reverify(name: string) {
  const domain = await mg.domains.get(name);
  const withRecords = await call(`${platform.us.url}/v4/domains/${name}?h:with_dns=true`);
  publish(allRecords(withRecords.json as never));
  await mg.domains.verify(domain.name);
}

/** Sends one message and returns the DKIM verdicts of the copy SES delivered. */
async function sendAndVerify(from: string) {
  const subject = `dkim ${Math.random()}`;
  await mg.messages.create(from.split('@')[1]!, { from, to: 'reader@example.net', subject, text: 'Signed, sealed, delivered.' });
  const sent = await eventually(async () => platform.us.ses.sent.find((m) => m.raw.toString('utf8').includes(subject)));
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  const verdict = await dkimVerify(sent.raw, { resolver: async (name: string) => resolver.resolveTxt(name) });
  return verdict.results.map((r) => ({ d: r.signingDomain, s: r.selector, result: r.status.result }));
}

it('signs delivered mail with the domain key SES was given, verifiable against the published record', async () => {
  await activeDomain('signed.example.com');
  expect(await sendAndVerify('news@signed.example.com')).toEqual([{ d: 'signed.example.com', s: 's1', result: 'pass' }]);
});

it('creates keys inactive, activates them only once DNS publishes them, and then signs with them', async () => {
  await activeDomain('rotating.example.com');
  const created = await keysOf(mg).create({ signingDomain: 'rotating.example.com', selector: 's2', bits: '1024' } as never);
  replies.push(created);
  expect(created).toMatchObject({
    signing_domain: 'rotating.example.com',
    selector: 's2',
    dns_record: { is_active: false, name: 's2._domainkey.rotating.example.com', record_type: 'TXT', valid: 'unknown' },
  });
  const record = (created as unknown as { dns_record: Rec }).dns_record;

  const refused = await call(`${platform.us.url}/v4/domains/rotating.example.com/keys/s2/activate`, { method: 'PUT' });
  expect(refused.status).toBe(400);
  expect(String(refused.json.message)).toMatch(/s2\._domainkey\.rotating\.example\.com/);
  expect(await sendAndVerify('a@rotating.example.com')).toEqual([{ d: 'rotating.example.com', s: 's1', result: 'pass' }]);

  dns.set(record.name, { txt: [record.value] });
  expect(await keysOf(mg).activate('rotating.example.com', 's2')).toMatchObject({ message: 'domain key activated', authority: 'rotating.example.com', selector: 's2', active: true });
  expect(await sendAndVerify('a@rotating.example.com')).toEqual([{ d: 'rotating.example.com', s: 's2', result: 'pass' }]);

  const listed = await keysOf(mg).list('rotating.example.com');
  replies.push(listed);
  expect((listed as unknown as { items: Array<{ selector: string; dns_record: { is_active: boolean; valid: string } }> }).items.map((k) => [k.selector, k.dns_record.is_active, k.dns_record.valid])).toEqual([
    ['s1', true, 'valid'],
    ['s2', true, 'valid'],
  ]);

  // Deactivating the signing key falls back to the other active one; only active keys sign.
  expect(await keysOf(mg).deactivate('rotating.example.com', 's2')).toMatchObject({ selector: 's2', active: false });
  expect(await sendAndVerify('a@rotating.example.com')).toEqual([{ d: 'rotating.example.com', s: 's1', result: 'pass' }]);

  // The last active key cannot be deleted; an inactive one can, irrecoverably.
  const last = await call(`${platform.us.url}/v1/dkim/keys?signing_domain=rotating.example.com&selector=s1`, { method: 'DELETE' });
  expect(last).toMatchObject({ status: 400, json: { message: 'cannot delete domain key: must have at least one active domain key' } });
  expect(await keysOf(mg).destroy('rotating.example.com', 's2')).toMatchObject({ message: 'success' });
  expect((await call(`${platform.us.url}/v1/dkim/keys?signing_domain=rotating.example.com&selector=s2`, { method: 'DELETE' })).status).toBe(404);
});

it('imports a PKCS#1 key and keeps every private key sealed, never in a reply', async () => {
  await activeDomain('imported.example.com');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'der' } });
  const created = await keysOf(mg).create({ signingDomain: 'imported.example.com', selector: 'mine', pem: privateKey } as never);
  replies.push(created);
  expect((created as unknown as { dns_record: Rec }).dns_record.value).toBe(`k=rsa; p=${publicKey.toString('base64')}`);

  const notRsa = await call(`${platform.us.url}/v1/dkim/keys`, { method: 'POST', body: 'signing_domain=imported.example.com&selector=bad&pem=hello', contentType: 'application/x-www-form-urlencoded' });
  expect(notRsa.status).toBe(400);
  const duplicate = await call(`${platform.us.url}/v1/dkim/keys`, { method: 'POST', body: 'signing_domain=imported.example.com&selector=mine', contentType: 'application/x-www-form-urlencoded' });
  expect(duplicate.status).toBe(409);
  const unknownDomain = await call(`${platform.us.url}/v1/dkim/keys`, { method: 'POST', body: 'signing_domain=nobody.example.com&selector=x', contentType: 'application/x-www-form-urlencoded' });
  expect(unknownDomain.status).toBe(404);

  const accountId = (await platform.us.run(() => getItem<{ accountId: string }>(domainKeys.domainClaim('imported.example.com'))))!.accountId;
  const stored = await platform.us.run(() => getItem<DkimKeyItem>(domainKeys.dkimKey(accountId, 'imported.example.com', 'mine')));
  expect(stored!.privateKeySealed).toMatch(/^v1\./);
  expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
  expect(JSON.stringify(replies)).not.toMatch(/PRIVATE KEY|privateKey/);
});

it('lists the account keys a page at a time with absolute page URLs and a total', async () => {
  const first = await call(`${platform.us.url}/v1/dkim/keys?limit=1`);
  expect(first.status).toBe(200);
  const page = first.json as { items: Array<{ signing_domain: string; dns_record: { valid: string } }>; paging: Record<string, string>; total_count: number };
  expect(page.items).toHaveLength(1);
  expect(page.total_count).toBeGreaterThanOrEqual(3);
  expect(page.paging.next).toMatch(new RegExp(`^${platform.us.url}/v1/dkim/keys\\?page=`));
  const seen = [page.items[0]];
  let next = page.paging.next!;
  for (let i = 1; i < page.total_count; i += 1) {
    const more = (await call(next)).json as typeof page;
    seen.push(...more.items);
    next = more.paging.next!;
  }
  expect(seen).toHaveLength(page.total_count);
  expect(new Set(seen.map((k) => JSON.stringify(k))).size).toBe(page.total_count);
  expect(((await call(next)).json as typeof page).items).toEqual([]);
  const filtered = (await call(`${platform.us.url}/v1/dkim/keys?signing_domain=imported.example.com`)).json as typeof page;
  expect(filtered.items.map((k) => k.signing_domain)).toEqual(['imported.example.com', 'imported.example.com']);
  expect((await call(`${platform.us.url}/v1/dkim/keys?limit=101`)).status).toBe(400);
});

it('delegates DKIM authority to the parent domain: the subdomain signs with the parent key through a CNAME', async () => {
  await activeDomain('parent.example.com');
  await activeDomain('mail.parent.example.com');
  const delegated = (await keysOf(mg).updateDKIMAuthority('mail.parent.example.com', { self: false } as never)) as unknown as { changed: boolean; sending_dns_records: Rec[] };
  expect(delegated.changed).toBe(true);
  expect(delegated.sending_dns_records).toContainEqual(expect.objectContaining({ record_type: 'CNAME', name: 's1._domainkey.mail.parent.example.com', value: 's1._domainkey.parent.example.com' }));
  await reverify('mail.parent.example.com');
  expect(await sendAndVerify('hi@mail.parent.example.com')).toEqual([{ d: 'mail.parent.example.com', s: 's1', result: 'pass' }]);
  // The parent's key now signs for two domains: it cannot go while it does.
  expect((await call(`${platform.us.url}/v3/domains/parent.example.com/dkim_authority?self=false`, { method: 'PUT' })).status).toBe(400);
  expect((await call(`${platform.us.url}/v3/domains/nope.example.com/dkim_authority?self=false`, { method: 'PUT' })).status).toBe(404);

  const back = (await keysOf(mg).updateDKIMAuthority('mail.parent.example.com', { self: true } as never)) as unknown as { changed: boolean };
  expect(back.changed).toBe(true);
  await reverify('mail.parent.example.com');
  const own = await sendAndVerify('hi@mail.parent.example.com');
  expect(own).toEqual([{ d: 'mail.parent.example.com', s: expect.any(String), result: 'pass' }]);
});

it('changes the selector of the signing key, refusing one another key has', async () => {
  await activeDomain('selector.example.com');
  await keysOf(mg).create({ signingDomain: 'selector.example.com', selector: 'taken', bits: '1024' } as never);
  const clash = await call(`${platform.us.url}/v3/domains/selector.example.com/dkim_selector?dkim_selector=taken`, { method: 'PUT' });
  expect(clash.status).toBe(400);
  expect(await keysOf(mg).updateDKIMSelector('selector.example.com', { dkimSelector: 'fresh' })).toMatchObject({ message: 'DKIM selector changed' });
  await reverify('selector.example.com');
  expect(await sendAndVerify('x@selector.example.com')).toEqual([{ d: 'selector.example.com', s: 'fresh', result: 'pass' }]);
});

it('rotates: the next key is published first and signs only once its record verifies', async () => {
  await activeDomain('auto.example.com');
  const tooOften = await call(`${platform.us.url}/v1/dkim_management/domains/auto.example.com/rotation`, { method: 'PUT', body: 'rotation_enabled=true&rotation_interval=1d', contentType: 'application/x-www-form-urlencoded' });
  expect(tooOften).toMatchObject({ status: 400, json: { Reason: 'rotation_interval must be at least 5 days' } });
  const missing = await call(`${platform.us.url}/v1/dkim_management/domains/none.example.com/rotate`, { method: 'POST' });
  expect(missing).toMatchObject({ status: 404, json: { Description: 'domain not found' } });

  const set = await call(`${platform.us.url}/v1/dkim_management/domains/auto.example.com/rotation`, { method: 'PUT', body: 'rotation_enabled=true&rotation_interval=7d', contentType: 'application/x-www-form-urlencoded' });
  expect(set.json).toMatchObject({ domain: { name: 'auto.example.com', state: 'enabled', active_selector: 's1', rotation_enabled: 'true', rotation_interval: '168h' } });

  expect((await call(`${platform.us.url}/v1/dkim_management/domains/auto.example.com/rotate`, { method: 'POST' })).json).toEqual({ message: 'ok' });
  const pending = (await call(`${platform.us.url}/v4/domains/auto.example.com?h:with_dns=true`)).json as { sending_dns_records: Rec[] };
  const next = pending.sending_dns_records.find((r) => r.name === 'pdk1._domainkey.auto.example.com')!;
  expect(next).toMatchObject({ record_type: 'TXT' });
  // Not yet published: the old key keeps signing.
  expect(await sendAndVerify('r@auto.example.com')).toEqual([{ d: 'auto.example.com', s: 's1', result: 'pass' }]);

  dns.set(next.name, { txt: [next.value] });
  await eventually(async () => ((await call(`${platform.us.url}/v4/domains/auto.example.com?h:extended=true`)).json as { domain: { dkim_host: string } }).domain.dkim_host === 'pdk1._domainkey.auto.example.com');
  expect(await sendAndVerify('r@auto.example.com')).toEqual([{ d: 'auto.example.com', s: 'pdk1', result: 'pass' }]);
  const keysNow = (await keysOf(mg).list('auto.example.com')) as unknown as { items: Array<{ selector: string; dns_record: { is_active: boolean } }> };
  expect(keysNow.items.map((k) => [k.selector, k.dns_record.is_active])).toEqual([
    ['pdk1', true],
    ['s1', false],
  ]);
});
