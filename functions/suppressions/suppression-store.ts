import { mapLimit } from '../platform/concurrency';
import { deleteIfPresent, getItem, putItem, queryAll, queryPage, type IndexKey, type Key } from '../data/store';
import type { PivotPage } from '../platform/http/paging';
import { readPivotPage } from '../data/pivot-page';
import { defineEntity } from '../data/key-registry';
import type { BlockingList, SuppressionList } from './lists';

/**
 * Suppression entries in the single table: one item per address per list per domain.
 *
 * A partition per list keeps a page, a `term` filter and a delete-all to a key range of that list
 * alone. The sending pipeline asks about one address across three lists for every recipient, so
 * blocking entries are also indexed by address on gsi1: one small Query instead of three GetItems,
 * at the price of one index write per entry (suppression writes are rare next to sends). The
 * index is eventually consistent: an entry added a moment ago may take well under a second to
 * block sends. Allowlist entries are not indexed (they never block), and an allowlisted domain
 * is stored under its name, which has no `@` and so cannot collide with an address.
 */
const suppressionKeys = defineEntity(
  'suppressions',
  {
    entry: {
      what: 'one entry (API get/delete, allowlist check)',
      pk: 'ACCT#<account>#SUPP#<domain>#<list>',
      sk: 'ADDR#<address*>',
      key: (accountId: string, domain: string, list: SuppressionList, address = ''): Key => ({
        pk: `ACCT#${accountId}#SUPP#${domain}#${list}`,
        sk: `ADDR#${address}`,
      }),
    },
    byAddress: {
      what: 'a blocking entry (bounce, complaint, unsubscribe) by address, on gsi1',
      gsi1pk: 'ACCT#<account>#SUPP#<domain>#ADDR#<address*>',
      gsi1sk: 'LIST#<list>',
      key: (accountId: string, domain: string, address: string, list: BlockingList | '' = ''): IndexKey => ({
        gsi1pk: `ACCT#${accountId}#SUPP#${domain}#ADDR#${address}`,
        gsi1sk: `LIST#${list}`,
      }),
    },
  },
  [
    { what: 'a page of a list, address order, `term` prefix (and clearing a list)', pk: 'ACCT#<account>#SUPP#<domain>#<list>', skPrefix: 'ADDR#' },
    { what: 'what blocks sending to an address: one Query, at most three items', index: 'gsi1', pk: 'ACCT#<account>#SUPP#<domain>#ADDR#<address*>', skPrefix: 'LIST#' },
  ],
);

interface EntryBase {
  accountId: string;
  /** The sending domain whose list holds the entry, lower-cased. */
  domain: string;
  /** The entry's key, lower-cased: an address, or on the allowlist an address or a domain name. */
  address: string;
  /** ISO 8601; rendered RFC 1123 on the wire. */
  createdAt: string;
}

export interface BounceItem extends EntryBase {
  list: 'bounces';
  /** SMTP code as a string: mailgun-go decodes `code` as a JSON string. */
  code: string;
  error: string;
}

export interface ComplaintItem extends EntryBase {
  list: 'complaints';
}

export interface UnsubscribeItem extends EntryBase {
  list: 'unsubscribes';
  /** `*` (or no tags) means every message; otherwise only messages carrying one of these tags. */
  tags: string[];
}

export interface AllowlistItem extends EntryBase {
  list: 'whitelists';
  type: 'address' | 'domain';
  reason: string;
}

export type SuppressionItem = BounceItem | ComplaintItem | UnsubscribeItem | AllowlistItem;
export type ItemOf<L extends SuppressionList> = Extract<SuppressionItem, { list: L }>;
export type BlockingItem = ItemOf<BlockingList>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a create, batch item or CSV row says about one entry: the item without its account and domain. */
export type EntryRecord<L extends SuppressionList = SuppressionList> = DistributiveOmit<ItemOf<L>, 'accountId' | 'domain'>;

export function toItem(accountId: string, domain: string, record: EntryRecord): SuppressionItem {
  return { ...record, accountId, domain };
}

/** DynamoDB writes in flight at once for bulk work: enough to hide latency, few enough not to throttle. */
export const WRITE_CONCURRENCY = 25;
/** Entries read per page while clearing a list. */
const CLEAR_PAGE_SIZE = 1000;


function entryKey(item: SuppressionItem): Key & Partial<IndexKey> {
  const key = suppressionKeys.entry(item.accountId, item.domain, item.list, item.address);
  return item.list === 'whitelists' ? key : { ...key, ...suppressionKeys.byAddress(item.accountId, item.domain, item.address, item.list) };
}

export async function getEntry<L extends SuppressionList>(accountId: string, domain: string, list: L, address: string): Promise<ItemOf<L> | undefined> {
  return getItem<ItemOf<L>>(suppressionKeys.entry(accountId, domain, list, address));
}

/** Adds or replaces an entry. */
export async function putEntry(item: SuppressionItem): Promise<void> {
  await putItem(entryKey(item), item);
}

export async function putEntries(items: readonly SuppressionItem[]): Promise<void> {
  await mapLimit(items, WRITE_CONCURRENCY, putEntry);
}

/** Removes an entry; false when there was none. */
export async function deleteEntry(accountId: string, domain: string, list: SuppressionList, address: string): Promise<boolean> {
  return deleteIfPresent(suppressionKeys.entry(accountId, domain, list, address));
}

/** One page of a list in address order (style-A paging), restricted to addresses starting with `term`. */
export function listPage<L extends SuppressionList>(accountId: string, domain: string, list: L, page: PivotPage, term = ''): Promise<Array<ItemOf<L>>> {
  return readPivotPage<ItemOf<L>>(suppressionKeys.entry(accountId, domain, list).pk, 'ADDR#', page, term);
}

/** Deletes every entry of a list, a page at a time; answers how many were removed. */
export async function clearList(accountId: string, domain: string, list: SuppressionList): Promise<number> {
  const { pk } = suppressionKeys.entry(accountId, domain, list);
  let removed = 0;
  let after: string | undefined;
  for (;;) {
    const page = await queryPage<EntryBase>(pk, { prefix: 'ADDR#', ascending: true, after, limit: CLEAR_PAGE_SIZE });
    if (page.length === 0) return removed;
    await mapLimit(page, WRITE_CONCURRENCY, (item) => deleteEntry(accountId, domain, list, item.address));
    removed += page.length;
    after = page.at(-1)!.address;
  }
}

/** The bounce, complaint and unsubscribe entries of one address: a single Query on gsi1. */
export async function blockingEntriesOf(accountId: string, domain: string, address: string): Promise<BlockingItem[]> {
  const index = suppressionKeys.byAddress(accountId, domain, address);
  return queryAll<BlockingItem>({ gsi1pk: index.gsi1pk }, index.gsi1sk);
}
