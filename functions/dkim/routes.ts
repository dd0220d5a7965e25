import type { RouteSpec } from '../platform/http/route';

/**
 * Domain keys and their rotation. `/v1/dkim/keys` names its domain in the query, so domain-kind
 * keys (which only reach routes naming their domain in the path) use the per-domain routes.
 */
export const dkimRoutes = [
  { method: 'GET', path: '/v1/dkim/keys', area: 'dkim', operation: 'listKeys', access: 'read' },
  { method: 'POST', path: '/v1/dkim/keys', area: 'dkim', operation: 'createKey', access: 'write', changesCredentials: true },
  { method: 'DELETE', path: '/v1/dkim/keys', area: 'dkim', operation: 'deleteKey', access: 'write', changesCredentials: true },
  { method: 'GET', path: '/v4/domains/{authority}/keys', area: 'dkim', operation: 'listDomainKeys', access: 'read', domainParam: 'authority' },
  { method: 'PUT', path: '/v4/domains/{authority}/keys/{selector}/activate', area: 'dkim', operation: 'activateKey', access: 'write', domainParam: 'authority', changesCredentials: true },
  { method: 'PUT', path: '/v4/domains/{authority}/keys/{selector}/deactivate', area: 'dkim', operation: 'deactivateKey', access: 'write', domainParam: 'authority', changesCredentials: true },
  { method: 'PUT', path: '/v3/domains/{name}/dkim_authority', area: 'dkim', operation: 'setAuthority', access: 'write', domainParam: 'name', changesCredentials: true },
  { method: 'PUT', path: '/v3/domains/{name}/dkim_selector', area: 'dkim', operation: 'setSelector', access: 'write', domainParam: 'name', changesCredentials: true },
  { method: 'PUT', path: '/v1/dkim_management/domains/{name}/rotation', area: 'dkim', operation: 'setRotation', access: 'write', domainParam: 'name', errorField: 'Reason', changesCredentials: true },
  { method: 'POST', path: '/v1/dkim_management/domains/{name}/rotate', area: 'dkim', operation: 'rotate', access: 'write', domainParam: 'name', errorField: 'Reason', changesCredentials: true },
] as const satisfies readonly RouteSpec[];
