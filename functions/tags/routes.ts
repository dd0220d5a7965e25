import type { RouteSpec } from '../platform/http/route';

const area = 'tags';
const domainParam = 'domain';

/**
 * The tag registry's views (contract §7.4): account-wide under /v1/analytics/tags (JSON bodies),
 * and the deprecated per-domain /v3/{domain}/tags with its path and query-style twins. Tag stats
 * and aggregates (`.../stats...`) belong to the analytics area; their paths are longer, so they
 * never collide with these. Reads need `read`, changes `write`.
 */
export const tagRoutes = [
  { method: 'POST', path: '/v1/analytics/tags', area, operation: 'listAccountTags', access: 'read' },
  { method: 'PUT', path: '/v1/analytics/tags', area, operation: 'updateAccountTag', access: 'write' },
  { method: 'DELETE', path: '/v1/analytics/tags', area, operation: 'deleteAccountTag', access: 'write' },
  { method: 'GET', path: '/v1/analytics/tags/limits', area, operation: 'accountTagLimits', access: 'read' },
  { method: 'GET', path: '/v3/{domain}/tags', area, operation: 'listDomainTags', access: 'read', domainParam },
  { method: 'GET', path: '/v3/{domain}/tags/{tag}', area, operation: 'getDomainTag', access: 'read', domainParam },
  { method: 'PUT', path: '/v3/{domain}/tags/{tag}', area, operation: 'updateDomainTag', access: 'write', domainParam },
  { method: 'DELETE', path: '/v3/{domain}/tags/{tag}', area, operation: 'deleteDomainTag', access: 'write', domainParam },
  { method: 'GET', path: '/v3/{domain}/tag', area, operation: 'getDomainTag', access: 'read', domainParam },
  { method: 'PUT', path: '/v3/{domain}/tag', area, operation: 'updateDomainTag', access: 'write', domainParam },
  { method: 'DELETE', path: '/v3/{domain}/tag', area, operation: 'deleteDomainTag', access: 'write', domainParam },
  { method: 'GET', path: '/v3/domains/{domain}/limits/tag', area, operation: 'domainTagLimits', access: 'read', domainParam },
] as const satisfies readonly RouteSpec[];
