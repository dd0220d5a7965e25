import type { RouteSpec } from '../platform/http/route';

export const messageRoutes = [
  { method: 'POST', path: '/v3/{domain}/messages', area: 'messages', operation: 'sendMessage', access: 'send', domainParam: 'domain' },
  { method: 'POST', path: '/v3/{domain}/messages.mime', area: 'messages', operation: 'sendMime', access: 'send', domainParam: 'domain' },
  { method: 'GET', path: '/v3/domains/{domain}/messages/{storageKey}', area: 'messages', operation: 'getStoredMessage', access: 'read', domainParam: 'domain' },
  { method: 'POST', path: '/v3/domains/{domain}/messages/{storageKey}', area: 'messages', operation: 'resendMessage', access: 'send', domainParam: 'domain' },
] as const satisfies readonly RouteSpec[];
