import { gatewayRouteKey, gatewayRoutes, greedyPrefix, ROUTE_BUDGET } from '../../../functions/platform/http/gateway-routes';
import { routeKey, type RouteSpec } from '../../../functions/platform/http/route';
import { RouteMatcher } from '../../../functions/platform/http/route-matcher';
import { routes } from '../../../functions/routes';

const row = (area: string, method: RouteSpec['method'], path: string, access: RouteSpec['access'] = 'read'): RouteSpec => ({ area, method, path, operation: `${method}${path}`, access });

const small = [
  row('lists', 'GET', '/v1/lists'),
  row('lists', 'GET', '/v1/lists/{list}'),
  row('lists', 'PUT', '/v1/lists/{list}'),
  row('lists', 'GET', '/v1/lists/{list}/members'),
  row('routes', 'GET', '/v3/routes/{id}'),
  row('routes', 'PUT', '/v3/routes/{id}'),
  row('events', 'GET', '/v3/{domain}/events'),
  row('sandbox', 'GET', '/v5/sandbox/recipients/{id}'),
  row('sandbox', 'DELETE', '/v5/sandbox/recipients/{id}'),
  row('sandbox', 'GET', '/v5/sandbox/confirm/{token}', 'public'),
  row('domains', 'GET', '/v4/domains/{name}'),
  row('ips', 'GET', '/v4/domains/{name}/ips'),
  row('ips', 'POST', '/v4/domains/{name}/ips'),
];

test('within the budget every row is a route of its own', () => {
  expect(gatewayRoutes(small, small.length).map(gatewayRouteKey)).toEqual(small.map(routeKey));
});

test("past the budget the largest shared prefixes go greedy first, and never a prefix another area's rows could serve", () => {
  const planned = gatewayRoutes(small, small.length - 2);
  expect(planned.map(gatewayRouteKey)).toEqual([
    // Rows equal to the prefix stay routes: a greedy variable needs a segment to match.
    'GET /v1/lists',
    'ANY /v1/lists/{proxy+}',
    ...small.slice(4).map(routeKey),
  ]);
  const everything = gatewayRoutes(small, 0).map(gatewayRouteKey);
  expect(everything).toEqual(expect.arrayContaining(['ANY /v5/sandbox/{proxy+}', 'GET /v5/sandbox/confirm/{token}']));
  // /v3/routes/events would reach the events row (/v3/{domain}/events), which API Gateway prefers
  // to a greedy route: /v3/routes stays row by row. /v4/domains holds the domains area's rows too.
  expect(everything).toEqual(expect.arrayContaining(['GET /v3/routes/{id}', 'PUT /v3/routes/{id}', 'GET /v4/domains/{name}/ips', 'POST /v4/domains/{name}/ips']));
  expect(everything.filter((key) => key.startsWith('ANY'))).toHaveLength(2);
});

test("the platform's table: within the budget, every row served once by a route of its own area, public rows never greedy", () => {
  const planned = gatewayRoutes(routes);
  expect(planned.length).toBeLessThanOrEqual(Math.min(routes.length, ROUTE_BUDGET));
  const served = planned.filter((route) => route.method !== 'HEAD').flatMap((route) => route.rows.map((r) => ({ route, row: r })));
  expect(served.map(({ row: r }) => routeKey(r)).sort()).toEqual(routes.map(routeKey).sort());
  // A row answering HEAD has a HEAD route too (API Gateway matches HEAD to HEAD routes only): public GETs that change nothing.
  const heads = planned.filter((route) => route.method === 'HEAD');
  expect(heads.map((route) => route.rows.map(routeKey))).toEqual(routes.filter((r) => r.head).map((r) => [routeKey(r)]));
  expect(heads.map(gatewayRouteKey)).toEqual(expect.arrayContaining(['HEAD /docs', 'HEAD /openapi.json', 'HEAD /preview/share/{uuid}']));
  for (const r of routes.filter((r) => r.head)) expect([routeKey(r), r.access]).toEqual([`GET ${r.path}`, 'public']);
  // The tracking links answer HEAD (their operations record nothing then); the confirmation and the one-click POST do not.
  expect(routes.filter((r) => r.head && r.area === 'tracking').map(routeKey)).toEqual(['GET /o/{token}', 'GET /c/{token}', 'GET /u/{token}']);
  const matcher = new RouteMatcher(routes);
  for (const { route, row: r } of served) {
    expect(route.area).toBe(r.area);
    if (route.method !== 'ANY') continue;
    expect(r.access).not.toBe('public');
    // A request under a greedy prefix reaches one of the prefix's own rows, whichever path it names.
    const prefix = greedyPrefix(route.path);
    expect(r.path.startsWith(`${prefix}/`)).toBe(true);
    const sample = r.path.replace(/\{[^}]+\}/g, 'x');
    expect(matcher.match(r.method, sample)?.route.area).toBe(route.area);
    // No other area's row could serve a path under the prefix (a literal or a variable at each of its segments).
    const prefixSegments = prefix.split('/').filter(Boolean);
    for (const other of routes.filter((o) => o.area !== route.area)) {
      const segments = other.path.split('/').filter(Boolean);
      expect([other.path, prefixSegments.every((p, i) => segments[i] === p || segments[i]?.startsWith('{'))]).toEqual([other.path, false]);
    }
  }
});

test('a row answering HEAD is two routes, counted in the budget', () => {
  const rows = [{ ...row('docs', 'GET', '/docs', 'public'), head: true as const }, row('lists', 'GET', '/v1/lists/{list}'), row('lists', 'PUT', '/v1/lists/{list}')];
  expect(gatewayRoutes(rows, 4).map(gatewayRouteKey)).toEqual(['GET /docs', 'HEAD /docs', 'GET /v1/lists/{list}', 'PUT /v1/lists/{list}']);
  expect(gatewayRoutes(rows, 3).map(gatewayRouteKey)).toEqual(['GET /docs', 'HEAD /docs', 'ANY /v1/lists/{proxy+}']);
});

test('a route that serves a row changing credentials never reuses a verdict, greedy or not', () => {
  const minting = { ...row('keys', 'POST', '/v1/keys/{id}/rotate', 'admin'), changesCredentials: true };
  const rows = [row('keys', 'GET', '/v1/keys/{id}'), row('keys', 'GET', '/v1/keys/{id}/usage'), minting, row('lists', 'GET', '/v1/lists/{list}')];
  expect(gatewayRoutes(rows, rows.length).map((r) => [gatewayRouteKey(r), r.uncachedAuth])).toEqual([
    ['GET /v1/keys/{id}', false],
    ['GET /v1/keys/{id}/usage', false],
    ['POST /v1/keys/{id}/rotate', true],
    ['GET /v1/lists/{list}', false],
  ]);
  const greedy = gatewayRoutes(rows, 0).find((r) => r.method === 'ANY' && r.area === 'keys')!;
  expect(greedy.uncachedAuth).toBe(true);
});

test("every write to an area that holds credentials is marked as changing them (a new row cannot forget)", () => {
  const credentialAreas = new Set(['keys', 'credentials', 'admin/allowlist', 'admin/subaccounts']);
  const writes = routes.filter((r) => credentialAreas.has(r.area) && r.method !== 'GET');
  expect(writes.length).toBeGreaterThan(10);
  expect(writes.filter((r) => !r.changesCredentials).map(routeKey)).toEqual([]);
  const signingKeys = routes.filter((r) => /signing_key|dkim\/keys|\/keys\/\{selector\}|seed-mailboxes|settings\/slack|slack\/oauth/.test(r.path) && r.method !== 'GET');
  expect(signingKeys.filter((r) => !r.changesCredentials).map(routeKey)).toEqual([]);
});
