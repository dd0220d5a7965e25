/**
 * The role matrix, written once. Every route declares the access it needs; a key's role grants a
 * set of accesses. Domain-kind keys are further limited to routes naming their own domain.
 */
export const roles = ['admin', 'developer', 'support', 'basic', 'sending'] as const;
export type Role = (typeof roles)[number];

export const keyKinds = ['domain', 'user', 'web'] as const;
export type KeyKind = (typeof keyKinds)[number];

/**
 * - read: GET of account and domain resources.
 * - write: changes to sending configuration (domains, templates, webhooks, routes, lists).
 * - send: submitting and resending messages.
 * - suppress: editing suppression lists (support staff clean up bounces).
 * - admin: API keys, users, subaccounts, account settings.
 * - public: no API key at all. Only for what mail clients fetch (tracking links) and what a
 *   preview share's visitors open; such an operation authenticates the request itself, by the
 *   link's signature or the share's unguessable uuid.
 */
export type Access = 'read' | 'write' | 'send' | 'suppress' | 'admin' | 'public';

export const grants: Record<Role, readonly Access[]> = {
  admin: ['read', 'write', 'send', 'suppress', 'admin'],
  developer: ['read', 'write', 'send', 'suppress'],
  support: ['read', 'suppress'],
  basic: ['read'],
  sending: ['send'],
};

export function roleAllows(role: Role, access: Access): boolean {
  return grants[role].includes(access);
}
