import { RouteMatcher } from '../../../functions/platform/http/route-matcher';
import type { RouteSpec } from '../../../functions/platform/http/route';

const route = (method: RouteSpec['method'], path: string): RouteSpec => ({ method, path, area: 'a', operation: path, access: 'read' });

const matcher = new RouteMatcher([
  route('GET', '/v3/{domain}/events/{token+}'),
  route('GET', '/v3/{domain}/events'),
  route('GET', '/v3/domains/{name}/tracking'),
  route('GET', '/v3/{domain}/tags'),
  route('PUT', '/v4/domains/{name}/verify'),
]);

it('prefers static segments over variables, as API Gateway does', () => {
  expect(matcher.match('GET', '/v3/domains/x.com/tracking')?.route.path).toBe('/v3/domains/{name}/tracking');
  expect(matcher.match('GET', '/v3/x.com/tags')?.pathParameters).toEqual({ domain: 'x.com' });
});

it('binds greedy variables to the rest of the path and keeps encoding', () => {
  expect(matcher.match('GET', '/v3/x.com/events/abc/def')?.pathParameters).toEqual({ domain: 'x.com', token: 'abc/def' });
  expect(matcher.match('GET', '/v3/x.com/events')?.route.path).toBe('/v3/{domain}/events');
  expect(matcher.match('GET', '/v3/a%40b.com/tags')?.pathParameters).toEqual({ domain: 'a%40b.com' });
});

it('matches nothing for other methods or longer paths', () => {
  expect(matcher.match('POST', '/v4/domains/x.com/verify')).toBeUndefined();
  expect(matcher.match('PUT', '/v4/domains/x.com/verify/now')).toBeUndefined();
});

it('matches HEAD only to a GET row that answers it, as API Gateway does with HEAD routes', () => {
  const rows = new RouteMatcher([{ ...route('GET', '/docs'), access: 'public', head: true }, route('GET', '/v3/{domain}/tags')]);
  expect(rows.match('HEAD', '/docs')?.route.path).toBe('/docs');
  expect(rows.match('HEAD', '/v3/x.com/tags')).toBeUndefined();
});
