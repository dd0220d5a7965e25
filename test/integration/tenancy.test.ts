import { routes } from '../../functions/routes';
import type { RouteSpec } from '../../functions/platform/http/route';
import type { LocalPlatform } from '../../lib/local/platform';
import { apiKeys, call, primaryAccountId, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// The platform's tenancy test, driven by the route table so every area inherits it: a
// subaccount's own admin key calls every route with the parent's names and ids (and a sibling's
// subaccount id) in the path and the body, and gets none of their data back; afterwards every
// parent resource is still there, unchanged.
let platform: LocalPlatform;
const parent = {} as {
  accountId: string;
  domain: string;
  sandbox: string;
  template: string;
  list: string;
  keyId: string;
  routeId: string;
  linkTest: string;
  previewTest: string;
  bounce: string;
  sibling: string;
};
let subKey = '';

const url = (path: string) => `${platform.us.url}${path}`;

beforeAll(async () => {
  platform = await startTestPlatform();
  const mg = sdk(platform.us.url);
  parent.accountId = await primaryAccountId(platform.us);
  parent.domain = 'parent-tenancy.example.com';
  await mg.domains.create({ name: parent.domain, dkim_key_size: '1024' } as never);
  parent.sandbox = await sandboxOf(mg);
  parent.template = 'parent-template';
  await mg.domains.domainTemplates.create(parent.sandbox, { name: parent.template, template: '<p>parent secret template</p>', tag: 'parent-tag' } as never);
  parent.list = `parent-list@${parent.sandbox}`;
  await mg.lists.create({ address: parent.list, name: 'Parent list' } as never);
  parent.keyId = (await apiKeys(mg).create({ role: 'basic', description: 'parent key' })).id;
  parent.routeId = (await mg.routes.create({ expression: 'match_recipient(".*@parent-tenancy.example.com")', action: ['stop()'], description: 'parent route' } as never)).id;
  parent.bounce = 'parent-bounced@example.com';
  await mg.suppressions.create(parent.sandbox, 'bounces', { address: parent.bounce } as never);
  const post = (path: string, body: unknown) => call(url(path), { method: 'POST', contentType: 'application/json', body: JSON.stringify(body) });
  parent.linkTest = ((await post('/v1/inspect/links', { links: ['https://example.com/parent'] })).json.items as { id: string }).id;
  parent.previewTest = (await post('/v2/preview/tests', { subject: 'Parent preview', html: '<p>parent</p>', clients: ['appmail14'] })).json.id as string;

  const sub = (await mg.subaccounts.create('Tenant')).subaccount;
  parent.sibling = (await mg.subaccounts.create('Sibling')).subaccount.id;
  const asSub = sdk(platform.us.url);
  asSub.setSubaccount(sub.id);
  subKey = (await apiKeys(asSub).create({ role: 'admin', kind: 'user' })).secret;
});
afterAll(() => platform.close());

/** The parent's (or the sibling's) values a route's path parameter could name. */
function candidates(route: RouteSpec, param: string): string[] {
  if (param === route.domainParam) return [parent.domain, parent.sandbox];
  switch (param) {
    case 'name':
      return [parent.template, 'delivered'];
    case 'id':
      return [parent.keyId, parent.routeId, parent.linkTest];
    case 'list':
      return [parent.list];
    case 'address':
    case 'member':
      return [parent.bounce];
    case 'tag':
      return ['parent-tag'];
    case 'test_id':
      return [parent.previewTest, parent.linkTest];
    case 'subaccount_id':
      return [parent.sibling];
    case 'client_id':
      return ['appmail14'];
    default:
      return [`absent-${param}`];
  }
}

/** Every concrete path for a route: the cartesian product of its parameters' candidates. */
function pathsOf(route: RouteSpec): string[] {
  let paths = [route.path];
  for (const [, param] of route.path.matchAll(/\{(\w+)\+?\}/g)) {
    paths = paths.flatMap((path) => candidates(route, param!).map((value) => path.replace(new RegExp(`\\{${param}\\+?\\}`), encodeURIComponent(value))));
  }
  return paths;
}

/** What a body names, so a create or change cannot reach the parent's things either. */
const body = () => new URLSearchParams({ name: parent.domain, domain: parent.domain, address: parent.list, list: parent.list, template: parent.template, test_id: parent.previewTest, url: 'https://example.com/hook', id: parent.keyId }).toString();

/** What would betray the parent's data in a reply. */
const markers = () => [parent.accountId, parent.sandbox, parent.template, parent.list, parent.keyId, parent.routeId, parent.linkTest, parent.previewTest, parent.bounce, 'parent secret template', 'parent route', 'Parent list', 'Parent preview'];

const cases = routes.filter((route) => route.access !== 'public').map((route) => [`${route.method} ${route.path}`, route] as const);

describe.each(cases)('%s', (_, route) => {
  it("gives a subaccount none of its parent's or sibling's data", async () => {
    for (const path of pathsOf(route)) {
      const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
      const res = await call(url(path), { method: route.method, key: subKey, ...(hasBody ? { contentType: 'application/x-www-form-urlencoded', body: body() } : {}) });
      expect(res.status).not.toBe(500);
      // A refusal may repeat what was asked for; an answer must not carry the parent's data.
      if (res.status < 400) for (const marker of markers()) expect({ path, leaked: res.text.includes(marker) ? marker : undefined }).toEqual({ path, leaked: undefined });
    }
  });
});

test("afterwards every parent resource is still there, as it was", async () => {
  const mg = sdk(platform.us.url);
  expect((await mg.domains.get(parent.domain)).name).toBe(parent.domain);
  expect((await mg.domains.domainTemplates.get(parent.sandbox, parent.template)).name).toBe(parent.template);
  expect((await mg.lists.get(parent.list)).address).toBe(parent.list);
  expect((await mg.routes.get(parent.routeId)).description).toBe('parent route');
  expect((await apiKeys(mg).list()).items.map((k) => k.id)).toContain(parent.keyId);
  expect(((await mg.suppressions.get(parent.sandbox, 'bounces', parent.bounce)) as { address: string }).address).toBe(parent.bounce);
  expect((await call(url(`/v1/inspect/links/${parent.linkTest}`))).status).toBe(200);
  expect((await call(url(`/v2/preview/tests/${parent.previewTest}`))).status).toBe(200);
  expect((await mg.subaccounts.get(parent.sibling)).subaccount.status).toBe('open');
});
