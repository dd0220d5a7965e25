import type { RouteSpec } from '../../platform/http/route';

const area = 'optimize/blocklists';

/** IP and domain blocklist monitoring (optimize contract 1.6, 1.7; the legacy IP events and lists routes too). */
export const blocklistRoutes = [
  { method: 'GET', path: '/v1/inboxready/ip_addresses', area, operation: 'listMonitoredIps', access: 'read' },
  { method: 'POST', path: '/v1/inboxready/ip_addresses', area, operation: 'addMonitoredIp', access: 'write' },
  { method: 'GET', path: '/v1/inboxready/ip_addresses/{ip}', area, operation: 'getMonitoredIp', access: 'read' },
  { method: 'PUT', path: '/v1/inboxready/ip_addresses/{ip}', area, operation: 'updateMonitoredIp', access: 'write' },
  { method: 'DELETE', path: '/v1/inboxready/ip_addresses/{ip}', area, operation: 'removeMonitoredIp', access: 'write' },
  { method: 'GET', path: '/v1/blocklist-monitoring/events', area, operation: 'ipBlocklistEvents', access: 'read' },
  { method: 'GET', path: '/v1/blocklist-monitoring/blocklists', area, operation: 'ipBlocklists', access: 'read' },
  { method: 'GET', path: '/v1/monitoring/domains', area, operation: 'listMonitoredDomains', access: 'read' },
  { method: 'GET', path: '/v1/monitoring/domains/events', area, operation: 'domainBlocklistEvents', access: 'read' },
  { method: 'GET', path: '/v1/monitoring/domains/{domain}/events', area, operation: 'monitoredDomainEvents', access: 'read' },
  { method: 'GET', path: '/v1/monitoring/domains/{domain}/blocklists', area, operation: 'monitoredDomainBlocklists', access: 'read' },
] as const satisfies readonly RouteSpec[];
