import type { RouteSpec } from '../../platform/http/route';

const area = 'admin/subaccounts';

/**
 * Subaccounts (contract 12.3): child accounts a parent's user keys act on with
 * X-Mailgun-On-Behalf-Of. Reading needs `read`, the rest `admin`. DELETE names its subaccount in
 * that header, and may name a disabled one.
 */
export const subaccountRoutes = [
  { method: 'GET', path: '/v5/accounts/subaccounts', area, operation: 'listSubaccounts', access: 'read' },
  { method: 'POST', path: '/v5/accounts/subaccounts', area, operation: 'createSubaccount', access: 'admin', changesCredentials: true },
  { method: 'DELETE', path: '/v5/accounts/subaccounts', area, operation: 'deleteSubaccount', access: 'admin', onBehalfOfAnyStatus: true, changesCredentials: true },
  { method: 'GET', path: '/v5/accounts/subaccounts/{subaccount_id}', area, operation: 'getSubaccount', access: 'read' },
  { method: 'POST', path: '/v5/accounts/subaccounts/{subaccount_id}/disable', area, operation: 'disableSubaccount', access: 'admin', changesCredentials: true },
  { method: 'POST', path: '/v5/accounts/subaccounts/{subaccount_id}/enable', area, operation: 'enableSubaccount', access: 'admin', changesCredentials: true },
  { method: 'PUT', path: '/v5/accounts/subaccounts/{subaccount_id}/features', area, operation: 'updateSubaccountFeatures', access: 'admin', changesCredentials: true },
] as const satisfies readonly RouteSpec[];
