import type { RouteSpec } from '../platform/http/route';

const area = 'mailroutes';

/** Inbound routes (contract §9): account-wide, so no domain parameter; reading needs `read`, changes `write`. */
export const mailRouteRoutes = [
  { method: 'GET', path: '/v3/routes', area, operation: 'listRoutes', access: 'read' },
  { method: 'POST', path: '/v3/routes', area, operation: 'createRoute', access: 'write' },
  { method: 'GET', path: '/v3/routes/match', area, operation: 'matchRoute', access: 'read' },
  { method: 'GET', path: '/v3/routes/{id}', area, operation: 'getRoute', access: 'read' },
  { method: 'PUT', path: '/v3/routes/{id}', area, operation: 'updateRoute', access: 'write' },
  { method: 'DELETE', path: '/v3/routes/{id}', area, operation: 'deleteRoute', access: 'write' },
] as const satisfies readonly RouteSpec[];
