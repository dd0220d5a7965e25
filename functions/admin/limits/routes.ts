import type { RouteSpec } from '../../platform/http/route';

const area = 'admin/limits';

/** The custom monthly message limit (contract 12.4, 12.3): the account's own, and a parent's on each subaccount. */
export const limitRoutes = [
  { method: 'GET', path: '/v5/accounts/limit/custom/monthly', area, operation: 'getMonthlyLimit', access: 'read' },
  { method: 'PUT', path: '/v5/accounts/limit/custom/monthly', area, operation: 'setMonthlyLimit', access: 'admin' },
  { method: 'DELETE', path: '/v5/accounts/limit/custom/monthly', area, operation: 'deleteMonthlyLimit', access: 'admin' },
  { method: 'PUT', path: '/v5/accounts/limit/custom/enable', area, operation: 'enableMonthlyLimit', access: 'admin' },
  { method: 'GET', path: '/v5/accounts/subaccounts/{subaccount_id}/limit/custom/monthly', area, operation: 'getSubaccountMonthlyLimit', access: 'read' },
  { method: 'PUT', path: '/v5/accounts/subaccounts/{subaccount_id}/limit/custom/monthly', area, operation: 'setSubaccountMonthlyLimit', access: 'admin' },
  { method: 'DELETE', path: '/v5/accounts/subaccounts/{subaccount_id}/limit/custom/monthly', area, operation: 'deleteSubaccountMonthlyLimit', access: 'admin' },
] as const satisfies readonly RouteSpec[];
