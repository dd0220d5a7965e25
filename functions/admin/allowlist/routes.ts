import type { RouteSpec } from '../../platform/http/route';

const area = 'admin/allowlist';

/** The IP allowlist (contract 12.4): addresses and CIDRs the account's API keys and SMTP logins may be used from. */
export const allowlistRoutes = [
  { method: 'GET', path: '/v2/ip_whitelist', area, operation: 'listAllowedAddresses', access: 'read' },
  { method: 'POST', path: '/v2/ip_whitelist', area, operation: 'addAllowedAddress', access: 'admin', changesCredentials: true },
  { method: 'PUT', path: '/v2/ip_whitelist', area, operation: 'updateAllowedAddress', access: 'admin', changesCredentials: true },
  { method: 'DELETE', path: '/v2/ip_whitelist', area, operation: 'deleteAllowedAddress', access: 'admin', changesCredentials: true },
] as const satisfies readonly RouteSpec[];
