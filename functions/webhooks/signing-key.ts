import { replaceSealedSecret, sealedSecret } from '../data/sealed-secret';
import { randomHex } from '../platform/ids';
import { TtlCache } from './ttl-cache';
import { defineEntity } from '../data/key-registry';
import type { Key } from '../data/store';

export const signingKeyKeys = defineEntity('webhook signing key', {
  httpSigningKey: { what: "the account's webhook signing key, sealed with the platform key", pk: 'ACCT#<account>', sk: 'HTTPSIGNINGKEY', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'HTTPSIGNINGKEY' }) },
});

/**
 * The account's HTTP webhook signing key (`key-` and 32 hex digits, as Mailgun's look). It is made
 * on first use, stored sealed with the platform encryption key, and never stored as an API key:
 * the authorizer finds keys by the hash of their secret under APIKEY#, where this one never is,
 * so it authenticates nothing.
 */
const newKey = () => `key-${randomHex(16)}`;

const cache = new TtlCache<string>();

/** The account's key, created if it has none yet. */
export const signingKey = (accountId: string): Promise<string> => sealedSecret(signingKeyKeys.httpSigningKey(accountId), newKey);

/** Replaces the key; webhooks sent from now on (once caches expire) are signed with the new one. */
export async function rotateSigningKey(accountId: string): Promise<string> {
  const fresh = await replaceSealedSecret(signingKeyKeys.httpSigningKey(accountId), newKey);
  cache.forget(accountId);
  return fresh;
}

/** The key for signing deliveries: cached in the container like the webhook configuration. */
export function signingKeyForDelivery(accountId: string): Promise<string> {
  return cache.get(accountId, () => signingKey(accountId));
}
