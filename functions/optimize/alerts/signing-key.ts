import { keys } from '../../data/db';
import { getItem, putItem } from '../../data/store';
import { randomHex } from '../../platform/ids';
import { decryptSecret, encryptSecret } from '../../platform/secrets';

/**
 * The account's alerts webhook signing key: 32 hex digits, apart from the send webhooks' key, made
 * on first use and stored sealed with the platform key. Deliveries read it every time (no cache),
 * so a rotated key stops signing at once.
 */
interface AlertSigningKeyItem {
  sealed: string;
  createdAt: string;
}

const newKey = () => randomHex(16);

async function store(accountId: string, fresh: string, ifAbsent: boolean): Promise<boolean> {
  const item: AlertSigningKeyItem = { sealed: await encryptSecret(fresh), createdAt: new Date().toISOString() };
  return putItem(keys.alertSigningKey(accountId), item, { ifAbsent });
}

/** The account's key, created if it has none yet (two racing creators agree on the first write). */
export async function alertSigningKey(accountId: string): Promise<string> {
  const stored = await getItem<AlertSigningKeyItem>(keys.alertSigningKey(accountId), { consistent: true });
  if (stored) return decryptSecret(stored.sealed);
  const fresh = newKey();
  if (await store(accountId, fresh, true)) return fresh;
  const winner = await getItem<AlertSigningKeyItem>(keys.alertSigningKey(accountId), { consistent: true });
  return decryptSecret(winner!.sealed);
}

/** Replaces the key: the next delivery is signed with the new one, the old one signs nothing more. */
export async function rotateAlertSigningKey(accountId: string): Promise<string> {
  const fresh = newKey();
  await store(accountId, fresh, false);
  return fresh;
}
