import { keys } from '../data/db';
import { getItem, putItem } from '../data/store';
import { randomHex } from '../platform/ids';
import { decryptSecret, encryptSecret } from '../platform/secrets';
import { TtlCache } from './ttl-cache';

/**
 * The account's HTTP webhook signing key (`key-` and 32 hex digits, as Mailgun's look). It is made
 * on first use, stored sealed with the platform encryption key, and never stored as an API key:
 * the authorizer finds keys by the hash of their secret under APIKEY#, where this one never is,
 * so it authenticates nothing.
 */
interface SigningKeyItem {
  accountId: string;
  sealed: string;
  createdAt: string;
}

const newKey = () => `key-${randomHex(16)}`;

const cache = new TtlCache<string>();

/** The account's key, created if it has none yet (two racing creators agree on the first write). */
export async function signingKey(accountId: string): Promise<string> {
  const key = keys.httpSigningKey(accountId);
  const stored = await getItem<SigningKeyItem>(key, { consistent: true });
  if (stored) return decryptSecret(stored.sealed);
  const fresh = newKey();
  const item: SigningKeyItem = { accountId, sealed: await encryptSecret(fresh), createdAt: new Date().toISOString() };
  if (await putItem(key, item, { ifAbsent: true })) return fresh;
  const winner = await getItem<SigningKeyItem>(key, { consistent: true });
  return decryptSecret(winner!.sealed);
}

/** Replaces the key; webhooks sent from now on (once caches expire) are signed with the new one. */
export async function rotateSigningKey(accountId: string): Promise<string> {
  const fresh = newKey();
  const item: SigningKeyItem = { accountId, sealed: await encryptSecret(fresh), createdAt: new Date().toISOString() };
  await putItem(keys.httpSigningKey(accountId), item);
  cache.forget(accountId);
  return fresh;
}

/** The key for signing deliveries: cached in the container like the webhook configuration. */
export function signingKeyForDelivery(accountId: string): Promise<string> {
  return cache.get(accountId, () => signingKey(accountId));
}
