import type { RouteSpec } from '../platform/http/route';

/**
 * What mail clients fetch: no API key, the signed token is the authentication. Served on the API
 * host and on each domain's tracking host (web_prefix.domain, a CNAME to it).
 */
export const trackingRoutes = [
  { method: 'GET', path: '/o/{token}', area: 'tracking', operation: 'open', access: 'public' },
  { method: 'GET', path: '/c/{token}', area: 'tracking', operation: 'click', access: 'public' },
  { method: 'GET', path: '/u/{token}', area: 'tracking', operation: 'unsubscribe', access: 'public' },
  { method: 'POST', path: '/u/{token}', area: 'tracking', operation: 'unsubscribeOneClick', access: 'public' },
] as const satisfies readonly RouteSpec[];
