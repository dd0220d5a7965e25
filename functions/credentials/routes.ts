import type { RouteSpec } from '../platform/http/route';

/** SMTP credentials of a domain (contract §12.2). Listing shows logins only; changes need `write`. */
export const credentialRoutes = [
  { method: 'GET', path: '/v3/domains/{name}/credentials', area: 'credentials', operation: 'listCredentials', access: 'read', domainParam: 'name' },
  { method: 'POST', path: '/v3/domains/{name}/credentials', area: 'credentials', operation: 'createCredentials', access: 'write', domainParam: 'name', changesCredentials: true },
  { method: 'DELETE', path: '/v3/domains/{name}/credentials', area: 'credentials', operation: 'deleteAllCredentials', access: 'write', domainParam: 'name', changesCredentials: true },
  { method: 'PUT', path: '/v3/domains/{name}/credentials/{spec}', area: 'credentials', operation: 'changePassword', access: 'write', domainParam: 'name', changesCredentials: true },
  { method: 'DELETE', path: '/v3/domains/{name}/credentials/{spec}', area: 'credentials', operation: 'deleteCredential', access: 'write', domainParam: 'name', changesCredentials: true },
] as const satisfies readonly RouteSpec[];
