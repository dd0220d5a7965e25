import type { RouteSpec } from '../platform/http/route';

/**
 * Tracking TLS certificates (contract §3.3). `{domain}` is a tracking host, `web_prefix.domain`,
 * not a sending domain: no `domainParam`, so domain-bound keys do not reach these routes.
 */
export const certificateRoutes = [
  { method: 'POST', path: '/v2/x509/{domain}', area: 'certificates', operation: 'generate', access: 'write' },
  { method: 'PUT', path: '/v2/x509/{domain}', area: 'certificates', operation: 'regenerate', access: 'write' },
  { method: 'GET', path: '/v2/x509/{domain}/status', area: 'certificates', operation: 'status', access: 'read' },
] as const satisfies readonly RouteSpec[];
