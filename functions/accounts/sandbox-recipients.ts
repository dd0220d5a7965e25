import { createHash, randomBytes } from 'node:crypto';
import { defineEntity } from '../data/key-registry';
import { addToCounter, deleteIfPresent, getItem, putItem, queryAll, updateItem, type Key } from '../data/store';
import { BadRequest, NotFound } from '../platform/errors';

/**
 * A sandbox domain sends only to its account's authorized recipients, as Mailgun's does: at most
 * five addresses, each activated by its owner through the confirmation link mailed to it
 * (sandbox-confirmation.ts). The send worker fails any other recipient of a sandbox message.
 */
const MAX_SANDBOX_RECIPIENTS = 5;

const sandboxKeys = defineEntity(
  'sandbox recipients',
  {
    sandboxRecipient: { what: "an authorized recipient of the account's sandbox domain (`/v5/sandbox/auth_recipients`)", pk: 'ACCT#<account>#SANDBOXRCPT', sk: '<email*>', key: (accountId: string, email = ''): Key => ({ pk: `ACCT#${accountId}#SANDBOXRCPT`, sk: email }) },
    sandboxRecipientCount: { what: 'how many the account has, against the five allowed', pk: 'ACCT#<account>', sk: 'SANDBOXRCPTCOUNT', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'SANDBOXRCPTCOUNT' }) },
    sandboxActivation: { what: "a confirmation link's token, by its hash: all a recipient's click carries", pk: 'SANDBOXACTIVATION#<sha256>', sk: 'TOKEN', key: (tokenHash: string): Key => ({ pk: `SANDBOXACTIVATION#${tokenHash}`, sk: 'TOKEN' }) },
  },
  [{ what: "an account's authorized recipients", pk: 'ACCT#<account>#SANDBOXRCPT' }],
);
/** How long a confirmation link works. */
const LINK_LIFETIME_SECONDS = 7 * 24 * 3600;

export interface SandboxRecipientItem {
  email: string;
  activated: boolean;
  createdAt: string;
  activatedAt?: string;
}

interface ActivationItem {
  accountId: string;
  email: string;
  ttl: number;
}

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export const listSandboxRecipients = (accountId: string) => queryAll<SandboxRecipientItem>(sandboxKeys.sandboxRecipient(accountId), '');

/** The addresses the account's sandbox domain may send to. */
export async function authorizedRecipients(accountId: string): Promise<Set<string>> {
  return new Set((await listSandboxRecipients(accountId)).filter((r) => r.activated).map((r) => r.email));
}

/**
 * Adds an address, not yet activated, and makes its confirmation token (only its hash is kept).
 * Asking again for an address already listed issues a new link for it; a sixth address is refused.
 */
export async function addSandboxRecipient(accountId: string, email: string, now = Date.now()): Promise<{ recipient: SandboxRecipientItem; token?: string }> {
  const address = email.trim().toLowerCase();
  const existing = await getItem<SandboxRecipientItem>(sandboxKeys.sandboxRecipient(accountId, address), { consistent: true });
  if (existing?.activated) return { recipient: existing };
  // The count is taken before the item, with a bound, so two requests at once cannot make six.
  if (!existing && (await addToCounter(sandboxKeys.sandboxRecipientCount(accountId), 'count', 1, { atMost: MAX_SANDBOX_RECIPIENTS })) === undefined) {
    throw new BadRequest(`Only ${MAX_SANDBOX_RECIPIENTS} sandbox recipients are allowed`);
  }
  const recipient: SandboxRecipientItem = existing ?? { email: address, activated: false, createdAt: new Date(now).toISOString() };
  if (!existing) await putItem(sandboxKeys.sandboxRecipient(accountId, address), recipient);
  const token = randomBytes(24).toString('base64url');
  const activation: ActivationItem = { accountId, email: address, ttl: Math.floor(now / 1000) + LINK_LIFETIME_SECONDS };
  await putItem(sandboxKeys.sandboxActivation(tokenHash(token)), activation);
  return { recipient, token };
}

export async function removeSandboxRecipient(accountId: string, email: string): Promise<void> {
  if (!(await deleteIfPresent(sandboxKeys.sandboxRecipient(accountId, email.trim().toLowerCase())))) throw new NotFound('Sandbox recipient not found');
  await addToCounter(sandboxKeys.sandboxRecipientCount(accountId), 'count', -1);
}

/** Activates the address a confirmation link names; undefined for a link unknown, expired, or whose address was removed. */
export async function activateSandboxRecipient(token: string, now = Date.now()): Promise<{ accountId: string; email: string } | undefined> {
  const activation = await getItem<ActivationItem>(sandboxKeys.sandboxActivation(tokenHash(token)), { consistent: true });
  if (!activation || activation.ttl * 1000 <= now) return undefined;
  const key = sandboxKeys.sandboxRecipient(activation.accountId, activation.email);
  if (!(await getItem<SandboxRecipientItem>(key, { consistent: true }))) return undefined;
  await updateItem(key, { activated: true, activatedAt: new Date(now).toISOString() });
  return { accountId: activation.accountId, email: activation.email };
}
