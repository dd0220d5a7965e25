import type { RouteSpec } from '../platform/http/route';

export const eventRoutes = [
  { method: 'GET', path: '/v3/{domain}/events', area: 'events', operation: 'listEvents', access: 'read', domainParam: 'domain' },
  { method: 'GET', path: '/v3/{domain}/events/{token}', area: 'events', operation: 'eventsPage', access: 'read', domainParam: 'domain' },
] as const satisfies readonly RouteSpec[];
