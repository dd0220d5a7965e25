import type { RouteSpec } from '../platform/http/route';

/**
 * Webhook configuration (contract §4) and the account's webhook signing key (§5). Reading the
 * signing key needs `write`: it is a secret, whoever holds it can forge webhooks to the account's
 * receivers, so read-only roles (basic, support) do not see it, while developers, who build the
 * receivers, do. Rotating it needs `admin`: it is an account-wide setting that stops every
 * receiver's verification at once until each is given the new key, like managing API keys.
 */
const area = 'webhooks';
const domainParam = 'domain';

export const webhookRoutes = [
  { method: 'GET', path: '/v3/domains/{domain}/webhooks', area, operation: 'listDomainWebhooks', access: 'read', domainParam },
  { method: 'POST', path: '/v3/domains/{domain}/webhooks', area, operation: 'createDomainWebhook', access: 'write', domainParam },
  { method: 'GET', path: '/v3/domains/{domain}/webhooks/{name}', area, operation: 'getDomainWebhook', access: 'read', domainParam },
  { method: 'PUT', path: '/v3/domains/{domain}/webhooks/{name}', area, operation: 'updateDomainWebhook', access: 'write', domainParam },
  { method: 'DELETE', path: '/v3/domains/{domain}/webhooks/{name}', area, operation: 'deleteDomainWebhook', access: 'write', domainParam },
  { method: 'PUT', path: '/v3/domains/{domain}/webhooks/{name}/test', area, operation: 'testDomainWebhook', access: 'write', domainParam },
  { method: 'POST', path: '/v4/domains/{domain}/webhooks', area, operation: 'addWebhookUrl', access: 'write', domainParam },
  { method: 'PUT', path: '/v4/domains/{domain}/webhooks', area, operation: 'replaceWebhookUrl', access: 'write', domainParam },
  { method: 'DELETE', path: '/v4/domains/{domain}/webhooks', area, operation: 'removeWebhookUrls', access: 'write', domainParam },
  { method: 'GET', path: '/v1/webhooks', area, operation: 'listAccountWebhooks', access: 'read' },
  { method: 'POST', path: '/v1/webhooks', area, operation: 'createAccountWebhook', access: 'write' },
  { method: 'DELETE', path: '/v1/webhooks', area, operation: 'deleteAccountWebhooks', access: 'write' },
  { method: 'GET', path: '/v1/webhooks/{id}', area, operation: 'getAccountWebhook', access: 'read' },
  { method: 'PUT', path: '/v1/webhooks/{id}', area, operation: 'replaceAccountWebhook', access: 'write' },
  { method: 'DELETE', path: '/v1/webhooks/{id}', area, operation: 'deleteAccountWebhook', access: 'write' },
  { method: 'GET', path: '/v5/accounts/http_signing_key', area, operation: 'getSigningKey', access: 'write', changesCredentials: true },
  { method: 'POST', path: '/v5/accounts/http_signing_key', area, operation: 'rotateSigningKey', access: 'admin', changesCredentials: true },
] as const satisfies readonly RouteSpec[];
