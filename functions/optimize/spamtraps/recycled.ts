import { getItems, putItem, type Key } from '../../data/store';
import type { EventData } from '../../events/event-store';
import { defineEntity } from '../../data/key-registry';

const unknownUserKeys = defineEntity('unknown users', {
  unknownUser: { what: 'an address a receiver said does not exist (a hard "user unknown" bounce): one that later accepts mail may be a recycled trap', pk: 'ACCT#<account>#UNKNOWNUSERS', sk: '<address*>', key: (accountId: string, address: string): Key => ({ pk: `ACCT#${accountId}#UNKNOWNUSERS`, sk: address }) },
});

/**
 * Suspected recycled traps (optimize contract 2.4): mailbox providers turn abandoned addresses into
 * traps after a period of refusing them, so an address that once hard-bounced as unknown and later
 * accepts mail is counted as a suspected recycled trap hit.
 */
const USER_UNKNOWN = /\b5\.1\.1\b|user unknown|unknown user|no such user|does not exist|address rejected|mailbox unavailable/i;

/** A permanent failure in which the receiver said the address does not exist. */
export function isUnknownUserBounce(data: EventData): boolean {
  if (data.event !== 'failed' || data['severity'] !== 'permanent' || data['reason'] !== 'bounce') return false;
  const status = (data['delivery-status'] ?? {}) as { description?: unknown; message?: unknown; code?: unknown };
  if (status.description === 'NoEmail') return true;
  return USER_UNKNOWN.test(`${String(status.message ?? '')} ${String(status.description ?? '')}`);
}

export async function rememberUnknownUser(accountId: string, address: string, at: number): Promise<void> {
  // The first bounce is the one that dates it; later ones change nothing.
  await putItem(unknownUserKeys.unknownUser(accountId, address.toLowerCase()), { accountId, address: address.toLowerCase(), bouncedAt: at }, { ifAbsent: true });
}

export const unknownUserKey = (accountId: string, address: string) => `${accountId}\n${address.toLowerCase()}`;

/** When each of these (account, address) pairs first bounced as an unknown user, in one batched read. */
export async function unknownSince(pairs: ReadonlyArray<{ accountId: string; address: string }>): Promise<Map<string, number>> {
  if (!pairs.length) return new Map();
  const found = await getItems<{ accountId: string; address: string; bouncedAt: number }>(pairs.map((p) => unknownUserKeys.unknownUser(p.accountId, p.address.toLowerCase())));
  return new Map(found.map((item) => [unknownUserKey(item.accountId, item.address), item.bouncedAt]));
}
