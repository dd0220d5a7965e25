import { isAllowlisted } from './allowlist';
import { SUPPRESSION_LISTS } from './lists';
import { blockingEntriesOf, clearList, putEntry } from './suppression-store';
import { addUnsubscribe, unsubscribeCovers } from './unsubscribes';

/**
 * What the sending pipeline asks the suppression lists before each recipient, and what it tells
 * them when SES reports a bounce, a complaint or an unsubscribe. Each call reads one or two items
 * by key (or one small index Query), never a list.
 */
export { addUnsubscribe, isAllowlisted };

/** Empties every list of a domain (when the domain is deleted). */
export async function clearDomainLists(accountId: string, domain: string): Promise<void> {
  for (const list of SUPPRESSION_LISTS) await clearList(accountId, domain, list);
}

export type SuppressionVerdict = 'suppress-bounce' | 'suppress-complaint' | 'suppress-unsubscribe';

/**
 * Why a message carrying `tags` must not go to `address` from `domain`, or undefined when it may.
 * A bounce or a complaint stops everything; an unsubscribe with `*` (or no tags) too, one with
 * tags only messages carrying one of them. One Query on gsi1 (eventually consistent).
 */
export async function suppressionFor(accountId: string, domain: string, address: string, tags: readonly string[]): Promise<SuppressionVerdict | undefined> {
  const entries = await blockingEntriesOf(accountId, domain.toLowerCase(), address.trim().toLowerCase());
  if (entries.some((entry) => entry.list === 'bounces')) return 'suppress-bounce';
  if (entries.some((entry) => entry.list === 'complaints')) return 'suppress-complaint';
  const unsubscribe = entries.find((entry) => entry.list === 'unsubscribes');
  if (unsubscribe && unsubscribeCovers(unsubscribe.tags, tags)) return 'suppress-unsubscribe';
  return undefined;
}

export interface NewBounce {
  address: string;
  /** SMTP reply code; 550 when unknown. */
  code?: string | number;
  error?: string;
  createdAt?: Date;
}

/**
 * Records a permanent failure. An allowlisted address (or one whose domain is allowlisted) is
 * never added: answers false then, true when the bounce was recorded. Two GetItems and a PutItem.
 */
export async function addBounce(accountId: string, domain: string, bounce: NewBounce): Promise<boolean> {
  const owner = domain.toLowerCase();
  const address = bounce.address.trim().toLowerCase();
  if (await isAllowlisted(accountId, owner, address)) return false;
  await putEntry({
    list: 'bounces',
    accountId,
    domain: owner,
    address,
    code: String(bounce.code ?? '550'),
    error: bounce.error ?? '',
    createdAt: (bounce.createdAt ?? new Date()).toISOString(),
  });
  return true;
}

/** Records a spam complaint (a feedback-loop report). One PutItem. */
export async function addComplaint(accountId: string, domain: string, complaint: { address: string; createdAt?: Date }): Promise<void> {
  await putEntry({
    list: 'complaints',
    accountId,
    domain: domain.toLowerCase(),
    address: complaint.address.trim().toLowerCase(),
    createdAt: (complaint.createdAt ?? new Date()).toISOString(),
  });
}
