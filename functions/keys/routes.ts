import type { RouteSpec } from '../platform/http/route';

export const keyRoutes = [
  { method: 'GET', path: '/v1/keys', area: 'keys', operation: 'listKeys', access: 'admin' },
  { method: 'POST', path: '/v1/keys', area: 'keys', operation: 'createKey', access: 'admin', changesCredentials: true },
  { method: 'DELETE', path: '/v1/keys/{id}', area: 'keys', operation: 'deleteKey', access: 'admin', changesCredentials: true },
] as const satisfies readonly RouteSpec[];
