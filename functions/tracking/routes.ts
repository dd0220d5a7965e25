import type { RouteSpec } from '../platform/http/route';

/**
 * What mail clients fetch: no API key, the signed token is the authentication. Served on the API
 * host and on each domain's tracking host (web_prefix.domain, a CNAME to it). A HEAD (a link
 * checker, a mail scanner) is answered as the GET and records nothing.
 */
export const trackingRoutes = [
  { method: 'GET', path: '/o/{token}', area: 'tracking', operation: 'open', access: 'public', head: true, replies: [{ status: 200, contentType: 'image/gif', description: 'A transparent 1x1 GIF; the open is recorded.' }] },
  { method: 'GET', path: '/c/{token}', area: 'tracking', operation: 'click', access: 'public', head: true, replies: [{ status: 302, description: "A redirect to the link's target; the click is recorded." }] },
  { method: 'GET', path: '/u/{token}', area: 'tracking', operation: 'unsubscribe', access: 'public', head: true, replies: [{ status: 200, contentType: 'text/html', description: 'A page saying the recipient is unsubscribed; the unsubscribe is recorded.' }] },
  { method: 'POST', path: '/u/{token}', area: 'tracking', operation: 'unsubscribeOneClick', access: 'public', replies: [{ status: 200, description: 'Empty: the one-click unsubscribe (RFC 8058) is recorded.' }] },
] as const satisfies readonly RouteSpec[];
