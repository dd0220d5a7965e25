import type { RouteSpec } from '../platform/http/route';

/**
 * Account-wide event logs (contract §7.1), the successor of the per-domain events API. Its own
 * area rather than part of `events`: it reads a different index (account-wide, by hour), takes a
 * JSON query with its own filter grammar and token paging, and needs no domain in the path.
 */
export const logRoutes = [{ method: 'POST', path: '/v1/analytics/logs', area: 'logs', operation: 'listLogs', access: 'read' }] as const satisfies readonly RouteSpec[];
