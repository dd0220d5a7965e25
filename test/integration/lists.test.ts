import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventually, primaryAccountId, sandboxOf, sdk, sdkError, sesSendsOf, startTestPlatform } from '../support/platform';
import { decoded } from '../support/mail';
import { scanTable } from '../support/table';
import { handler as listWorker } from '../../functions/lists/expansion-worker';
import { type ListPost } from '../../functions/lists/post';
import { postToList } from '../../functions/lists/inbound-post';
import { putItem, updateItem } from '../../functions/data/store';
import { listKeys } from '../../functions/lists/list-store';
import type { SQSEvent } from 'aws-lambda';

// Mailing lists and members through mailgun.js (contract §10), and posts to a list expanded to
// one message per member.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;

/** Members per expansion page (LIST_EXPANSION_PAGE): a few, so that posts cross pages at small sizes. */
const EXPANSION_PAGE = 20;
/** Events per page when reading a post's accepted events back: its copies span several. */
const EVENTS_PAGE = 20;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { LIST_EXPANSION_PAGE: String(EXPANSION_PAGE) } });
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
});
afterAll(() => platform.close());

const url = (path: string) => `${platform.us.url}${path}`;
const form = (method: string, fields: Record<string, string>) => ({ method, contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() });
const RFC1123 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/;

/** Every member, following `paging.next` verbatim until an empty page, as mailgun-go does. */
async function walk(start: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  for (let next = start; ; ) {
    const page = await call(next);
    expect(page.status).toBe(200);
    const got = page.json.items as Array<Record<string, unknown>>;
    if (!got.length) return items;
    items.push(...got);
    next = (page.json.paging as { next: string }).next;
  }
}

describe('lists', () => {
  it('creates, reads, renames, pages and deletes lists', async () => {
    const created = await mg.lists.create({ address: 'Devs@Lists.Test', name: 'Developers', description: 'the devs', access_level: 'members', reply_preference: 'sender' } as never);
    expect(created).toMatchObject({ address: 'devs@lists.test', name: 'Developers', description: 'the devs', access_level: 'members', reply_preference: 'sender', members_count: 0 });
    const raw = await call(url('/v3/lists/devs%40lists.test'));
    expect(raw.status).toBe(200);
    expect((raw.json.list as { created_at: string }).created_at).toMatch(RFC1123);

    const renamed = await mg.lists.update('devs@lists.test', { address: 'engineers@lists.test', name: 'Engineers' } as never);
    expect(renamed).toMatchObject({ address: 'engineers@lists.test', name: 'Engineers', access_level: 'members' });
    expect((await sdkError(mg.lists.get('devs@lists.test'))).status).toBe(404);
    expect(await mg.lists.get('engineers@lists.test')).toMatchObject({ name: 'Engineers' });

    for (const name of ['a', 'b', 'c']) await mg.lists.create({ address: `${name}@paging.test` } as never);
    const first = await mg.lists.list({ limit: 2 } as never);
    expect(first.items.map((l) => l.address)).toEqual(['a@paging.test', 'b@paging.test']);
    const all = await walk(url('/v3/lists/pages?limit=2'));
    expect(all.map((l) => l['address'])).toEqual(['a@paging.test', 'b@paging.test', 'c@paging.test', 'engineers@lists.test']);
    const skipped = await call(url('/v3/lists?skip=1&limit=2'));
    expect(skipped.json).toMatchObject({ total_count: 4, items: [{ address: 'b@paging.test' }, { address: 'c@paging.test' }] });

    expect(await mg.lists.destroy('c@paging.test')).toMatchObject({ address: 'c@paging.test', message: 'Mailing list has been removed' });
    expect((await call(url('/v3/lists/c%40paging.test'))).json).toEqual({ message: 'Mailing list c@paging.test not found' });
  });

  it("keeps members through a rename, and deletes a deleted list's members", async () => {
    await mg.lists.create({ address: 'gone@lists.test' } as never);
    await mg.lists.members.createMembers('gone@lists.test', { members: JSON.stringify(['p1@example.com', 'p2@example.com', 'p3@example.com']), upsert: 'yes' } as never);
    await mg.lists.update('gone@lists.test', { address: 'going@lists.test' } as never);
    expect((await mg.lists.members.listMembers('going@lists.test')).items.map((m) => m.address)).toEqual(['p1@example.com', 'p2@example.com', 'p3@example.com']);
    const listId = ((await scanTable(platform.us)).find((item) => item['address'] === 'going@lists.test' && String(item['sk']).startsWith('LIST#')) as { listId: string }).listId;
    const membersLeft = async () => (await scanTable(platform.us)).filter((item) => String(item['pk']).endsWith(`#LIST#${listId}`)).length;
    expect(await membersLeft()).toBe(3);
    await mg.lists.destroy('going@lists.test');
    await eventually(async () => (await membersLeft()) === 0);
    await mg.lists.create({ address: 'going@lists.test' } as never);
    expect(await mg.lists.get('going@lists.test')).toMatchObject({ members_count: 0 });
    expect((await mg.lists.members.listMembers('going@lists.test')).items).toEqual([]);
    await mg.lists.destroy('going@lists.test');
  });

  it("refuses bad input with Mailgun's bodies and changes nothing", async () => {
    const level = await call(url('/v3/lists'), form('POST', { address: 'bad@lists.test', access_level: 'nobody' }));
    expect(level).toMatchObject({ status: 400, json: { message: "Invalid access level 'nobody'. It can be any of: 'readonly', 'members', 'everyone'." } });
    const preference = await call(url('/v3/lists'), form('POST', { address: 'bad@lists.test', reply_preference: 'nobody' }));
    expect(preference).toMatchObject({ status: 400, json: { message: "Invalid reply preference 'nobody'. It can be any of: 'sender', 'list'" } });
    expect((await call(url('/v3/lists'), form('POST', { address: 'not an address' }))).status).toBe(400);
    expect((await call(url('/v3/lists'), form('POST', {}))).json).toEqual({ message: "Missing parameter 'address'" });
    expect((await call(url('/v3/lists/bad%40lists.test'))).status).toBe(404);
    await mg.lists.create({ address: 'dup@lists.test' } as never);
    expect((await call(url('/v3/lists'), form('POST', { address: 'dup@lists.test' }))).status).toBe(400);
  });
});

describe('members', () => {
  const LIST = 'members@lists.test';
  beforeAll(() => mg.lists.create({ address: LIST } as never));

  it('creates, reads, upserts, updates, pages and deletes members', async () => {
    const alice = await mg.lists.members.createMember(LIST, { address: 'Alice@Example.com', name: 'Alice', vars: JSON.stringify({ age: 27 }), subscribed: 'yes' } as never);
    expect(alice).toEqual({ address: 'alice@example.com', name: 'Alice', subscribed: true, vars: { age: 27 } });
    const duplicate = await call(url(`/v3/lists/${LIST}/members`), form('POST', { address: 'alice@example.com' }));
    expect(duplicate).toMatchObject({ status: 400, json: { message: "Address already exists 'alice@example.com'" } });
    const upserted = await mg.lists.members.createMember(LIST, { address: 'alice@example.com', name: 'Alicia', upsert: 'yes' } as never);
    expect(upserted).toMatchObject({ name: 'Alicia', vars: { age: 27 } });

    const got = await call(url(`/v3/lists/${LIST}/members/alice%40example.com`));
    expect(got.json).toEqual({ member: { address: 'alice@example.com', name: 'Alicia', subscribed: true, vars: { age: 27 } } });
    const updated = await mg.lists.members.updateMember(LIST, 'alice@example.com', { subscribed: 'no', vars: JSON.stringify({ age: 28 }) } as never);
    expect(updated).toMatchObject({ subscribed: false, vars: { age: 28 }, name: 'Alicia' });

    for (const name of ['bob', 'carol', 'dan']) await mg.lists.members.createMember(LIST, { address: `${name}@example.com` } as never);
    expect((await mg.lists.get(LIST)).members_count).toBe(4);
    const page = await mg.lists.members.listMembers(LIST, { limit: 2 } as never);
    expect(page.items.map((m) => m.address)).toEqual(['alice@example.com', 'bob@example.com']);
    expect((await walk(url(`/v3/lists/${LIST}/members/pages?limit=3&subscribed=yes`))).map((m) => m['address'])).toEqual(['bob@example.com', 'carol@example.com', 'dan@example.com']);
    expect((await call(url(`/v3/lists/${LIST}/members?skip=1&limit=2`))).json).toMatchObject({ total_count: 4, items: [{ address: 'bob@example.com' }, { address: 'carol@example.com' }] });
    expect((await call(url(`/v3/lists/${LIST}/members?subscribed=no`))).json).toMatchObject({ total_count: 1, items: [{ address: 'alice@example.com' }] });

    expect(await mg.lists.members.destroyMember(LIST, 'dan@example.com')).toMatchObject({ member: { address: 'dan@example.com' }, message: 'Mailing list member has been deleted' });
    expect((await call(url(`/v3/lists/${LIST}/members/dan%40example.com`), { method: 'DELETE' })).json).toEqual({ message: `Member dan@example.com of mailing list ${LIST} not found` });
    expect((await mg.lists.get(LIST)).members_count).toBe(3);
    const badVars = await call(url(`/v3/lists/${LIST}/members`), form('POST', { address: 'eve@example.com', vars: '{not json' }));
    expect(badVars.status).toBe(400);
    expect((await call(url(`/v3/lists/${LIST}/members/eve%40example.com`))).status).toBe(404);
  });

  it('uploads members as JSON (strings or objects) and CSV, in the background beyond 100', async () => {
    const list = 'bulk@lists.test';
    await mg.lists.create({ address: list } as never);
    const sync = await mg.lists.members.createMembers(list, { members: ['one@example.com', { address: 'two@example.com', name: 'Two', vars: { n: 2 } }], upsert: 'no' } as never);
    expect(sync).toMatchObject({ list: { address: list, members_count: 2 }, message: 'Mailing list has been updated' });

    const many = Array.from({ length: 150 }, (_, i) => ({ address: `m${String(i).padStart(3, '0')}@example.com`, vars: { i } }));
    const asyncReply = await mg.lists.members.createMembers(list, { members: many, upsert: 'yes' } as never);
    expect(asyncReply).toMatchObject({ message: 'Mailing list upload started in background', 'task-id': expect.any(String) });
    await eventually(async () => (await mg.lists.get(list)).members_count === 152);

    const csv = ['address,name,vars', 'csv1@example.com,Csv One,"{""k"":1}"', 'csv2@example.com,,'].join('\n');
    const uploaded = await mg.lists.members.upload(list, { filename: 'members.csv', data: Buffer.from(csv) } as never, true, false);
    expect(uploaded).toMatchObject({ message: 'Mailing list has been updated', list: { members_count: 154 } });
    expect(await mg.lists.members.getMember(list, 'csv1@example.com')).toMatchObject({ name: 'Csv One', vars: { k: 1 } });

    const bigCsv = ['address', ...Array.from({ length: 120 }, (_, i) => `big${i}@example.com`)].join('\n');
    const bigReply = await mg.lists.members.upload(list, { filename: 'members.csv', data: Buffer.from(bigCsv) } as never, true, false);
    expect(bigReply).toMatchObject({ 'task-id': expect.any(String) });
    await eventually(async () => (await mg.lists.get(list)).members_count === 274);

    const tooBig = await mg.lists.members.upload(list, { filename: 'members.csv', data: Buffer.alloc(5 * 1024 * 1024 + 1, 'a') } as never, true, false).catch((e: { status: number; details: string }) => e);
    expect(tooBig).toMatchObject({ status: 400, details: 'CSV file is too big, max allowed size is 5 MB' });
    const badEntry = await call(url(`/v3/lists/${list}/members.json`), form('POST', { members: JSON.stringify(['fine@example.com', 'not an address']) }));
    expect(badEntry.status).toBe(400);
    expect((await call(url(`/v3/lists/${list}/members/fine%40example.com`))).status).toBe(404);
  });
});

describe('posting to a list', () => {
  // Over two expansion pages, the last one partial, and more accepted events than one events page
  // holds: every seam of the expansion, at a size that keeps the test quick. Large lists are the
  // list-expansion benchmark's (`npm run bench`).
  const MEMBERS = 2 * EXPANSION_PAGE + 5;
  const last = MEMBERS - 1;

  it('sends one message per subscribed member of a list of several pages, each with its own vars, and unsubscribes a member from that list only', async () => {
    const list = `everyone@${sandbox}`;
    const other = `other@${sandbox}`;
    await mg.lists.create({ address: list, name: 'Everyone' } as never);
    await mg.lists.create({ address: other } as never);
    const members = Array.from({ length: MEMBERS }, (_, i) => ({ address: `m${String(i).padStart(4, '0')}@example.com`, name: `Member ${i}`, vars: { code: `c-${i}` } }));
    for (let i = 0; i < members.length; i += 100) await mg.lists.members.createMembers(list, { members: members.slice(i, i + 100), upsert: 'yes' } as never);
    await mg.lists.members.createMember(list, { address: 'gone@example.com', subscribed: 'no' } as never);
    await mg.lists.members.createMember(other, { address: 'm0000@example.com' } as never);

    const sent = await mg.messages.create(sandbox, {
      from: `news@${sandbox}`,
      to: list,
      subject: 'Hi %recipient.name%',
      text: 'Your code is %recipient.code%. Leave: %mailing_list_unsubscribe_url%',
    } as never);
    expect(sent).toMatchObject({ status: 200, message: 'Queued. Thank you.' });

    await eventually(async () => sesSendsOf(platform.us, sent.id!).length >= MEMBERS);
    const sends = sesSendsOf(platform.us, sent.id!);
    expect(sends).toHaveLength(MEMBERS);
    const byRecipient = new Map(sends.map((s) => [s.destinations[0]!, decoded(s.raw.toString())]));
    expect(byRecipient.has('gone@example.com')).toBe(false);
    expect(byRecipient.get('m0042@example.com')).toContain('Your code is c-42.');
    expect(byRecipient.get('m0042@example.com')).toContain('Subject: Hi Member 42');
    expect(byRecipient.get(`m${String(last).padStart(4, '0')}@example.com`)).toContain(`Your code is c-${last}.`);
    expect(byRecipient.get('m0042@example.com')).toMatch(/Reply-To: everyone@/);

    const accepted = await eventually(async () => {
      const events = await acceptedOf(sent.id!);
      return events.length >= MEMBERS ? events : undefined;
    });
    expect(new Set(accepted).size).toBe(MEMBERS);

    // m0000's own link unsubscribes them from this list, not from the other list nor the domain.
    const link = new RegExp(`${platform.us.url}/u/[A-Za-z0-9_.-]+`).exec(byRecipient.get('m0000@example.com')!)![0];
    expect((await call(link, { key: null })).status).toBe(200);
    expect(await mg.lists.members.getMember(list, 'm0000@example.com')).toMatchObject({ subscribed: false });
    expect(await mg.lists.members.getMember(other, 'm0000@example.com')).toMatchObject({ subscribed: true });
    expect((await call(url(`/v3/${sandbox}/unsubscribes/m0000%40example.com`))).status).toBe(404);
  });

  it('expands a messages.mime post to a list as a send to its members', async () => {
    const list = `mime-list@${sandbox}`;
    await mg.lists.create({ address: list } as never);
    await mg.lists.members.createMember(list, { address: 'mo@example.com', name: 'Mo', vars: JSON.stringify({ code: 'x-9' }) } as never);
    const mime = [`From: News <news@${sandbox}>`, `To: ${list}`, 'Subject: For %recipient.name%', 'Content-Type: text/plain', '', 'Code %recipient.code%', ''].join('\r\n');
    const sent = await mg.messages.create(sandbox, { to: list, message: Buffer.from(mime), 'o:tag': 'mime-post' } as never);
    const copy = await eventually(async () => sesSendsOf(platform.us, sent.id!)[0]);
    expect(copy.destinations).toEqual(['mo@example.com']);
    expect(decoded(copy.raw.toString())).toContain('Subject: For Mo');
    expect(decoded(copy.raw.toString())).toContain('Code x-9');
    expect(decoded(copy.raw.toString())).toMatch(new RegExp(`^From: "?News"? <news@${sandbox}>$`, 'm'));
  });

  it('refuses a list among other recipients', async () => {
    const list = `mixed@${sandbox}`;
    await mg.lists.create({ address: list } as never);
    const mixed = await sdkError(mg.messages.create(sandbox, { from: `news@${sandbox}`, to: [list, 'someone@example.com'], text: 'x' } as never));
    expect(mixed.status).toBe(400);
  });
});

describe('the inbound seam (postToList)', () => {
  const mime = (from: string, to: string) =>
    Buffer.from([`From: Pat <${from}>`, `To: ${to}`, 'Subject: Hello %recipient.name%', 'Message-ID: <inbound-1@example.org>', 'Content-Type: text/plain; charset=utf-8', '', 'Code %recipient.code%', ''].join('\r\n'));
  const post = (list: string, from: string, via: 'api' | 'inbound' = 'inbound') => platform.us.run(async () => postToList(accountId, list, mime(from, list), from, via));
  let accountId: string;
  beforeAll(async () => {
    accountId = await primaryAccountId(platform.us);
    for (const level of ['readonly', 'members', 'everyone']) {
      await mg.lists.create({ address: `in-${level}@${sandbox}`, access_level: level, reply_preference: 'sender' } as never);
      await mg.lists.members.createMember(`in-${level}@${sandbox}`, { address: 'member@example.com', name: 'Mem', vars: JSON.stringify({ code: 'm-1' }) } as never);
    }
  });

  it('refuses inbound posts to a readonly list, and non-members on a members list', async () => {
    expect(await post(`in-readonly@${sandbox}`, 'member@example.com')).toEqual({ refused: `Mailing list in-readonly@${sandbox} is read-only: only the API may post to it` });
    expect(await post(`in-members@${sandbox}`, 'stranger@example.com')).toEqual({ refused: `Only members may post to mailing list in-members@${sandbox}` });
    expect(await post(`in-nosuch@${sandbox}`, 'member@example.com')).toEqual({ refused: `Mailing list in-nosuch@${sandbox} not found` });
  });

  it('expands an accepted post from MIME: from the list on the author\'s behalf, replies to the author', async () => {
    for (const [list, via] of [[`in-members@${sandbox}`, 'inbound'], [`in-everyone@${sandbox}`, 'inbound'], [`in-readonly@${sandbox}`, 'api']] as const) {
      const outcome = await post(list, via === 'api' ? `news@${sandbox}` : 'member@example.com', via);
      expect(outcome).toMatchObject({ accepted: true, id: expect.stringMatching(/^<.+>$/) });
      const { id } = outcome as { id: string };
      const sent = await eventually(async () => sesSendsOf(platform.us, id)[0]);
      const text = decoded(sent.raw.toString());
      expect(sent.destinations).toEqual(['member@example.com']);
      expect(text).toContain('Subject: Hello Mem');
      expect(text).toContain('Code m-1');
      // Relayed mail comes from the list on the author's behalf; an API post from its author.
      expect(text).toMatch(via === 'api' ? new RegExp(`From: "?Pat"? <news@${sandbox}>`) : new RegExp(`From: "?Pat via ${list.split('@')[0]}@`));
      expect(text).toMatch(/Reply-To: "?Pat"? <(member@example\.com|news@)/);
    }
  });
});

describe('expansion retries', () => {
  it('a page taken over from a dead invocation re-accepts no member', async () => {
    const list = `retry@${sandbox}`;
    await mg.lists.create({ address: list } as never);
    // Two expansion pages: the first one is taken over, the second is the one queued again.
    const count = EXPANSION_PAGE + 10;
    const members = Array.from({ length: count }, (_, i) => ({ address: `r${String(i).padStart(3, '0')}@example.com`, vars: { i } }));
    for (let i = 0; i < members.length; i += 100) await mg.lists.members.createMembers(list, { members: members.slice(i, i + 100), upsert: 'yes' } as never);
    const sent = await mg.messages.create(sandbox, { from: `news@${sandbox}`, to: list, subject: 'once', text: 'n=%recipient.i%', 'o:testmode': 'yes' } as never);
    const postOf = async () => (await scanTable(platform.us)).find((item) => item['sk'] === 'POST' && item['messageId'] === sent.id) as unknown as ListPost;
    await eventually(async () => (await postOf())?.status === 'done');
    expect((await postOf()).accepted).toBe(count);

    // As if the invocation that expanded the first page died after accepting its members: the
    // page's claim is left 'working' past its deadline, the post still expanding.
    const { postId } = await postOf();
    await platform.us.run(async () => {
      await putItem(listKeys.page(postId, ''), { state: 'working', owner: 'dead', until: Date.now() - 60_000 });
      await updateItem(listKeys.post(postId), { status: 'expanding' });
    });
    const redelivered = { Records: [{ messageId: 'again', body: JSON.stringify({ kind: 'expand', postId }) }] } as unknown as SQSEvent;
    expect(await platform.us.run(() => listWorker(redelivered))).toEqual({ batchItemFailures: [] });
    // The second page's job it queued again finds that page done and ends the post.
    await platform.us.run(() => updateItem(listKeys.post(postId), { status: 'done' }));
    expect((await postOf()).accepted).toBe(count);
    const accepted = await acceptedOf(sent.id!);
    expect(accepted).toHaveLength(count);
    expect(new Set(accepted).size).toBe(count);
  });
});

/** The recipients of a message's accepted events, all pages. */
async function acceptedOf(messageId: string): Promise<string[]> {
  const id = encodeURIComponent(messageId.replace(/^<|>$/g, ''));
  const recipients: string[] = [];
  for (let next = url(`/v3/${sandbox}/events?message-id=${id}&event=accepted&limit=${EVENTS_PAGE}`); ; ) {
    const page = await call(next);
    const items = page.json.items as Array<{ recipient: string }>;
    if (!items.length) return recipients;
    recipients.push(...items.map((e) => e.recipient));
    next = (page.json.paging as { next: string }).next;
  }
}
