import type { RouteSpec } from '../platform/http/route';

export const domainRoutes = [
  { method: 'GET', path: '/v4/domains', area: 'domains', operation: 'listDomains', access: 'read' },
  { method: 'POST', path: '/v4/domains', area: 'domains', operation: 'createDomain', access: 'write' },
  { method: 'GET', path: '/v4/domains/{name}', area: 'domains', operation: 'getDomain', access: 'read', domainParam: 'name' },
  { method: 'PUT', path: '/v4/domains/{name}', area: 'domains', operation: 'updateDomain', access: 'write', domainParam: 'name' },
  { method: 'PUT', path: '/v4/domains/{name}/verify', area: 'domains', operation: 'verifyDomain', access: 'write', domainParam: 'name' },
  { method: 'DELETE', path: '/v3/domains/{name}', area: 'domains', operation: 'deleteDomain', access: 'write', domainParam: 'name' },
  { method: 'GET', path: '/v3/domains/{name}/tracking', area: 'domains', operation: 'getTracking', access: 'read', domainParam: 'name' },
  { method: 'PUT', path: '/v3/domains/{name}/tracking/open', area: 'domains', operation: 'updateOpenTracking', access: 'write', domainParam: 'name' },
  { method: 'PUT', path: '/v3/domains/{name}/tracking/click', area: 'domains', operation: 'updateClickTracking', access: 'write', domainParam: 'name' },
  { method: 'PUT', path: '/v3/domains/{name}/tracking/unsubscribe', area: 'domains', operation: 'updateUnsubscribeTracking', access: 'write', domainParam: 'name' },
  { method: 'GET', path: '/v3/domains/{name}/connection', area: 'domains', operation: 'getConnection', access: 'read', domainParam: 'name' },
  { method: 'PUT', path: '/v3/domains/{name}/connection', area: 'domains', operation: 'updateConnection', access: 'write', domainParam: 'name' },
  { method: 'PUT', path: '/v3/domains/{name}/web_prefix', area: 'domains', operation: 'updateWebPrefix', access: 'write', domainParam: 'name' },
  { method: 'GET', path: '/v3/domains/{name}/ips', area: 'domains', operation: 'listDomainIps', access: 'read', domainParam: 'name' },
  { method: 'POST', path: '/v3/domains/{name}/ips', area: 'domains', operation: 'addDomainIp', access: 'write', domainParam: 'name' },
  { method: 'DELETE', path: '/v3/domains/{name}/ips/{ip}', area: 'domains', operation: 'removeDomainIp', access: 'write', domainParam: 'name' },
  { method: 'DELETE', path: '/v3/domains/{name}/pool/{ip}', area: 'domains', operation: 'removeDomainPool', access: 'write', domainParam: 'name' },
] as const satisfies readonly RouteSpec[];
