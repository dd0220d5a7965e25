import type { RouteSpec } from '../../platform/http/route';

const area = 'admin/dynamic-pools';

/** Dynamic IP pools (contract 12.5): reputation bands of the account's IPs, domains moved between them (functions/sending-ips/dynamic-pools.ts). */
export const dynamicPoolRoutes = [
  { method: 'GET', path: '/v3/dynamic_pools', area, operation: 'listDynamicPools', access: 'read' },
  { method: 'POST', path: '/v3/dynamic_pools/all', area, operation: 'setDynamicPools', access: 'admin' },
  { method: 'DELETE', path: '/v3/dynamic_pools/all', area, operation: 'deleteDynamicPools', access: 'admin' },
  { method: 'PATCH', path: '/v3/dynamic_pools/{pool_name}', area, operation: 'editDynamicPool', access: 'admin' },
  { method: 'POST', path: '/v3/dynamic_pools/{pool_name}/{ip}', area, operation: 'addDynamicPoolIp', access: 'admin' },
  { method: 'POST', path: '/v3/domains/{name}/dynamic_pools', area, operation: 'enrollDomain', access: 'write', domainParam: 'name' },
  { method: 'DELETE', path: '/v3/domains/{name}/dynamic_pools', area, operation: 'unenrollDomain', access: 'write', domainParam: 'name' },
  { method: 'GET', path: '/v3/domains/dynamic_pools/assignable', area, operation: 'listAssignableDomains', access: 'read' },
  { method: 'POST', path: '/v3/domains/all/dynamic_pools/enroll', area, operation: 'enrollAllDomains', access: 'admin' },
  { method: 'GET', path: '/v1/dynamic_pools/domains', area, operation: 'listEnrolledDomains', access: 'read' },
  { method: 'GET', path: '/v1/dynamic_pools/domains/{name}/preview', area, operation: 'previewDomainBand', access: 'read', domainParam: 'name' },
  { method: 'GET', path: '/v1/dynamic_pools/domains/{name}/history', area, operation: 'domainBandHistory', access: 'read', domainParam: 'name' },
  { method: 'PUT', path: '/v1/dynamic_pools/domains/{name}/override', area, operation: 'overrideDomainBand', access: 'admin', domainParam: 'name' },
  { method: 'DELETE', path: '/v1/dynamic_pools/domains/{name}/override', area, operation: 'clearDomainBandOverride', access: 'admin', domainParam: 'name' },
  { method: 'GET', path: '/v1/dynamic_pools/history', area, operation: 'listBandHistory', access: 'read' },
] as const satisfies readonly RouteSpec[];
