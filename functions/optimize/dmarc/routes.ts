import type { RouteSpec } from '../../platform/http/route';

const area = 'optimize/dmarc';

/** DMARC (optimize contract 1.2, 2.1): rua setup, report intake (mail and upload) and the dashboards' routes. */
export const dmarcRoutes = [
  { method: 'GET', path: '/v1/dmarc/records/{domain}', area, operation: 'dmarcRecord', access: 'read' },
  { method: 'GET', path: '/v1/dmarc/setup', area, operation: 'dmarcSetup', access: 'read' },
  { method: 'POST', path: '/v1/dmarc/reports', area, operation: 'uploadDmarcReports', access: 'write' },
  { method: 'GET', path: '/v1/dmarc/domains', area, operation: 'dmarcDomains', access: 'read' },
  { method: 'GET', path: '/v1/dmarc/domains/{domain}', area, operation: 'dmarcDomain', access: 'read' },
  { method: 'GET', path: '/v1/dmarc/domains/{domain}/s/{source}', area, operation: 'dmarcSource', access: 'read' },
  { method: 'GET', path: '/v1/dmarc/domains/{domain}/s/{source}/h/{host}', area, operation: 'dmarcHost', access: 'read' },
  { method: 'GET', path: '/v1/dmarc/domains/{domain}/s/{source}/h/{host}/ip/{ip}', area, operation: 'dmarcIp', access: 'read' },
] as const satisfies readonly RouteSpec[];
