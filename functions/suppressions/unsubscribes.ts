import { ALL_TAGS } from './lists';
import { deleteEntry, getEntry, putEntry, type UnsubscribeItem } from './suppression-store';

/** Whether an unsubscribe with `unsubscribedTags` stops a message carrying `messageTags`. */
export function unsubscribeCovers(unsubscribedTags: readonly string[], messageTags: readonly string[]): boolean {
  if (unsubscribedTags.length === 0 || unsubscribedTags.includes(ALL_TAGS)) return true;
  return messageTags.some((tag) => unsubscribedTags.includes(tag));
}

/**
 * Unsubscribes an address from `tags`, keeping the tags it was already unsubscribed from: one
 * unsubscribe per tag (a click on a tagged message's link, say) adds up rather than replacing.
 * Read-then-write: two concurrent unsubscribes of one address can keep only the later's tags.
 */
export async function addUnsubscribe(
  accountId: string,
  domain: string,
  address: string,
  tags: readonly string[] = [ALL_TAGS],
  createdAt = new Date(),
): Promise<UnsubscribeItem> {
  const owner = domain.toLowerCase();
  const key = address.trim().toLowerCase();
  const existing = await getEntry(accountId, owner, 'unsubscribes', key);
  const item: UnsubscribeItem = {
    list: 'unsubscribes',
    accountId,
    domain: owner,
    address: key,
    tags: [...new Set([...(existing?.tags ?? []), ...(tags.length ? tags : [ALL_TAGS])])],
    createdAt: createdAt.toISOString(),
  };
  await putEntry(item);
  return item;
}

/** Removes one tag from an unsubscribe; the entry goes when its last tag does. */
export async function removeUnsubscribeTag(accountId: string, domain: string, address: string, tag: string): Promise<'removed' | 'no-entry' | 'no-tag'> {
  const existing = await getEntry(accountId, domain, 'unsubscribes', address);
  if (!existing) return 'no-entry';
  if (!existing.tags.includes(tag)) return 'no-tag';
  const tags = existing.tags.filter((t) => t !== tag);
  if (tags.length === 0) await deleteEntry(accountId, domain, 'unsubscribes', address);
  else await putEntry({ ...existing, tags });
  return 'removed';
}
