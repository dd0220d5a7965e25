import type { RecordedEvent } from '../../functions/events/event-store';
import { registerTags } from '../../functions/tags/tag-registry';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventsOf, eventually, primaryAccountId, sandboxOf, sdk, sdkError, startTestPlatform } from '../support/platform';

// The tag registry, fed by the events of real sends, and its two views: account-wide
// /v1/analytics/tags and the legacy per-domain /v3/{domain}/tags, with their limits.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
let accountId: string;
const ACCOUNT_LIMIT = 6;
const DOMAIN_LIMIT = 5;

beforeAll(async () => {
  // mailgun.js warns on every legacy domainTags call that it is deprecated; that is the point here.
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  platform = await startTestPlatform({ env: { TAG_LIMIT_ACCOUNT: String(ACCOUNT_LIMIT), TAG_LIMIT_DOMAIN: String(DOMAIN_LIMIT) } });
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
  accountId = await primaryAccountId(platform.us);
});
afterAll(async () => {
  await platform.close();
});

/** The events a message recorded, as the event stream hands them over (accepted and delivered in test mode). */
async function recordedEvents(messageId: string): Promise<RecordedEvent[]> {
  const items = await eventually(async () => {
    const found = await eventsOf(platform.us.url, sandbox, messageId, { ascending: true });
    return found.some((e) => e.event === 'delivered') && found;
  });
  return items.map((data) => ({ accountId, domain: sandbox, data }));
}

/**
 * Sends a test-mode message with these tags and waits until the event stream has registered its
 * events: `witness` (a tag the account registry will take) has been seen at the last event's time.
 */
async function sendTagged(tags: string[], witness = tags[0]!, to = 'reader@tags.example'): Promise<RecordedEvent[]> {
  const sent = await mg.messages.create(sandbox, { from: `t@${sandbox}`, to, subject: 'Tagged', text: 'hello', 'o:tag': tags, 'o:testmode': 'yes' } as never);
  const events = await recordedEvents(sent.id!);
  const lastAt = Math.max(...events.map((event) => Math.round(event.data.timestamp * 1000)));
  await eventually(async () => {
    const listed = await mg.tags.list({ tag: witness, pagination: { limit: 1000 } });
    const item = listed.items.find((tag) => tag.tag.toLowerCase() === witness.toLowerCase());
    return item !== undefined && item.last_seen.getTime() >= lastAt;
  });
  return events;
}

const accountTags = async (query: Record<string, unknown> = {}) => mg.tags.list({ pagination: { sort: 'tag:asc', limit: 100 }, ...query } as never);
type DomainTagsPage = Awaited<ReturnType<typeof mg.domains.domainTags.list>>;
/** The legacy list with a page: mailgun.js takes the query at run time; its interface omits it. */
const domainTagPage = (query: { limit: number; page?: string }) =>
  (mg.domains.domainTags as unknown as { list(domain: string, query: object): Promise<DomainTagsPage> }).list(sandbox, query);
const names = (items: Array<{ tag: string }>) => items.map((item) => item.tag);
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('registry', () => {
  let firstEvents: RecordedEvent[];

  it('registers each tag of a send for the account and the domain, case-insensitively', async () => {
    firstEvents = await sendTagged(['Newsletter', 'promo']);
    await sendTagged(['PROMO']);
    const listed = await accountTags({ pagination: { sort: 'tag:asc', include_total: true } });
    expect(names(listed.items)).toEqual(['Newsletter', 'promo']);
    expect(listed.pagination).toMatchObject({ sort: 'tag:asc', skip: 0, total: 2 });
    const promo = listed.items.find((item) => item.tag === 'promo')!;
    expect(promo).toMatchObject({ account_id: accountId, parent_account_id: accountId, account_name: 'Primary account', description: '' });
    expect(promo.first_seen).toBeInstanceOf(Date);
    expect(promo.last_seen.getTime()).toBeGreaterThan(promo.first_seen.getTime());
    const domainTag = await mg.domains.domainTags.get(sandbox, 'promo');
    expect(domainTag).toMatchObject({ tag: 'promo', description: '' });
    expect(domainTag['first-seen']).toBeInstanceOf(Date);
    // RFC 3339 on the wire: mailgun-go decodes these as time.Time (contract §17).
    const raw = await call(`${platform.us.url}/v3/${sandbox}/tags/Promo`);
    expect(raw.json['first-seen']).toMatch(RFC3339);
    expect(raw.json['last-seen']).toMatch(RFC3339);
    expect(await mg.tags.limits()).toEqual({ limit: ACCOUNT_LIMIT, count: 2, limit_reached: false });
  });

  it('changes nothing when a batch is delivered again', async () => {
    const before = await accountTags();
    await platform.us.run(() => registerTags(firstEvents));
    await platform.us.run(() => registerTags([...firstEvents].reverse()));
    expect(await accountTags()).toEqual(before);
    expect((await mg.tags.limits()).count).toBe(2);
    expect(await call(`${platform.us.url}/v3/domains/${sandbox}/limits/tag`)).toMatchObject({ status: 200, json: { limit: DOMAIN_LIMIT, count: 2 } });
  });
});

describe('metrics', () => {
  it("give each tag's counts since it was first seen, from the same counters as /v1/analytics/metrics", async () => {
    // 'promo' was sent twice above, once as 'PROMO'.
    const measured = async () => (await mg.tags.list({ tag: 'promo', include_metrics: true, pagination: { limit: 20 } } as never)).items.find((t) => t.tag.toLowerCase() === 'promo') as unknown as { metrics: Record<string, unknown> };
    // Counted by the analytics consumer of the same stream, which may finish a moment later.
    const item = await eventually(async () => {
      const found = await measured();
      return found.metrics['delivered_count'] === 2 && found;
    });
    expect(item.metrics).toMatchObject({ accepted_count: 2, delivered_count: 2, failed_count: 0, delivered_rate: '100.00' });
    // Without include_metrics, none; with it, at most 20 a page (Mailgun's rule).
    expect((await accountTags({ tag: 'promo' })).items[0]).not.toHaveProperty('metrics');
    const tooMany = await call(`${platform.us.url}/v1/analytics/tags`, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ include_metrics: true, pagination: { limit: 21 } }) });
    expect(tooMany).toMatchObject({ status: 400, json: { message: expect.stringContaining('at most 20 with include_metrics') } });
  });
});

describe('descriptions', () => {
  it('are set at either level and kept when the tag is seen again', async () => {
    expect(await mg.tags.update('promo', 'Promotions')).toEqual({ message: 'Tag updated' });
    expect(await mg.domains.domainTags.update(sandbox, 'newsletter', 'Weekly news')).toMatchObject({ message: 'Tag updated' });
    const queryStyle = await call(`${platform.us.url}/v3/${sandbox}/tag?tag=promo&description=${encodeURIComponent('Deals, domain view')}`, { method: 'PUT' });
    expect(queryStyle).toMatchObject({ status: 200, json: { message: 'Tag updated' } });
    const seenBefore = (await mg.domains.domainTags.get(sandbox, 'promo'))['last-seen'];
    await sendTagged(['promo']);
    expect((await accountTags()).items.find((item) => item.tag === 'promo')!.description).toBe('Promotions');
    const domainPromo = await call(`${platform.us.url}/v3/${sandbox}/tag?tag=promo`);
    expect(domainPromo.json).toMatchObject({ tag: 'promo', description: 'Deals, domain view' });
    expect(new Date(domainPromo.json['last-seen'] as string).getTime()).toBeGreaterThan(seenBefore.getTime());
    expect((await mg.domains.domainTags.get(sandbox, 'newsletter')).description).toBe('Weekly news');
  });

  it('can be cleared with an empty description', async () => {
    await mg.tags.update('promo', 'temporary');
    expect(await call(`${platform.us.url}/v1/analytics/tags`, { method: 'PUT', contentType: 'application/json', body: JSON.stringify({ tag: 'promo', description: '' }) })).toMatchObject({ status: 200 });
    expect((await accountTags()).items.find((item) => item.tag === 'promo')!.description).toBe('');
    await mg.tags.update('promo', 'Promotions');
  });
});

describe('limits and paging', () => {
  it('stops registering new tags at each limit, independently', async () => {
    await sendTagged(['a-1', 'a-2', 'a-3']);
    // The domain is full at 5; the account has one place left.
    await sendTagged(['over-1', 'promo']);
    // Refused at both levels; promo, seen in the same events, shows when they were processed.
    await sendTagged(['over-2', 'promo'], 'promo');
    expect(await mg.tags.limits()).toEqual({ limit: ACCOUNT_LIMIT, count: ACCOUNT_LIMIT, limit_reached: true });
    expect((await call(`${platform.us.url}/v3/domains/${sandbox}/limits/tag`)).json).toEqual({ id: expect.any(String), limit: DOMAIN_LIMIT, count: DOMAIN_LIMIT });
    expect(names((await accountTags()).items)).toEqual(['a-1', 'a-2', 'a-3', 'Newsletter', 'over-1', 'promo']);
    expect(await sdkError(mg.domains.domainTags.get(sandbox, 'over-1'))).toEqual({ status: 404, details: 'Tag not found' });
  });

  it('pages the legacy list by tag pivot, in both directions, with a prefix', async () => {
    const first = await domainTagPage({ limit: 2 });
    expect(names(first.items)).toEqual(['a-1', 'a-2']);
    const second = await domainTagPage({ limit: 2, page: first.pages.next.page });
    expect(names(second.items)).toEqual(['a-3', 'Newsletter']);
    expect(second.pages.next.iteratorPosition).toBe('newsletter');
    const third = await domainTagPage({ limit: 2, page: second.pages.next.page });
    expect(names(third.items)).toEqual(['promo']);
    expect((await domainTagPage({ limit: 2, page: third.pages.next.page })).items).toEqual([]);
    const back = await domainTagPage({ limit: 2, page: third.pages.previous.page });
    expect(names(back.items)).toEqual(['a-3', 'Newsletter']);
    const last = await domainTagPage({ limit: 2, page: first.pages.last.page });
    expect(names(last.items)).toEqual(['Newsletter', 'promo']);
    const prefixed = await call(`${platform.us.url}/v3/${sandbox}/tags?prefix=A-&limit=2`);
    expect(names(prefixed.json.items as Array<{ tag: string }>)).toEqual(['a-1', 'a-2']);
    const nextPrefixed = await call((prefixed.json.paging as Record<string, string>).next!);
    expect(names(nextPrefixed.json.items as Array<{ tag: string }>)).toEqual(['a-3']);
  });

  it('pages the account list by skip and limit, by name or by last sighting, with a prefix', async () => {
    const page = await mg.tags.list({ pagination: { sort: 'tag:desc', skip: 1, limit: 2, include_total: true } });
    expect(names(page.items)).toEqual(['over-1', 'Newsletter']);
    expect(page.pagination).toMatchObject({ skip: 1, limit: 2, total: ACCOUNT_LIMIT });
    const recent = await mg.tags.list({ pagination: { sort: 'lastseen:desc', limit: 2 } });
    expect(names(recent.items)).toEqual(['promo', 'over-1']);
    const oldest = await mg.tags.list({ pagination: { sort: 'lastseen:asc', limit: 1 } });
    expect(names(oldest.items)).toEqual(['Newsletter']);
    const prefixed = await mg.tags.list({ tag: 'a-', pagination: { sort: 'lastseen:desc', include_total: true } });
    expect(names(prefixed.items).sort()).toEqual(['a-1', 'a-2', 'a-3']);
    expect(prefixed.pagination.total).toBe(3);
  });
});

describe('deleting', () => {
  it('removes a tag at its own level, gives its place back, and a later sighting registers it again', async () => {
    expect(await mg.tags.destroy('over-1')).toEqual({ message: 'Tag deleted' });
    expect((await mg.tags.limits()).count).toBe(ACCOUNT_LIMIT - 1);
    expect(await mg.domains.domainTags.destroy(sandbox, 'a-1')).toMatchObject({ message: 'Tag deleted', status: 200 });
    expect(await call(`${platform.us.url}/v3/${sandbox}/tag?tag=a-2`, { method: 'DELETE' })).toMatchObject({ status: 200, json: { message: 'Tag deleted' } });
    expect((await call(`${platform.us.url}/v3/domains/${sandbox}/limits/tag`)).json).toMatchObject({ count: DOMAIN_LIMIT - 2 });
    // The account keeps a-1: the two registries are separate, as Mailgun's are.
    expect(names((await accountTags()).items)).toContain('a-1');
    expect(await sdkError(mg.domains.domainTags.get(sandbox, 'a-1'))).toEqual({ status: 404, details: 'Tag not found' });
    expect(await sdkError(mg.tags.destroy('over-1'))).toEqual({ status: 404, details: 'Tag not found' });

    await sendTagged(['over-2']);
    expect(names((await accountTags()).items)).toContain('over-2');
    expect((await mg.domains.domainTags.get(sandbox, 'over-2')).tag).toBe('over-2');
    expect((await mg.tags.limits()).limit_reached).toBe(true);
  });
});

describe('bad input', () => {
  const snapshot = async () => ({ account: await accountTags(), domain: (await call(`${platform.us.url}/v3/${sandbox}/tags?limit=100`)).json.items });

  it('gets a 4xx with a message and changes nothing', async () => {
    const before = await snapshot();
    const json = (method: string, body: unknown, path = '/v1/analytics/tags') =>
      call(`${platform.us.url}${path}`, { method, contentType: 'application/json', body: JSON.stringify(body) });
    const cases: Array<[Promise<{ status: number; json: Record<string, unknown> }>, number, string]> = [
      [json('PUT', { description: 'x' }), 400, "Missing parameter 'tag'"],
      [json('PUT', { tag: 'promo' }), 400, "Missing parameter 'description'"],
      [json('PUT', { tag: 'promo', description: 'x'.repeat(1025) }), 400, "Invalid parameter 'description': must be at most 1024 characters"],
      [json('PUT', { tag: 'never-seen', description: 'x' }), 404, 'Tag not found'],
      [json('DELETE', {}), 400, "Missing parameter 'tag'"],
      [json('POST', { pagination: { sort: 'firstseen:asc' } }), 400, "Invalid parameter 'pagination.sort': must be one of tag:asc, tag:desc, lastseen:asc, lastseen:desc"],
      [json('POST', { pagination: { limit: 0 } }), 400, "Invalid parameter 'pagination.limit': must be between 1 and 1000"],
      [json('POST', { pagination: { skip: -1 } }), 400, "Invalid parameter 'pagination.skip': must be between 0 and 10000"],
      [json('POST', { pagination: { skip: 10001 } }), 400, "Invalid parameter 'pagination.skip': must be between 0 and 10000"],
      [json('POST', { tag: 'x'.repeat(129) }), 400, "Invalid parameter 'tag': must be at most 128 characters"],
      [call(`${platform.us.url}/v3/${sandbox}/tags?limit=5000`), 400, "Invalid parameter 'limit': can't be larger than 1000"],
      [call(`${platform.us.url}/v3/${sandbox}/tags?page=sideways`), 400, "Invalid parameter 'page': must be one of first, last, next, prev"],
      [call(`${platform.us.url}/v3/${sandbox}/tag`), 400, "Missing parameter 'tag'"],
      [call(`${platform.us.url}/v3/${sandbox}/tag?tag=promo`, { method: 'PUT' }), 400, "Missing parameter 'description'"],
      [call(`${platform.us.url}/v3/absent.example.com/tags`), 404, 'Domain not found'],
      [call(`${platform.us.url}/v3/domains/absent.example.com/limits/tag`), 404, 'Domain not found'],
      [call(`${platform.us.url}/v3/${sandbox}/tags/never-seen`, { method: 'DELETE' }), 404, 'Tag not found'],
    ];
    for (const [request, status, message] of cases) expect(await request).toMatchObject({ status, json: { message } });
    expect(await snapshot()).toEqual(before);
  });
});
