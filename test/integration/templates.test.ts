import { renderTemplate } from '../../functions/templates/render';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, primaryAccountId, sdk, sdkError, startTestPlatform } from '../support/platform';
import { scanTable } from '../support/table';

// Stored templates and versions through the official SDK (contract §11), and what sends render.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let templates: ReturnType<typeof sdk>['domains']['domainTemplates'];
let accountId: string;
const DOMAIN = 'tpl.example.com';

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  templates = mg.domains.domainTemplates;
  accountId = await primaryAccountId(platform.us);
  for (const name of [DOMAIN, 'paging.example.com', 'wipe.example.com']) await mg.domains.create({ name, dkim_key_size: '1024' } as never);
});
afterAll(() => platform.close());

const url = (path: string) => `${platform.us.url}/v3/${DOMAIN}/templates${path}`;
const RFC1123 = /^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Form fields as mailgun.js sends them: its types ask for objects where the wire wants JSON strings. */
const form = (fields: Record<string, unknown>) => fields as never;

async function createTemplate(name: string, fields: Record<string, unknown> = {}) {
  return templates.create(DOMAIN, form({ name, description: `about ${name}`, ...fields }));
}

async function namesIn(domain: string): Promise<string[]> {
  const names: string[] = [];
  let page = await templates.list(domain, { limit: 100 });
  while (page.items.length) {
    names.push(...page.items.map((t) => t.name));
    page = await templates.list(domain, { limit: 100, page: page.pages.next!.page as `?${string}` });
  }
  return names;
}

async function tagsOf(name: string, limit = 100): Promise<Array<{ tag: string; active: boolean }>> {
  const tags: Array<{ tag: string; active: boolean }> = [];
  let query: Record<string, string> = { limit: String(limit) };
  for (;;) {
    const page = await templates.listVersions(DOMAIN, name, query as never);
    const versions = page.template.versions ?? [];
    if (!versions.length) return tags;
    tags.push(...versions.map((v) => ({ tag: v.tag, active: v.active })));
    // Python's and GO's way: ask again with the query of `paging.next`.
    query = Object.fromEntries(new URL(page.pages.next!.url).searchParams);
  }
}

describe('create and get', () => {
  it('stores a template with its first version, which is active, and lower-cases the name', async () => {
    const created = await createTemplate('Welcome.Email', {
      template: '<p>Hello {{name}}</p>',
      tag: 'V1',
      comment: 'first',
      headers: JSON.stringify({ subject: 'Welcome {{name}}', From: 'Team <team@tpl.example.com>' }),
    });
    expect(created).toMatchObject({ name: 'welcome.email', description: 'about Welcome.Email', createdBy: '' });
    expect(created.id).toMatch(UUID);
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.version).toMatchObject({
      tag: 'v1',
      template: '<p>Hello {{name}}</p>',
      engine: 'handlebars',
      comment: 'first',
      active: true,
      headers: { Subject: 'Welcome {{name}}', From: 'Team <team@tpl.example.com>' },
    });
    expect(created.version!.id).toMatch(UUID);

    const raw = await call(url('/welcome.email?active=yes'));
    expect(raw.status).toBe(200);
    const template = raw.json.template as Record<string, unknown>;
    expect(template).toEqual({
      name: 'welcome.email',
      description: 'about Welcome.Email',
      createdAt: expect.stringMatching(RFC1123),
      createdBy: '',
      id: created.id,
      version: {
        tag: 'v1',
        template: '<p>Hello {{name}}</p>',
        engine: 'handlebars',
        mjml: '',
        createdAt: expect.stringMatching(RFC1123),
        comment: 'first',
        active: true,
        id: created.version!.id,
        headers: { From: 'Team <team@tpl.example.com>', Subject: 'Welcome {{name}}' },
      },
    });
  });

  it('replies with the OAS shape on create', async () => {
    const res = await call(url(''), {
      method: 'POST',
      contentType: 'application/x-www-form-urlencoded',
      body: 'name=go.style&description=from+mailgun-go&template=%7B%7Bx%7D%7D&engine=handlebars&createdBy=ci',
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      message: 'template has been stored',
      template: { name: 'go.style', description: 'from mailgun-go', createdBy: 'ci', version: { tag: 'initial', template: '{{x}}', active: true } },
    });
  });

  it('takes a JSON body, headers as an object', async () => {
    const body = JSON.stringify({ name: 'json.style', template: '{{y}}', tag: 'j1', headers: { 'Reply-To': 'r@tpl.example.com' } });
    const res = await call(url(''), { method: 'POST', contentType: 'application/json', body });
    expect(res.status).toBe(200);
    expect(res.json.template).toMatchObject({ name: 'json.style', version: { tag: 'j1', headers: { 'Reply-To': 'r@tpl.example.com' } } });
  });

  it('stores metadata alone, and then has no version to show', async () => {
    const created = await createTemplate('bare', { comment: 'ignored without content', tag: 'ignored' });
    expect(created.version).toBeUndefined();
    const got = await templates.get(DOMAIN, 'BARE', { active: 'yes' } as never);
    expect(got).toMatchObject({ name: 'bare', description: 'about bare' });
    expect(got.version).toBeUndefined();
    expect((await tagsOf('bare')).length).toBe(0);
  });

  it('leaves the version out unless active=yes is asked for', async () => {
    await createTemplate('quiet', { template: 'x' });
    const raw = await call(url('/quiet'));
    expect(raw.json.template).not.toHaveProperty('version');
    const loud = await templates.get(DOMAIN, 'quiet', { active: 'yes' } as never);
    expect(loud.version).toMatchObject({ tag: 'initial', template: 'x', active: true });
  });

  it('answers 404s with Mailgun messages', async () => {
    expect(await sdkError(templates.get(DOMAIN, 'nothing'))).toEqual({ status: 404, details: 'template not found' });
    expect(await sdkError(templates.get('nowhere.example.com', 'x'))).toEqual({ status: 404, details: 'Domain not found' });
    expect(await sdkError(templates.getVersion(DOMAIN, 'welcome.email', 'v9'))).toEqual({ status: 404, details: 'template version not found' });
  });

  it('refuses a name that is taken, in any case', async () => {
    await createTemplate('taken');
    expect(await sdkError(createTemplate('TAKEN'))).toEqual({ status: 409, details: 'template taken already exists' });
  });

  it.each([
    ['a name with a space', { name: 'has space' }, "Invalid parameter 'name': may contain only letters, digits and . - _ ~"],
    ['no name', { description: 'no name' }, "Missing parameter 'name'"],
    ['an unclosed block', { name: 'bad.syntax', template: '{{#if a}}open' }, "Invalid parameter 'template': Parse error on line 1: unexpected end of template"],
    ['an unknown helper', { name: 'bad.helper', template: '{{format date}}' }, "Invalid parameter 'template': unknown helper format: templates may use if, unless, each, with, lookup and equal"],
    ['a partial', { name: 'bad.partial', template: '{{> footer}}' }, "Invalid parameter 'template': partials are not supported"],
    ['the go engine', { name: 'bad.engine', template: 'x', engine: 'go' }, "Invalid parameter 'engine': only handlebars is supported"],
    ['an unsupported header', { name: 'bad.header', template: 'x', headers: '{"X-Custom":"1"}' }, "Invalid parameter 'headers': only From, Subject and Reply-To are supported, not X-Custom"],
    ['headers that are not JSON', { name: 'bad.json', template: 'x', headers: 'From: a@b.c' }, "Invalid parameter 'headers': must be a JSON object"],
    ['a header value on two lines', { name: 'bad.line', template: 'x', headers: JSON.stringify({ Subject: 'a\r\nBcc: b@c.d' }) }, "Invalid parameter 'headers': the value of Subject must be a single line"],
    ['content over 100 KB', { name: 'big', template: 'x'.repeat(100 * 1024 + 1) }, "Invalid parameter 'template': must be at most 100 KB"],
  ])('refuses %s with a 400 and stores nothing', async (_, fields, message) => {
    const before = await namesIn(DOMAIN);
    expect(await sdkError(templates.create(DOMAIN, form(fields)))).toEqual({ status: 400, details: message });
    expect(await namesIn(DOMAIN)).toEqual(before);
  });
});

describe('update and delete', () => {
  it('changes the description only', async () => {
    await createTemplate('described', { template: 'x' });
    const updated = await templates.update(DOMAIN, 'described', { description: 'new words' });
    expect(updated).toMatchObject({ status: 200, message: 'template has been updated', templateName: 'described' });
    expect((await templates.get(DOMAIN, 'described')).description).toBe('new words');
    const empty = await call(url('/described'), { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: 'description=' });
    expect(empty).toMatchObject({ status: 400, json: { message: 'No fields are provided to update' } });
  });

  it('deletes a template with all its versions', async () => {
    const created = await createTemplate('doomed', { template: 'a' });
    await templates.createVersion(DOMAIN, 'doomed', form({ template: 'b', tag: 'two' }));
    const deleted = await templates.destroy(DOMAIN, 'doomed');
    expect(deleted).toMatchObject({ message: 'template has been deleted', templateName: 'doomed' });
    expect(await sdkError(templates.get(DOMAIN, 'doomed'))).toEqual({ status: 404, details: 'template not found' });
    const left = (await scanTable(platform.us)).filter((item) => item.templateId === created.id || String(item.pk).endsWith(created.id));
    expect(left).toEqual([]);
    expect(await sdkError(templates.destroy(DOMAIN, 'doomed'))).toEqual({ status: 404, details: 'template not found' });
  });

  it('deletes every template of a domain and nothing of another', async () => {
    const wipe = 'wipe.example.com';
    for (const name of ['a', 'b', 'c']) await templates.create(wipe, form({ name, description: '', template: `{{${name}}}` }));
    const result = await templates.destroyAll(wipe);
    expect(result).toEqual({ status: 200, message: 'templates have been deleted' });
    expect(await namesIn(wipe)).toEqual([]);
    const leftovers = (await scanTable(platform.us)).filter((item) => String(item.pk).includes(`#TPL#${wipe}`));
    expect(leftovers).toEqual([]);
    expect((await namesIn(DOMAIN)).length).toBeGreaterThan(0);
  });
});

describe('listing', () => {
  const domain = 'paging.example.com';
  const names = ['t01', 't02', 't03', 't04', 't05', 't06', 't07'];

  beforeAll(async () => {
    // Created out of order: lists are in name order.
    for (const name of [...names].reverse()) await templates.create(domain, form({ name, description: name, template: name }));
  });

  it('pages forward by following next until an empty page', async () => {
    const seen: string[][] = [];
    let page = await templates.list(domain, { limit: 3 });
    while (page.items.length) {
      seen.push(page.items.map((t) => t.name));
      expect(page.pages.next!.iteratorPosition).toBe(page.items.at(-1)!.name);
      page = await templates.list(domain, { limit: 3, page: page.pages.next!.page as `?${string}` });
    }
    expect(seen).toEqual([names.slice(0, 3), names.slice(3, 6), names.slice(6)]);
  });

  it('pages backward from the last page', async () => {
    const last = await templates.list(domain, { limit: 3, page: '?page=last' });
    expect(last.items.map((t) => t.name)).toEqual(names.slice(4));
    const previous = await templates.list(domain, { limit: 3, page: last.pages.previous!.page as `?${string}` });
    expect(previous.items.map((t) => t.name)).toEqual(names.slice(1, 4));
  });

  it('writes absolute paging URLs back to this host, with the pivot p', async () => {
    const raw = await call(`${platform.us.url}/v3/${domain}/templates?limit=2`);
    expect(raw.json.paging).toEqual({
      first: `${platform.us.url}/v3/${domain}/templates?page=first&limit=2`,
      last: `${platform.us.url}/v3/${domain}/templates?page=last&limit=2`,
      next: `${platform.us.url}/v3/${domain}/templates?page=next&p=t02&limit=2`,
      previous: `${platform.us.url}/v3/${domain}/templates?page=prev&p=t01&limit=2`,
    });
  });

  it('includes each active version with active=yes, and keeps asking for them page after page', async () => {
    const raw = await call(`${platform.us.url}/v3/${domain}/templates?limit=2&active=yes`);
    expect((raw.json.items as Array<{ version: { template: string } }>).map((t) => t.version.template)).toEqual(['t01', 't02']);
    expect((raw.json.paging as { next: string }).next).toContain('active=yes');
  });

  it('refuses a limit over 100', async () => {
    const raw = await call(`${platform.us.url}/v3/${domain}/templates?limit=101`);
    expect(raw).toMatchObject({ status: 400, json: { message: "Invalid parameter 'limit': can't be larger than 100" } });
  });
});

describe('versions', () => {
  it('adds versions: the first is active, later ones only with active=yes', async () => {
    await createTemplate('versioned');
    const first = await templates.createVersion(DOMAIN, 'versioned', form({ template: 'one', tag: 'v1', comment: 'c1' }));
    expect(first).toMatchObject({ status: 200, message: 'new version of the template has been stored' });
    expect(first.template.version).toMatchObject({ tag: 'v1', template: 'one', active: true, comment: 'c1' });

    const second = await templates.createVersion(DOMAIN, 'versioned', form({ template: 'two', tag: 'v2' }));
    expect(second.template.version).toMatchObject({ tag: 'v2', active: false });
    expect(await tagsOf('versioned')).toEqual([
      { tag: 'v1', active: true },
      { tag: 'v2', active: false },
    ]);

    const third = await templates.createVersion(DOMAIN, 'versioned', form({ template: 'three', tag: 'v3', active: 'yes' }));
    expect(third.template.version).toMatchObject({ tag: 'v3', active: true });
    expect(await tagsOf('versioned')).toEqual([
      { tag: 'v1', active: false },
      { tag: 'v2', active: false },
      { tag: 'v3', active: true },
    ]);
    expect((await templates.get(DOMAIN, 'versioned', { active: 'yes' } as never)).version).toMatchObject({ tag: 'v3', template: 'three' });
  });

  it('lists versions without their content', async () => {
    const raw = await call(url('/versioned/versions'));
    const template = raw.json.template as { name: string; versions: Array<Record<string, unknown>> };
    expect(template.name).toBe('versioned');
    expect(template.versions[0]).toEqual({
      tag: 'v1',
      engine: 'handlebars',
      mjml: '',
      createdAt: expect.stringMatching(RFC1123),
      comment: 'c1',
      active: false,
      id: expect.stringMatching(UUID),
      headers: {},
    });
  });

  it('refuses a tag that exists, and a version without content or tag', async () => {
    expect(await sdkError(templates.createVersion(DOMAIN, 'versioned', form({ template: 'again', tag: 'V1' })))).toEqual({
      status: 409,
      details: 'version v1 already exists',
    });
    expect(await sdkError(templates.createVersion(DOMAIN, 'versioned', form({ tag: 'v9' })))).toEqual({ status: 400, details: "Missing parameter 'template'" });
    expect(await sdkError(templates.createVersion(DOMAIN, 'versioned', form({ template: 'x' })))).toEqual({ status: 400, details: "Missing parameter 'tag'" });
    expect(await sdkError(templates.createVersion(DOMAIN, 'missing', form({ template: 'x', tag: 'v1' })))).toEqual({ status: 404, details: 'template not found' });
    expect((await tagsOf('versioned')).map((v) => v.tag)).toEqual(['v1', 'v2', 'v3']);
  });

  it('gets one version with its content and headers', async () => {
    await templates.createVersion(DOMAIN, 'versioned', form({ template: '<b>{{x}}</b>', tag: 'with-headers', headers: JSON.stringify({ 'reply-to': 'r@tpl.example.com' }) }));
    const got = await templates.getVersion(DOMAIN, 'versioned', 'with-headers');
    expect(got).toMatchObject({ name: 'versioned', version: { tag: 'with-headers', template: '<b>{{x}}</b>', headers: { 'Reply-To': 'r@tpl.example.com' }, active: false } });
    expect(got.version!.createdAt).toBeInstanceOf(Date);
  });

  it('updates content, comment and headers, keeping what is not given', async () => {
    const updated = await templates.updateVersion(DOMAIN, 'versioned', 'v2', form({ template: 'two, edited', comment: 'edited' }));
    expect(updated).toEqual({ status: 200, message: 'version has been updated', templateName: 'versioned', templateVersion: { tag: 'v2' } });
    expect((await templates.getVersion(DOMAIN, 'versioned', 'v2')).version).toMatchObject({ template: 'two, edited', comment: 'edited', active: false });

    await templates.updateVersion(DOMAIN, 'versioned', 'v2', form({ headers: JSON.stringify({ Subject: 'Hi' }) }));
    expect((await templates.getVersion(DOMAIN, 'versioned', 'v2')).version).toMatchObject({ template: 'two, edited', comment: 'edited', headers: { Subject: 'Hi' } });

    const nothing = await call(url('/versioned/versions/v2'), { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: '' });
    expect(nothing).toMatchObject({ status: 400, json: { message: 'No fields are provided to update' } });
    const bad = await call(url('/versioned/versions/v2'), { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: 'template=%7B%7B%23each%7D%7D' });
    expect(bad.status).toBe(400);
    expect((await templates.getVersion(DOMAIN, 'versioned', 'v2')).version!.template).toBe('two, edited');
  });

  it('switches the active version on update with active=yes (or true, as mailgun-go sends)', async () => {
    await templates.updateVersion(DOMAIN, 'versioned', 'v1', form({ active: 'yes' }));
    expect((await tagsOf('versioned')).filter((v) => v.active)).toEqual([{ tag: 'v1', active: true }]);
    const go = await call(url('/versioned/versions/v2'), { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: 'active=true' });
    expect(go.status).toBe(200);
    expect((await tagsOf('versioned')).filter((v) => v.active)).toEqual([{ tag: 'v2', active: true }]);
  });

  it('deletes a version; deleting the active one leaves the template without an active version', async () => {
    const gone = await templates.destroyVersion(DOMAIN, 'versioned', 'v3');
    expect(gone).toEqual({ status: 200, message: 'version has been deleted', templateName: 'versioned', templateVersion: { tag: 'v3' } });
    expect((await tagsOf('versioned')).map((v) => v.tag)).not.toContain('v3');

    await templates.destroyVersion(DOMAIN, 'versioned', 'v2');
    const template = await templates.get(DOMAIN, 'versioned', { active: 'yes' } as never);
    expect(template.version).toBeUndefined();
    expect((await tagsOf('versioned')).every((v) => !v.active)).toBe(true);
    await expect(platform.us.run(() => renderTemplate(accountId, DOMAIN, 'versioned', { variables: {} }))).rejects.toMatchObject({
      status: 400,
      message: 'template versioned has no active version',
    });
    // A version can still be named explicitly, and activating one restores the default.
    await templates.updateVersion(DOMAIN, 'versioned', 'v1', form({ active: 'yes' }));
    expect((await templates.get(DOMAIN, 'versioned', { active: 'yes' } as never)).version).toMatchObject({ tag: 'v1' });
    expect(await sdkError(templates.destroyVersion(DOMAIN, 'versioned', 'v3'))).toEqual({ status: 404, details: 'template version not found' });
  });

  it('stores at most 40 versions, and the 41st changes nothing', async () => {
    await createTemplate('full');
    for (let i = 1; i <= 40; i++) await templates.createVersion(DOMAIN, 'full', form({ template: `v${i}`, tag: `v${String(i).padStart(2, '0')}` }));
    expect(await sdkError(templates.createVersion(DOMAIN, 'full', form({ template: 'one too many', tag: 'v41', active: 'yes' })))).toEqual({
      status: 400,
      details: 'a template stores at most 40 versions',
    });
    const tags = await tagsOf('full', 7);
    expect(tags).toHaveLength(40);
    expect(tags.map((v) => v.tag)).toEqual(Array.from({ length: 40 }, (_, i) => `v${String(i + 1).padStart(2, '0')}`));
    expect(tags.filter((v) => v.active)).toEqual([{ tag: 'v01', active: true }]);
    // Copying to a new tag is a new version too.
    const copy = await call(url('/full/versions/v01/copy/v41'), { method: 'PUT' });
    expect(copy).toMatchObject({ status: 400, json: { message: 'a template stores at most 40 versions' } });
  });

  it('writes version paging URLs with the pivot p, and pages back from the last page', async () => {
    const raw = await call(url('/full/versions?limit=15'));
    expect((raw.json.paging as { next: string }).next).toBe(`${platform.us.url}/v3/${DOMAIN}/templates/full/versions?page=next&p=v15&limit=15`);
    const last = await call(url('/full/versions?page=last&limit=15'));
    expect((last.json.template as { versions: Array<{ tag: string }> }).versions.map((v) => v.tag)[0]).toBe('v26');
  });
});

describe('copy', () => {
  beforeAll(async () => {
    await createTemplate('copied', { template: '<p>{{a}}</p>', tag: 'base', comment: 'original', headers: JSON.stringify({ Subject: 'S' }) });
  });

  it('copies a version to a new tag, inactive, with the comment given', async () => {
    const res = await call(url('/copied/versions/base/copy/Next?comment=from+copy'), { method: 'PUT' });
    expect(res.status).toBe(200);
    const version = { tag: 'next', template: '<p>{{a}}</p>', engine: 'handlebars', comment: 'from copy', active: false, headers: { Subject: 'S' } };
    expect(res.json).toMatchObject({ message: 'version has been copied', version, template: version });
    expect((await tagsOf('copied')).map((v) => v.tag)).toEqual(['base', 'next']);
  });

  it('overwrites an existing tag, which keeps its id and stays active', async () => {
    await templates.updateVersion(DOMAIN, 'copied', 'base', form({ template: '<p>{{b}}</p>' }));
    const before = await templates.getVersion(DOMAIN, 'copied', 'next');
    await templates.updateVersion(DOMAIN, 'copied', 'next', form({ active: 'yes' }));
    const res = await call(url('/copied/versions/base/copy/next'), { method: 'PUT' });
    expect(res.json.version).toMatchObject({ tag: 'next', template: '<p>{{b}}</p>', comment: 'original', active: true, id: before.version!.id });
    expect((await tagsOf('copied')).map((v) => v.tag)).toEqual(['base', 'next']);
  });

  it('answers 404 for an unknown source and 400 for a bad new tag', async () => {
    expect(await call(url('/copied/versions/nope/copy/x'), { method: 'PUT' })).toMatchObject({ status: 404, json: { message: 'template version not found' } });
    expect(await call(url('/copied/versions/base/copy/a%20b'), { method: 'PUT' })).toMatchObject({
      status: 400,
      json: { message: "Invalid parameter 'new_tag': may contain only letters, digits and . - _ ~" },
    });
  });
});

describe('rendering for sends', () => {
  it('renders the active version or a named one, with headers and a text part', async () => {
    await createTemplate('render.me', {
      template: '<h1>Hi {{name}}</h1><p>{{{raw}}} <a href="{{link}}">here</a></p>',
      tag: 'live',
      headers: JSON.stringify({ Subject: 'For {{name}}', From: 'Shop <shop@tpl.example.com>' }),
    });
    await templates.createVersion(DOMAIN, 'render.me', form({ template: 'draft {{name}}', tag: 'draft' }));
    const render = (options: Parameters<typeof renderTemplate>[3]) => platform.us.run(() => renderTemplate(accountId, DOMAIN, 'Render.Me', options));

    const live = await render({ variables: { name: 'Ann & Bo', raw: '<i>x</i>', link: 'https://x.example/a' }, text: true });
    expect(live).toEqual({
      html: '<h1>Hi Ann &amp; Bo</h1><p><i>x</i> <a href="https://x.example/a">here</a></p>',
      text: 'Hi Ann & Bo\n\nx here [https://x.example/a]',
      headers: { From: 'Shop <shop@tpl.example.com>', Subject: 'For Ann & Bo' },
      version: 'live',
    });
    expect(await render({ version: 'DRAFT', variables: { name: 'B' } })).toEqual({ html: 'draft B', headers: {}, version: 'draft' });

    // An edit is seen by the next render, though the compiled version is cached.
    await templates.updateVersion(DOMAIN, 'render.me', 'draft', form({ template: 'edited {{name}}' }));
    expect((await render({ version: 'draft', variables: { name: 'C' } })).html).toBe('edited C');
  });

  it('answers 400 template not found for an unknown template or version', async () => {
    const render = (name: string, version?: string) => platform.us.run(() => renderTemplate(accountId, DOMAIN, name, { version, variables: {} }));
    await expect(render('nope')).rejects.toMatchObject({ status: 400, message: 'template not found' });
    await expect(render('render.me', 'nope')).rejects.toMatchObject({ status: 400, message: 'template version not found' });
    await expect(platform.us.run(() => renderTemplate('another-account', DOMAIN, 'render.me', { variables: {} }))).rejects.toMatchObject({ status: 400 });
  });
});
