import { DynamoDBDocumentClient, GetCommand, type GetCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { keyId, type Key } from '../../../functions/data/store';
import { withEnv } from '../../../functions/platform/env';
import { renderTemplate, type RenderOptions } from '../../../functions/templates/render';
import { templateKeys, type TemplateHeaders, type TemplateItem, type VersionItem } from '../../../functions/templates/template-store';

// renderTemplate against a mocked table: what Mailgun's Handlebars dialect produces for a send.
const ddb = mockClient(DynamoDBDocumentClient);
const env = { TABLE_NAME: 'table', AWS_REGION: 'us-east-1' };
const stored = new Map<string, Record<string, unknown>>();
let templateCount = 0;

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).callsFake((input: GetCommandInput) => ({ Item: stored.get(keyId(input.Key as Key)) }));
});

/** Stores a template (a fresh name and id each time, so the compile cache never carries over) with its versions. */
function store(versions: Record<string, { content: string; headers?: TemplateHeaders }>, activeTag?: string): TemplateItem {
  templateCount += 1;
  const template: TemplateItem = {
    accountId: 'acct',
    domain: 'mg.example.com',
    name: `t${templateCount}`,
    id: `id-${templateCount}`,
    description: '',
    createdBy: '',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...(activeTag ? { activeTag } : {}),
  };
  stored.set(keyId(templateKeys.template('acct', template.domain, template.name)), { ...template });
  for (const [tag, { content, headers }] of Object.entries(versions)) {
    const contentId = `${template.id}-${tag}-content`;
    const version: VersionItem = {
      accountId: 'acct',
      domain: template.domain,
      templateId: template.id,
      templateName: template.name,
      tag,
      id: `${template.id}-${tag}`,
      engine: 'handlebars',
      comment: '',
      headers: headers ?? {},
      contentId,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    stored.set(keyId(templateKeys.version(template, tag)), { ...version });
    stored.set(keyId(templateKeys.content(template, contentId)), { contentId, template: content });
  }
  return template;
}

const render = (template: Pick<TemplateItem, 'name'>, options: Partial<RenderOptions> = {}) =>
  withEnv(env, () => renderTemplate('acct', 'MG.example.com', template.name.toUpperCase(), { variables: {}, ...options }));

const html = async (content: string, variables: Record<string, unknown>) => (await render(store({ v: { content } }, 'v'), { variables })).html;

const contentReads = () => ddb.commandCalls(GetCommand).filter((call) => String(call.args[0].input.Key!.sk).startsWith('SRC#')).length;

describe('the Handlebars dialect', () => {
  it('escapes {{x}} for HTML and leaves {{{x}}} raw', async () => {
    expect(await html('<p>{{x}}|{{{x}}}</p>', { x: `<a href="u">&'</a>` })).toBe(`<p>&lt;a href&#x3D;&quot;u&quot;&gt;&amp;&#x27;&lt;/a&gt;|<a href="u">&'</a></p>`);
  });

  it('renders missing variables, and paths through them, as empty strings', async () => {
    expect(await html('[{{missing}}][{{a.b.c}}][{{{raw}}}]', {})).toBe('[][][]');
  });

  it('supports if/else if, unless, each, with, lookup and @index', async () => {
    const source = '{{#if en}}Hi{{else if fr}}Salut{{/if}} {{#unless paid}}owe{{/unless}} {{#each items}}{{@index}}:{{this.n}};{{/each}} {{#with user}}{{name}}{{/with}} {{lookup map key}}';
    expect(await html(source, { fr: true, paid: false, items: [{ n: 'a' }, { n: 'b' }], user: { name: 'Ann' }, map: { k: 'V' }, key: 'k' })).toBe(
      'Salut owe 0:a;1:b; Ann V',
    );
  });

  it('compares string forms with equal, as a block or a subexpression', async () => {
    const source = '{{#equal foo "bar"}}a{{/equal}}{{#equal nb "1"}}b{{/equal}}{{#equal nb 0}}c{{else}}d{{/equal}}{{#if (equal none "")}}e{{/if}}';
    expect(await html(source, { foo: 'bar', nb: 1 })).toBe('abde');
  });

  it('never reads through prototypes', async () => {
    expect(await html('[{{constructor}}][{{x.constructor.name}}][{{x.__proto__}}][{{toString}}]', { x: {} })).toBe('[][][][]');
  });
});

describe('headers and the text part', () => {
  it('renders stored headers with the variables, unescaped, and on one line', async () => {
    const template = store({ v: { content: 'x', headers: { Subject: 'Hi {{name}} & co', From: '{{sender}}', 'Reply-To': 'r@x.com' } } }, 'v');
    const result = await render(template, { variables: { name: 'Ann <3', sender: 'A <a@x.com>\r\nBcc: evil@x.com' } });
    expect(result.headers).toEqual({ From: 'A <a@x.com> Bcc: evil@x.com', Subject: 'Hi Ann <3 & co', 'Reply-To': 'r@x.com' });
  });

  it('makes a text part from the rendered HTML only when asked', async () => {
    const template = store({ v: { content: '<h2>Order {{id}}</h2><p>Total: {{total}} &euro;<br>See <a href="https://x.example/o/{{id}}">your order</a>.</p><img src="logo.png" alt="Logo">' } }, 'v');
    const variables = { id: 7, total: '9.50' };
    expect(await render(template, { variables })).not.toHaveProperty('text');
    expect((await render(template, { variables, text: true })).text).toBe('Order 7\n\nTotal: 9.50 €\nSee your order [https://x.example/o/7].');
  });
});

describe('choosing the version', () => {
  it('renders the active version by default and a named one (any case) on request', async () => {
    const template = store({ live: { content: 'live {{x}}' }, draft: { content: 'draft {{x}}' } }, 'live');
    expect(await render(template, { variables: { x: 1 } })).toEqual({ html: 'live 1', headers: {}, version: 'live' });
    expect(await render(template, { version: 'DRAFT', variables: { x: 2 } })).toEqual({ html: 'draft 2', headers: {}, version: 'draft' });
  });

  it('refuses, with a 400, an unknown template, an unknown version, and a template without an active version', async () => {
    const template = store({ v: { content: 'x' } });
    await expect(render({ name: 'nothing-here' })).rejects.toMatchObject({ status: 400, message: 'template not found' });
    await expect(render(template, { version: 'nope' })).rejects.toMatchObject({ status: 400, message: 'template version not found' });
    await expect(render(template)).rejects.toMatchObject({ status: 400, message: `template ${template.name} has no active version` });
    expect((await render(template, { version: 'v' })).html).toBe('x');
  });
});

describe('the compiled-version cache', () => {
  it('reads and compiles a version once per state, and again after any change', async () => {
    const template = store({ v: { content: 'one {{x}}' } }, 'v');
    await render(template, { variables: { x: 1 } });
    await render(template, { variables: { x: 2 } });
    expect(contentReads()).toBe(1);

    // New content comes with a new content id and time: the next render reads and compiles it.
    const versionKey = keyId(templateKeys.version(template, 'v'));
    stored.set(keyId(templateKeys.content(template, 'c2')), { contentId: 'c2', template: 'two {{x}}' });
    stored.set(versionKey, { ...stored.get(versionKey), contentId: 'c2', updatedAt: '2026-01-02T00:00:00.000Z' });
    expect((await render(template, { variables: { x: 3 } })).html).toBe('two 3');
    expect(contentReads()).toBe(2);

    // A header change keeps the content but bumps the time: headers are compiled anew.
    stored.set(versionKey, { ...stored.get(versionKey), headers: { Subject: 'S {{x}}' }, updatedAt: '2026-01-03T00:00:00.000Z' });
    expect((await render(template, { variables: { x: 4 } })).headers).toEqual({ Subject: 'S 4' });
  });

  it('keeps templates of the same name apart by id', async () => {
    const first = store({ v: { content: 'first' } }, 'v');
    expect((await render(first)).html).toBe('first');
    // Deleted and created again under the same name: same tag and times, new id.
    stored.set(keyId(templateKeys.template('acct', first.domain, first.name)), { ...stored.get(keyId(templateKeys.template('acct', first.domain, first.name))), id: 'other' });
    const again = { ...first, id: 'other' };
    stored.set(keyId(templateKeys.version(again, 'v')), { ...stored.get(keyId(templateKeys.version(first, 'v'))), templateId: 'other', contentId: 'c-other' });
    stored.set(keyId(templateKeys.content(again, 'c-other')), { contentId: 'c-other', template: 'second' });
    expect((await render(first)).html).toBe('second');
  });
});
