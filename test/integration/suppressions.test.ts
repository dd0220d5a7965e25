import { addBounce, addComplaint, addUnsubscribe, isAllowlisted, suppressionFor } from '../../functions/suppressions/sending';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, primaryAccountId, sdk, sdkError, startTestPlatform } from '../support/platform';
import { scanTable } from '../support/table';

// Bounces, complaints, unsubscribes and the allowlist through mailgun.js (contract §8), and the
// functions the sending pipeline calls.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let accountId: string;

const DOMAINS = ['bounces', 'paging', 'complaints', 'unsubscribes', 'allow', 'import', 'clear', 'sending', 'other'].map((name) => `${name}.supp.test`);
const [BOUNCES, PAGING, COMPLAINTS, UNSUBSCRIBES, ALLOW, IMPORT, CLEAR, SENDING, OTHER] = DOMAINS as [string, string, string, string, string, string, string, string, string];

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  for (const name of DOMAINS) await mg.domains.create({ name, dkim_key_size: '1024' } as never);
  accountId = await primaryAccountId(platform.us);
});
afterAll(() => platform.close());

const url = (domain: string, path: string) => `${platform.us.url}/v3/${domain}/${path}`;
const urlencoded = (fields: Record<string, string>) => ({
  method: 'POST',
  contentType: 'application/x-www-form-urlencoded',
  body: new URLSearchParams(fields).toString(),
});
const postJson = (body: unknown) => ({ method: 'POST', contentType: 'application/json', body: JSON.stringify(body) });
const RFC1123 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/;

/** Every entry of a list, by following `paging.next` verbatim until an empty page, as mailgun-go does. */
async function walk(domain: string, list: string, query = 'limit=1000'): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  for (let next = `${url(domain, list)}?${query}`; ; ) {
    const page = await call(next);
    expect(page.status).toBe(200);
    const pageItems = page.json.items as Array<Record<string, unknown>>;
    if (pageItems.length === 0) return items;
    items.push(...pageItems);
    next = (page.json.paging as { next: string }).next;
  }
}
const addressesOf = async (domain: string, list: string) => (await walk(domain, list)).map((item) => item.address ?? item.value);

function multipart(parts: Array<{ name: string; value: string; filename?: string }>) {
  const boundary = 'suppressions-test-boundary';
  const lines = parts.flatMap((part) => [
    `--${boundary}`,
    `Content-Disposition: form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`,
    ...(part.filename ? ['Content-Type: text/csv'] : []),
    '',
    part.value,
  ]);
  return { method: 'POST', contentType: `multipart/form-data; boundary=${boundary}`, body: [...lines, `--${boundary}--`, ''].join('\r\n') };
}

describe('bounces', () => {
  it('adds one through the SDK (a JSON array) and reads it back, its code a string on the wire', async () => {
    const created = await mg.suppressions.create(BOUNCES, 'bounces', { address: 'Alice@Example.com', code: 554, error: 'mailbox full' });
    expect(created).toMatchObject({ message: '1 addresses have been added to the bounces table', status: 200 });
    const bounce = await mg.suppressions.get(BOUNCES, 'bounces', 'ALICE@example.com');
    expect(bounce).toMatchObject({ type: 'bounces', address: 'alice@example.com', code: 554, error: 'mailbox full' });
    expect(Number.isNaN((bounce as { created_at: Date }).created_at.getTime())).toBe(false);
    const raw = await call(url(BOUNCES, 'bounces/alice%40example.com'));
    expect(raw.contentType).toBe('application/json');
    expect(raw.json).toEqual({ address: 'alice@example.com', code: '554', error: 'mailbox full', created_at: expect.stringMatching(RFC1123) });
  });

  it('adds one from form fields with Mailgun’s defaults and the given RFC 2822 date', async () => {
    const res = await call(url(BOUNCES, 'bounces'), urlencoded({ address: 'bob@example.com', created_at: 'Mon, 3 Oct 2011 08:02:00 -0000' }));
    expect(res).toMatchObject({ status: 200, json: { message: 'Address has been added to the bounces table', address: 'bob@example.com' } });
    const raw = await call(url(BOUNCES, 'bounces/bob@example.com'));
    expect(raw.json).toEqual({ address: 'bob@example.com', code: '550', error: '', created_at: 'Mon, 03 Oct 2011 08:02:00 GMT' });
  });

  it('replaces an entry added again, keeping one per address', async () => {
    await mg.suppressions.create(BOUNCES, 'bounces', [{ address: 'again@example.com', code: 550 }, { address: 'AGAIN@example.com', code: 552, error: 'later' }]);
    expect(await mg.suppressions.get(BOUNCES, 'bounces', 'again@example.com')).toMatchObject({ code: 552, error: 'later' });
    expect((await addressesOf(BOUNCES, 'bounces')).filter((a) => a === 'again@example.com')).toHaveLength(1);
  });

  it('answers 404 with Mailgun’s messages for an unknown address or domain', async () => {
    expect(await sdkError(mg.suppressions.get(BOUNCES, 'bounces', 'nobody@example.com'))).toEqual({ status: 404, details: 'Address not found in bounces table' });
    expect(await sdkError(mg.suppressions.get('nowhere.example.com', 'bounces', 'a@example.com'))).toEqual({ status: 404, details: 'Domain not found' });
    expect(await sdkError(mg.suppressions.list('nowhere.example.com', 'bounces'))).toEqual({ status: 404, details: 'Domain not found' });
    expect(await sdkError(mg.suppressions.create('nowhere.example.com', 'bounces', { address: 'a@example.com' }))).toEqual({ status: 404, details: 'Domain not found' });
  });

  it('deletes one address', async () => {
    await mg.suppressions.create(BOUNCES, 'bounces', { address: 'gone@example.com' });
    expect(await mg.suppressions.destroy(BOUNCES, 'bounces', 'Gone@example.com')).toMatchObject({
      message: 'Bounced addresses for this domain have been removed',
      address: 'gone@example.com',
    });
    expect((await sdkError(mg.suppressions.get(BOUNCES, 'bounces', 'gone@example.com'))).status).toBe(404);
    expect(await sdkError(mg.suppressions.destroy(BOUNCES, 'bounces', 'gone@example.com'))).toEqual({ status: 404, details: 'Address not found in bounces table' });
  });

  const tooMany = Array.from({ length: 1001 }, (_, i) => ({ address: `many${i}@example.com` }));
  it.each([
    ['a form without an address', urlencoded({ code: '550' }), "Missing parameter 'address'"],
    ['a form with a bad address', urlencoded({ address: 'not-an-address' }), "Invalid parameter 'address': must be a valid email address"],
    ['a form with a bad created_at', urlencoded({ address: 'when@example.com', created_at: 'yesterday' }), "Invalid parameter 'created_at': must be a date in RFC 2822 format"],
    ['a batch with one bad address', postJson([{ address: 'fine@example.com' }, { address: 'bad@' }]), "Invalid parameter '1.address': must be a valid email address"],
    ['a batch with a bad created_at', postJson([{ address: 'fine@example.com', created_at: 'soon' }]), "Invalid parameter '0.created_at': must be a date in RFC 2822 format"],
    ['a batch of 1001', postJson(tooMany), 'Batch size should be less than 1000'],
  ])('refuses %s with 400 and changes nothing', async (_, request, message) => {
    const before = await addressesOf(BOUNCES, 'bounces');
    const res = await call(url(BOUNCES, 'bounces'), request);
    expect(res).toMatchObject({ status: 400, contentType: 'application/json', json: { message } });
    expect(await addressesOf(BOUNCES, 'bounces')).toEqual(before);
  });

  it('accepts blank optional fields as absent, as Mailgun’s own batch example sends them', async () => {
    const res = await call(url(BOUNCES, 'bounces'), postJson([{ address: 'blank@example.com', code: '', error: '', created_at: '' }]));
    expect(res.json).toEqual({ message: '1 addresses have been added to the bounces table' });
    expect((await call(url(BOUNCES, 'bounces/blank@example.com'))).json).toMatchObject({ code: '550', error: '' });
  });
});

describe('paging', () => {
  const addresses = ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com', 'e@x.com'];
  beforeAll(async () => {
    // Out of order on purpose: lists come back in address order.
    await mg.suppressions.create(PAGING, 'bounces', [...addresses].reverse().map((address) => ({ address })));
    await mg.suppressions.create(PAGING, 'complaints', ['team-2@x.com', 'team-1@x.com', 'teal@x.com', 'team-3@x.com', 'zed@x.com'].map((address) => ({ address })));
  });

  it('walks five addresses two at a time by following absolute next URLs until an empty page', async () => {
    const pages: string[][] = [];
    for (let next = `${url(PAGING, 'bounces')}?limit=2`; ; ) {
      const page = await call(next);
      const items = (page.json.items as Array<{ address: string }>).map((item) => item.address);
      pages.push(items);
      if (items.length === 0) break;
      next = (page.json.paging as { next: string }).next;
      expect(next.startsWith(`${platform.us.url}/v3/${PAGING}/bounces?`)).toBe(true);
    }
    expect(pages).toEqual([['a@x.com', 'b@x.com'], ['c@x.com', 'd@x.com'], ['e@x.com'], []]);
  });

  it('pages with the SDK’s parsed page links', async () => {
    const seen: string[] = [];
    let page = await mg.suppressions.list(PAGING, 'bounces', { limit: 2 });
    while (page.items.length) {
      seen.push(...page.items.map((item) => (item as { address: string }).address));
      expect(page.pages.next!.iteratorPosition).toBe(seen.at(-1));
      page = await mg.suppressions.list(PAGING, 'bounces', { page: page.pages.next!.page, limit: 2 });
    }
    expect(seen).toEqual(addresses);
  });

  it('goes back with previous and to the end with last, always in address order', async () => {
    const third = await call(`${url(PAGING, 'bounces')}?page=next&address=d%40x.com&limit=2`);
    expect((third.json.items as Array<{ address: string }>).map((i) => i.address)).toEqual(['e@x.com']);
    const back = await call((third.json.paging as { previous: string }).previous);
    expect((back.json.items as Array<{ address: string }>).map((i) => i.address)).toEqual(['c@x.com', 'd@x.com']);
    const last = await mg.suppressions.list(PAGING, 'bounces', { page: '?page=last&limit=2', limit: 2 });
    expect(last.items.map((i) => (i as { address: string }).address)).toEqual(['d@x.com', 'e@x.com']);
  });

  it('filters by address prefix (term) and pages within the filter', async () => {
    expect((await walk(PAGING, 'complaints', 'term=TEAM-&limit=2')).map((i) => i.address)).toEqual(['team-1@x.com', 'team-2@x.com', 'team-3@x.com']);
    const first = await call(`${url(PAGING, 'complaints')}?term=team-&limit=2`);
    expect((first.json.paging as { next: string }).next).toContain('term=team-');
    // A pivot outside the term's range: before it the whole match, after it nothing.
    expect((await walk(PAGING, 'complaints', 'term=team-&page=next&address=a%40x.com')).length).toBe(3);
    expect((await walk(PAGING, 'complaints', 'term=team-&page=next&address=zz%40x.com')).length).toBe(0);
  });

  it('answers an empty list with an empty page whose links lead to empty pages', async () => {
    const empty = await call(url(PAGING, 'unsubscribes'));
    expect(empty.json.items).toEqual([]);
    const next = await call((empty.json.paging as { next: string }).next);
    expect(next).toMatchObject({ status: 200, json: { items: [] } });
  });

  it('refuses limits above 1000 and unknown page names', async () => {
    expect((await call(`${url(PAGING, 'bounces')}?limit=1001`)).json).toEqual({ message: "Invalid parameter 'limit': can't be larger than 1000" });
    expect((await call(`${url(PAGING, 'bounces')}?page=sideways`)).status).toBe(400);
  });
});

describe('complaints', () => {
  it('adds a batch through the SDK, reads and deletes one', async () => {
    const created = await mg.suppressions.create(COMPLAINTS, 'complaints', [{ address: 'spam1@example.com' }, { address: 'spam2@example.com' }]);
    expect(created.message).toBe('2 complaint addresses have been added to the complaints table');
    const complaint = await mg.suppressions.get(COMPLAINTS, 'complaints', 'spam1@example.com');
    expect(complaint).toMatchObject({ type: 'complaints', address: 'spam1@example.com', created_at: expect.any(Date) });
    expect((await call(url(COMPLAINTS, 'complaints/spam1@example.com'))).json).toEqual({ address: 'spam1@example.com', created_at: expect.stringMatching(RFC1123) });
    expect(await mg.suppressions.destroy(COMPLAINTS, 'complaints', 'spam1@example.com')).toMatchObject({
      message: 'Complaint addresses for this domain have been removed',
      address: 'spam1@example.com',
    });
    expect(await sdkError(mg.suppressions.get(COMPLAINTS, 'complaints', 'spam1@example.com'))).toEqual({
      status: 404,
      details: 'No spam complaints found for this address',
    });
  });

  it('adds one from form fields', async () => {
    const res = await call(url(COMPLAINTS, 'complaints'), urlencoded({ address: 'form@example.com' }));
    expect(res.json).toEqual({ message: 'Address has been added to the complaints table', address: 'form@example.com' });
  });
});

describe('unsubscribes', () => {
  it('unsubscribes from everything when no tag is given', async () => {
    const created = await mg.suppressions.create(UNSUBSCRIBES, 'unsubscribes', { address: 'all@example.com' });
    expect(created.message).toBe('Address has been added to the unsubscribes table');
    expect(await mg.suppressions.get(UNSUBSCRIBES, 'unsubscribes', 'all@example.com')).toMatchObject({ tags: ['*'], created_at: expect.any(Date) });
  });

  it('adds up tags given one at a time, and removes one tag with ?tag=', async () => {
    await mg.suppressions.create(UNSUBSCRIBES, 'unsubscribes', { address: 'tags@example.com', tag: 'news' });
    await mg.suppressions.create(UNSUBSCRIBES, 'unsubscribes', { address: 'Tags@example.com', tag: 'promo' });
    expect(await mg.suppressions.get(UNSUBSCRIBES, 'unsubscribes', 'tags@example.com')).toMatchObject({ tags: ['news', 'promo'] });

    const removed = await call(`${url(UNSUBSCRIBES, 'unsubscribes/tags%40example.com')}?tag=news`, { method: 'DELETE' });
    expect(removed.json).toEqual({ message: 'Unsubscribe event has been removed', address: 'tags@example.com' });
    expect(await mg.suppressions.get(UNSUBSCRIBES, 'unsubscribes', 'tags@example.com')).toMatchObject({ tags: ['promo'] });
    const again = await call(`${url(UNSUBSCRIBES, 'unsubscribes/tags%40example.com')}?tag=news`, { method: 'DELETE' });
    expect(again).toMatchObject({ status: 404, json: { message: 'Unsubscribe event for this tag does not exist' } });

    // The last tag takes the entry with it.
    await call(`${url(UNSUBSCRIBES, 'unsubscribes/tags%40example.com')}?tag=promo`, { method: 'DELETE' });
    expect(await sdkError(mg.suppressions.get(UNSUBSCRIBES, 'unsubscribes', 'tags@example.com'))).toEqual({
      status: 404,
      details: 'Address not found in unsubscribers table',
    });
  });

  it('takes a JSON batch with tags arrays, and deletes a whole entry without ?tag=', async () => {
    const res = await mg.suppressions.create(UNSUBSCRIBES, 'unsubscribes', [
      { address: 'b1@example.com', tags: ['weekly', 'daily'] },
      { address: 'b2@example.com', tags: [] },
    ]);
    expect(res.message).toBe('2 addresses have been added to the unsubscribes table');
    expect(await mg.suppressions.get(UNSUBSCRIBES, 'unsubscribes', 'b1@example.com')).toMatchObject({ tags: ['weekly', 'daily'] });
    expect(await mg.suppressions.get(UNSUBSCRIBES, 'unsubscribes', 'b2@example.com')).toMatchObject({ tags: ['*'] });
    expect(await mg.suppressions.destroy(UNSUBSCRIBES, 'unsubscribes', 'b1@example.com')).toMatchObject({ message: 'Unsubscribe event has been removed' });
    expect((await sdkError(mg.suppressions.get(UNSUBSCRIBES, 'unsubscribes', 'b1@example.com'))).status).toBe(404);
  });
});

describe('allowlist (whitelists)', () => {
  it('adds an address or a domain, the address winning when both come', async () => {
    const address = await mg.suppressions.create(ALLOW, 'whitelists', { address: 'VIP@example.com', reason: 'our CEO' } as never);
    expect(address).toMatchObject({ message: 'Address/Domain has been added to the allowlists table', type: 'address', value: 'vip@example.com' });
    const domain = await mg.suppressions.create(ALLOW, 'whitelists', { domain: 'Trusted.org' } as never);
    expect(domain).toMatchObject({ type: 'domain', value: 'trusted.org' });
    const both = await call(url(ALLOW, 'whitelists'), urlencoded({ address: 'both@example.com', domain: 'ignored.org' }));
    expect(both.json).toEqual({ message: 'Address/Domain has been added to the allowlists table', type: 'address', value: 'both@example.com' });

    expect(await mg.suppressions.get(ALLOW, 'whitelists', 'vip@example.com')).toMatchObject({ value: 'vip@example.com', reason: 'our CEO', createdAt: expect.any(Date) });
    expect((await call(url(ALLOW, 'whitelists/trusted.org'))).json).toEqual({ type: 'domain', value: 'trusted.org', reason: '', createdAt: expect.stringMatching(RFC1123) });
    expect(await addressesOf(ALLOW, 'whitelists')).toEqual(['both@example.com', 'trusted.org', 'vip@example.com']);
  });

  it.each([
    [urlencoded({ reason: 'nothing to allow' }), 'Missing mandatory parameter: address/domain'],
    [urlencoded({ domain: 'not a domain' }), "Invalid parameter 'domain': must be a fully qualified domain name"],
    [postJson([{ address: 'a@example.com' }]), 'The allowlist takes one address or domain per request, as form fields'],
  ])('refuses %j with 400', async (request, message) => {
    const before = await addressesOf(ALLOW, 'whitelists');
    expect(await call(url(ALLOW, 'whitelists'), request)).toMatchObject({ status: 400, json: { message } });
    expect(await addressesOf(ALLOW, 'whitelists')).toEqual(before);
  });

  it('keeps allowlisted addresses and domains off the bounce list', async () => {
    const single = await call(url(ALLOW, 'bounces'), urlencoded({ address: 'vip@example.com' }));
    expect(single).toMatchObject({ status: 400, json: { message: 'vip@example.com is on the allowlist: it cannot be added to the bounces table' } });
    const batch = await mg.suppressions.create(ALLOW, 'bounces', [{ address: 'vip@example.com' }, { address: 'anyone@trusted.org' }, { address: 'plain@example.com' }]);
    expect(batch.message).toBe('1 addresses have been added to the bounces table');
    expect(await addressesOf(ALLOW, 'bounces')).toEqual(['plain@example.com']);
  });

  it('removes one entry, then all', async () => {
    expect(await mg.suppressions.destroy(ALLOW, 'whitelists', 'trusted.org')).toMatchObject({ message: 'Allowlist address/domain has been removed', value: 'trusted.org' });
    expect(await sdkError(mg.suppressions.get(ALLOW, 'whitelists', 'trusted.org'))).toEqual({ status: 404, details: 'Address/Domain not found in allowlist table' });
    expect(await mg.suppressions.destroyAll(ALLOW, 'whitelists')).toEqual({ message: 'Allowlist addresses/domains for this domain have been removed', status: 200 });
    expect(await addressesOf(ALLOW, 'whitelists')).toEqual([]);
  });
});

describe('CSV import', () => {
  const upload = (list: 'bounces' | 'complaints' | 'unsubscribes' | 'whitelists', csv: string) =>
    mg.suppressions.upload(IMPORT, list, { data: Buffer.from(csv), filename: `${list}.csv` } as never);

  it('imports bounces through the SDK: quoted fields, CRLF, a BOM, blank lines', async () => {
    const csv = '\ufeffaddress,code,error,created_at\r\none@import.test,551,"Mailbox full, try later","Mon, 03 Oct 2011 08:02:00 GMT"\r\n\r\nTWO@import.test,,,\r\n';
    expect(await upload('bounces', csv)).toEqual({ message: 'file uploaded successfully' });
    expect(await walk(IMPORT, 'bounces')).toEqual([
      { address: 'one@import.test', code: '551', error: 'Mailbox full, try later', created_at: 'Mon, 03 Oct 2011 08:02:00 GMT' },
      { address: 'two@import.test', code: '550', error: '', created_at: expect.stringMatching(RFC1123) },
    ]);
  });

  it('imports unsubscribes with a tags column, complaints, and allowlist addresses and domains', async () => {
    await upload('unsubscribes', 'address,tags\nu1@import.test,"news,promo"\nu2@import.test,\n');
    expect((await walk(IMPORT, 'unsubscribes')).map((u) => [u.address, u.tags])).toEqual([
      ['u1@import.test', ['news', 'promo']],
      ['u2@import.test', ['*']],
    ]);
    await upload('complaints', 'address,created_at\nc1@import.test,\n');
    expect(await addressesOf(IMPORT, 'complaints')).toEqual(['c1@import.test']);
    await upload('whitelists', 'address,domain\nfriend@import.test,\n,friends.test\n');
    expect((await walk(IMPORT, 'whitelists')).map((w) => [w.type, w.value])).toEqual([
      ['address', 'friend@import.test'],
      ['domain', 'friends.test'],
    ]);
  });

  it('refuses a file with a bad line, naming it, and writes none of its rows', async () => {
    const before = await addressesOf(IMPORT, 'complaints');
    const error = await sdkError(upload('complaints', 'address\nfirst@import.test\nsecond@\nthird@import.test\n'));
    expect(error).toEqual({ status: 400, details: "Invalid parameter 'address': must be a valid email address (line 3)" });
    expect(await addressesOf(IMPORT, 'complaints')).toEqual(before);
  });

  it.each([
    ['no address column', multipart([{ name: 'file', filename: 'x.csv', value: 'email,code\na@b.com,550\n' }]), 'while reading csv header: expected a column named address'],
    ['an unterminated quote', multipart([{ name: 'file', filename: 'x.csv', value: 'address,error\na@b.com,"oops\n' }]), 'Malformed CSV: unterminated quoted field on line 2'],
    ['no file part', multipart([{ name: 'other', value: 'x' }]), "Missing parameter 'file'"],
  ])('refuses %s with 400', async (_, request, message) => {
    expect(await call(url(IMPORT, 'bounces/import'), request)).toMatchObject({ status: 400, json: { message } });
  });

  it('imports thousands of rows, a later row for an address winning', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => `bulk${String(i).padStart(4, '0')}@import.test,550,first`);
    rows.push('bulk0000@import.test,554,last');
    await upload('bounces', ['address,code,error', ...rows].join('\n'));
    const bulk = (await walk(IMPORT, 'bounces')).filter((b) => String(b.address).startsWith('bulk'));
    expect(bulk).toHaveLength(1500);
    expect(bulk[0]).toMatchObject({ address: 'bulk0000@import.test', code: '554', error: 'last' });
  });
});

describe('clearing a list', () => {
  it('takes a batch of exactly 1000, then removes them all', async () => {
    const batch = Array.from({ length: 1000 }, (_, i) => ({ address: `c${i}@clear.test` }));
    expect((await mg.suppressions.create(CLEAR, 'bounces', batch)).message).toBe('1000 addresses have been added to the bounces table');
    await mg.suppressions.create(CLEAR, 'complaints', { address: 'stays@clear.test' });
    expect(await mg.suppressions.destroyAll(CLEAR, 'bounces')).toEqual({ message: 'Bounced addresses for this domain have been removed', status: 200 });
    expect(await addressesOf(CLEAR, 'bounces')).toEqual([]);
    // Only that list of that domain.
    expect(await addressesOf(CLEAR, 'complaints')).toEqual(['stays@clear.test']);
  });

  it('answers each list with its own message', async () => {
    expect((await mg.suppressions.destroyAll(CLEAR, 'complaints')).message).toBe('Complaint addresses for this domain have been removed');
    expect((await mg.suppressions.destroyAll(CLEAR, 'unsubscribes')).message).toBe('Unsubscribe addresses for this domain have been removed');
  });
});

describe('for the sending pipeline', () => {
  const run = <T>(fn: () => Promise<T>) => platform.us.run(fn);

  it('suppresses bounced and complained addresses, case-insensitively, on their domain only', async () => {
    expect(await run(() => suppressionFor(accountId, SENDING, 'fresh@example.com', []))).toBeUndefined();
    expect(await run(() => addBounce(accountId, SENDING, { address: 'Bounced@Example.com', code: 550, error: 'no such user' }))).toBe(true);
    expect(await run(() => suppressionFor(accountId, SENDING, 'bounced@example.COM', ['any']))).toBe('suppress-bounce');
    expect(await run(() => suppressionFor(accountId, OTHER, 'bounced@example.com', []))).toBeUndefined();
    await run(() => addComplaint(accountId, SENDING, { address: 'complained@example.com' }));
    expect(await run(() => suppressionFor(accountId, SENDING, 'complained@example.com', []))).toBe('suppress-complaint');
    // What the SDK sees of them.
    expect(await mg.suppressions.get(SENDING, 'bounces', 'bounced@example.com')).toMatchObject({ code: 550, error: 'no such user' });
  });

  it('suppresses tagged unsubscribes only for messages carrying one of their tags', async () => {
    await run(() => addUnsubscribe(accountId, SENDING, 'reader@example.com', ['news']));
    expect(await run(() => suppressionFor(accountId, SENDING, 'reader@example.com', ['news', 'x']))).toBe('suppress-unsubscribe');
    expect(await run(() => suppressionFor(accountId, SENDING, 'reader@example.com', ['receipts']))).toBeUndefined();
    expect(await run(() => suppressionFor(accountId, SENDING, 'reader@example.com', []))).toBeUndefined();
    await mg.suppressions.create(SENDING, 'unsubscribes', { address: 'everything@example.com', tag: '*' });
    expect(await run(() => suppressionFor(accountId, SENDING, 'everything@example.com', []))).toBe('suppress-unsubscribe');
  });

  it('sees entries added through the API, and stops seeing deleted ones', async () => {
    await mg.suppressions.create(SENDING, 'bounces', { address: 'api@example.com' });
    expect(await run(() => suppressionFor(accountId, SENDING, 'api@example.com', []))).toBe('suppress-bounce');
    await mg.suppressions.destroy(SENDING, 'bounces', 'api@example.com');
    expect(await run(() => suppressionFor(accountId, SENDING, 'api@example.com', []))).toBeUndefined();
  });

  it('never adds an allowlisted address, or one whose domain is allowlisted, to the bounce list', async () => {
    await mg.suppressions.create(SENDING, 'whitelists', { address: 'keep@example.com' } as never);
    await mg.suppressions.create(SENDING, 'whitelists', { domain: 'partner.test' } as never);
    expect(await run(() => isAllowlisted(accountId, SENDING, 'KEEP@example.com'))).toBe(true);
    expect(await run(() => isAllowlisted(accountId, SENDING, 'someone@partner.test'))).toBe(true);
    expect(await run(() => isAllowlisted(accountId, SENDING, 'someone@sub.partner.test'))).toBe(false);
    expect(await run(() => isAllowlisted(accountId, OTHER, 'keep@example.com'))).toBe(false);
    expect(await run(() => addBounce(accountId, SENDING, { address: 'keep@example.com' }))).toBe(false);
    expect(await run(() => addBounce(accountId, SENDING, { address: 'x@partner.test' }))).toBe(false);
    expect(await run(() => suppressionFor(accountId, SENDING, 'keep@example.com', []))).toBeUndefined();
    expect((await sdkError(mg.suppressions.get(SENDING, 'bounces', 'x@partner.test'))).status).toBe(404);
  });
});

describe('storage', () => {
  it('keys each entry by account, domain and list, and indexes only blocking entries by address', async () => {
    await mg.suppressions.create(OTHER, 'bounces', { address: 'stored@example.com' });
    await mg.suppressions.create(OTHER, 'whitelists', { domain: 'stored.test' } as never);
    const items = await scanTable(platform.us);
    expect(items.find((item) => item.sk === 'ADDR#stored@example.com')).toMatchObject({
      pk: `ACCT#${accountId}#SUPP#${OTHER}#bounces`,
      gsi1pk: `ACCT#${accountId}#SUPP#${OTHER}#ADDR#stored@example.com`,
      gsi1sk: 'LIST#bounces',
    });
    const allowed = items.find((item) => item.sk === 'ADDR#stored.test')!;
    expect(allowed.pk).toBe(`ACCT#${accountId}#SUPP#${OTHER}#whitelists`);
    expect(allowed).not.toHaveProperty('gsi1pk');
  });

  it('keeps each region’s lists to itself', async () => {
    const eu = sdk(platform.eu.url);
    await eu.domains.create({ name: OTHER, dkim_key_size: '1024' } as never);
    expect((await eu.suppressions.list(OTHER, 'bounces')).items).toEqual([]);
  });
});
