import type { RouteSpec } from '../platform/http/route';

export const messageRoutes = [
  { method: 'POST', path: '/v3/{domain}/messages', area: 'messages', operation: 'sendMessage', access: 'send', domainParam: 'domain' },
  { method: 'POST', path: '/v3/{domain}/messages.mime', area: 'messages', operation: 'sendMime', access: 'send', domainParam: 'domain' },
  { method: 'POST', path: '/v3/domains/{domain}/messages/{storageKey}', area: 'messages', operation: 'resendMessage', access: 'send', domainParam: 'domain' },
  { method: 'GET', path: '/v3/domains/{name}/sending_queues', area: 'messages', operation: 'sendingQueues', access: 'read', domainParam: 'name' },
  { method: 'DELETE', path: '/v3/{domain}/envelopes', area: 'messages', operation: 'clearQueue', access: 'write', domainParam: 'domain' },
] as const satisfies readonly RouteSpec[];
