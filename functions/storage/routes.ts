import type { RouteSpec } from '../platform/http/route';

/**
 * Reading stored messages back. Its own Lambda: parsing MIME into Mailgun's JSON needs mailparser
 * and its charset tables (over 1 MB), which the send path must not load on every cold start.
 */
export const storageRoutes = [
  { method: 'GET', path: '/v3/domains/{domain}/messages/{storageKey}', area: 'storage', operation: 'getStoredMessage', access: 'read', domainParam: 'domain' },
] as const satisfies readonly RouteSpec[];
