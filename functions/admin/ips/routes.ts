import type { RouteSpec } from '../../platform/http/route';

const area = 'admin/ips';

/** Dedicated IPs and dedicated IP pools (contract 12.5), over SES's dedicated IPs (functions/sending-ips). */
export const ipRoutes = [
  { method: 'GET', path: '/v3/ips', area, operation: 'listIps', access: 'read' },
  { method: 'GET', path: '/v3/ips/{ip}', area, operation: 'getIp', access: 'read' },
  { method: 'GET', path: '/v3/ips/{ip}/domains', area, operation: 'listIpDomains', access: 'read' },
  { method: 'POST', path: '/v3/ips/{ip}/domains', area, operation: 'assignIpToAllDomains', access: 'admin' },
  { method: 'DELETE', path: '/v3/ips/{ip}/domains', area, operation: 'removeIpFromAllDomains', access: 'admin' },
  { method: 'GET', path: '/v3/ip_pools', area, operation: 'listPools', access: 'read' },
  { method: 'POST', path: '/v3/ip_pools', area, operation: 'createPool', access: 'admin' },
  { method: 'GET', path: '/v3/ip_pools/{pool_id}', area, operation: 'getPool', access: 'read' },
  { method: 'PATCH', path: '/v3/ip_pools/{pool_id}', area, operation: 'editPool', access: 'admin' },
  { method: 'DELETE', path: '/v3/ip_pools/{pool_id}', area, operation: 'deletePool', access: 'admin' },
  { method: 'GET', path: '/v3/ip_pools/{pool_id}/domains', area, operation: 'listPoolDomains', access: 'read' },
  { method: 'PUT', path: '/v3/ip_pools/{pool_id}/ips/{ip}', area, operation: 'addPoolIp', access: 'admin' },
  { method: 'DELETE', path: '/v3/ip_pools/{pool_id}/ips/{ip}', area, operation: 'removePoolIp', access: 'admin' },
  { method: 'POST', path: '/v3/ip_pools/{pool_id}/ips.json', area, operation: 'addPoolIps', access: 'admin' },
  { method: 'PUT', path: '/v3/ip_pools/{pool_id}/delegate', area, operation: 'delegatePool', access: 'admin' },
  { method: 'DELETE', path: '/v3/ip_pools/{pool_id}/delegate', area, operation: 'revokePoolDelegation', access: 'admin' },
  // IP warm-up (functions/sending-ips/warmup.ts): a documented stage plan, honoured by the send worker.
  { method: 'GET', path: '/v3/ip_warmups', area, operation: 'listWarmups', access: 'read' },
  { method: 'GET', path: '/v3/ip_warmups/{ip}', area, operation: 'getWarmup', access: 'read' },
  { method: 'POST', path: '/v3/ip_warmups/{ip}', area, operation: 'startWarmup', access: 'admin' },
  { method: 'DELETE', path: '/v3/ip_warmups/{ip}', area, operation: 'cancelWarmup', access: 'admin' },
  // IP delegation to subaccounts (contract 12.3), the same delegations seen from the subaccounts' side.
  { method: 'GET', path: '/v5/accounts/subaccounts/ip_pools/all', area, operation: 'listPoolDelegations', access: 'read' },
  { method: 'PUT', path: '/v5/accounts/subaccounts/{subaccount_id}/ip_pool', area, operation: 'delegatePoolToSubaccount', access: 'admin' },
  { method: 'DELETE', path: '/v5/accounts/subaccounts/{subaccount_id}/ip_pool', area, operation: 'revokeSubaccountPool', access: 'admin' },
  { method: 'PUT', path: '/v5/accounts/subaccounts/{subaccount_id}/ip', area, operation: 'delegateIpToSubaccount', access: 'admin' },
] as const satisfies readonly RouteSpec[];
