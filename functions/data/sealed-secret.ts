import { decryptSecret, encryptSecret } from '../platform/secrets';
import { getItem, putItem, type Key } from './store';

/**
 * A secret the platform makes for an account and keeps in one table item, sealed with the platform
 * encryption key (a signing key): made on first use, never stored in the clear.
 */
interface SealedSecretItem {
  sealed: string;
  createdAt: string;
}

async function store(key: Key, secret: string, ifAbsent: boolean): Promise<boolean> {
  const item: SealedSecretItem = { sealed: await encryptSecret(secret), createdAt: new Date().toISOString() };
  return putItem(key, item, { ifAbsent });
}

/** The secret at `key`, made with `make` if there is none yet (two racing creators agree on the first write). */
export async function sealedSecret(key: Key, make: () => string): Promise<string> {
  const stored = await getItem<SealedSecretItem>(key, { consistent: true });
  if (stored) return decryptSecret(stored.sealed);
  const fresh = make();
  if (await store(key, fresh, true)) return fresh;
  const winner = await getItem<SealedSecretItem>(key, { consistent: true });
  return decryptSecret(winner!.sealed);
}

/** Replaces the secret at `key` with a new one from `make`, and answers it. */
export async function replaceSealedSecret(key: Key, make: () => string): Promise<string> {
  const fresh = make();
  await store(key, fresh, false);
  return fresh;
}
