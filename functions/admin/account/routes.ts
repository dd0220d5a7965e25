import type { RouteSpec } from '../../platform/http/route';

/**
 * Account management (contract 12.4): the acting account's name and dashboard session settings.
 * The GET is an addition (Mailgun has none): it reads back what the two PUTs set.
 */
export const accountRoutes = [
  { method: 'GET', path: '/v5/accounts', area: 'admin/account', operation: 'getAccount', access: 'read' },
  { method: 'PUT', path: '/v5/accounts', area: 'admin/account', operation: 'updateAccount', access: 'admin' },
  { method: 'PUT', path: '/v5/accounts/features', area: 'admin/account', operation: 'updateAccountFeatures', access: 'admin' },
] as const satisfies readonly RouteSpec[];
