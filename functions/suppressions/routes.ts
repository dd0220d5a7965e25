import type { RouteSpec } from '../platform/http/route';
import type { SuppressionList } from './lists';

/**
 * The six routes every list has (contract §8), for bounces, complaints, unsubscribes and
 * whitelists (the allowlist):
 *
 *   GET    /v3/{domain}/<list>            a page, address order (style-A paging, `term`)
 *   POST   /v3/{domain}/<list>            one record (form) or a JSON array of up to 1000
 *   DELETE /v3/{domain}/<list>            clear the list
 *   POST   /v3/{domain}/<list>/import     a CSV file in the `file` part
 *   GET    /v3/{domain}/<list>/{address}  one entry
 *   DELETE /v3/{domain}/<list>/{address}  one entry (unsubscribes: `tag` removes one tag)
 *
 * The path's `{domain}` overrides a `domain` field in validated input, so the allowlist reads its
 * own `domain` form field from the request's body and query alone (see handler.ts).
 */
function listRoutes<const L extends SuppressionList>(list: L) {
  const area = 'suppressions';
  const domainParam = 'domain';
  const path = `/v3/{domain}/${list}` as const;
  return [
    { method: 'GET', path, area, operation: `${list}.list`, access: 'read', domainParam },
    { method: 'POST', path, area, operation: `${list}.create`, access: 'suppress', domainParam },
    { method: 'DELETE', path, area, operation: `${list}.clear`, access: 'suppress', domainParam },
    { method: 'POST', path: `${path}/import`, area, operation: `${list}.import`, access: 'suppress', domainParam },
    { method: 'GET', path: `${path}/{address}`, area, operation: `${list}.get`, access: 'read', domainParam },
    { method: 'DELETE', path: `${path}/{address}`, area, operation: `${list}.delete`, access: 'suppress', domainParam },
  ] as const;
}

export const suppressionRoutes = [
  ...listRoutes('bounces'),
  ...listRoutes('complaints'),
  ...listRoutes('unsubscribes'),
  ...listRoutes('whitelists'),
] as const satisfies readonly RouteSpec[];
