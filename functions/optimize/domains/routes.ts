import type { RouteSpec } from '../../platform/http/route';

const area = 'optimize/domains';

/** Managed domains of the optimization product (optimize contract 1.1). */
export const managedDomainRoutes = [
  { method: 'GET', path: '/v1/inboxready/domains', area, operation: 'listManagedDomains', access: 'read' },
  { method: 'POST', path: '/v1/inboxready/domains', area, operation: 'addManagedDomain', access: 'write' },
  { method: 'PUT', path: '/v1/inboxready/domains/verify', area, operation: 'verifyManagedDomain', access: 'write' },
  { method: 'DELETE', path: '/v1/inboxready/domains', area, operation: 'removeManagedDomain', access: 'write' },
] as const satisfies readonly RouteSpec[];
