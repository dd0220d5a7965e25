import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { addToCounter, deleteIfPresent, deleteItem, getItem, moveAttribute, putItem, queryAll, queryPage, updateItem, type Key, type IndexKey } from '../data/store';
import { readPivotPage } from '../data/pivot-page';
import { mapLimit } from '../platform/concurrency';
import type { PivotPage } from '../platform/http/paging';
import { defineEntity } from '../data/key-registry';

export const tagKeys = defineEntity(
  'tags',
  {
    accountTag: { what: "an account's tag by name (lower case: tags are case-insensitive); their own partition, as they are many", pk: 'ACCT#<account>#TAG', sk: '<tag*>', key: (accountId: string, tagKey = ''): Key => ({ pk: `ACCT#${accountId}#TAG`, sk: tagKey }) },
    accountTagSeen: {
      what: "the same tag by last sighting, on gsi1, for `sort: lastseen`; the item's index key moves as it is seen again",
      gsi1pk: 'ACCT#<account>#TAGSEEN',
      gsi1sk: '<13-digit ms>#<tag*>',
      key: (accountId: string, lastSeenMs: number, tagKey: string): IndexKey => ({
        gsi1pk: `ACCT#${accountId}#TAGSEEN`,
        gsi1sk: `${String(lastSeenMs).padStart(13, '0')}#${tagKey}`,
      }),
    },
    domainTag: { what: "a domain's tag by name (the legacy /v3/{domain}/tags)", pk: 'ACCT#<account>#DTAG#<domain>', sk: '<tag*>', key: (accountId: string, domain: string, tagKey = ''): Key => ({ pk: `ACCT#${accountId}#DTAG#${domain}`, sk: tagKey }) },
    tagCount: {
      what: 'how many distinct tags a domain (or, without one, the account: sk TAGCOUNT) holds, against its limit',
      pk: 'ACCT#<account>',
      sk: 'TAGCOUNT#<domain>',
      key: (accountId: string, domain?: string): Key => ({ pk: `ACCT#${accountId}`, sk: domain === undefined ? 'TAGCOUNT' : `TAGCOUNT#${domain}` }),
    },
    accountTagCount: { what: 'how many distinct tags the account holds (tagCount without a domain)', pk: 'ACCT#<account>', sk: 'TAGCOUNT' },
  },
  [
    { what: "an account's tags by name (or prefix)", pk: 'ACCT#<account>#TAG' },
    { what: "an account's tags by last sighting", index: 'gsi1', pk: 'ACCT#<account>#TAGSEEN' },
    { what: "a domain's tags by name (or prefix)", pk: 'ACCT#<account>#DTAG#<domain>' },
  ],
);

/**
 * The tag registry: one item per tag per account (the /v1/analytics/tags view) and one per tag per
 * domain (the legacy /v3/{domain}/tags view), each with its first and last sighting and the
 * user's description, plus a distinct-tag counter per account and per domain for the limits.
 * Keys and access patterns: tagKeys above (docs/access-patterns.md).
 */

/** Where a tag lives: the account-wide registry, or one domain's. */
export type TagScope = { accountId: string; domain?: string };

export interface TagItem {
  accountId: string;
  domain?: string;
  /** The tag as first seen; `tagKey` is its case-folded identity. */
  tag: string;
  tagKey: string;
  description: string;
  /** Epoch milliseconds. */
  firstSeen: number;
  lastSeen: number;
}

/**
 * Mailgun: tags are case-insensitive and ASCII only; other characters are stripped, and a tag made
 * only of them is ignored (undefined).
 */
export function normaliseTag(raw: string): { tag: string; tagKey: string } | undefined {
  const tag = raw.replace(/[^\x20-\x7e]/g, '').trim();
  return tag ? { tag, tagKey: tag.toLowerCase() } : undefined;
}

function tagKeyOf(scope: TagScope, tagKey: string): Key {
  return scope.domain === undefined ? tagKeys.accountTag(scope.accountId, tagKey) : tagKeys.domainTag(scope.accountId, scope.domain, tagKey);
}

/** Only the account registry is indexed by last sighting (the legacy view lists by name alone). */
function seenIndex(scope: TagScope, lastSeen: number, tagKey: string) {
  return scope.domain === undefined ? tagKeys.accountTagSeen(scope.accountId, lastSeen, tagKey) : {};
}

export function getTag(scope: TagScope, tagKey: string): Promise<TagItem | undefined> {
  return getItem<TagItem>(tagKeyOf(scope, tagKey), { consistent: true });
}

/** Stores a new tag if its name is free; false when it already exists. */
export function createTag(item: TagItem): Promise<boolean> {
  const scope = { accountId: item.accountId, domain: item.domain };
  return putItem({ ...tagKeyOf(scope, item.tagKey), ...seenIndex(scope, item.lastSeen, item.tagKey) }, item, { ifAbsent: true });
}

/** Widens a known tag's first/last sighting to cover [first, last]; each bound moves one way only. */
export async function widenSightings(scope: TagScope, tagKey: string, first: number, last: number): Promise<void> {
  const key = tagKeyOf(scope, tagKey);
  // The index key moves with last_seen, in the same conditional write.
  await moveAttribute(key, 'lastSeen', last, 'max', seenIndex(scope, last, tagKey));
  await moveAttribute(key, 'firstSeen', first, 'min');
}

/** Sets a tag's description; undefined when there is no such tag (updateItem's existence condition). */
export async function describeTag(scope: TagScope, tagKey: string, description: string): Promise<TagItem | undefined> {
  try {
    return await updateItem<TagItem>(tagKeyOf(scope, tagKey), { description });
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** Removes a tag and gives its place back under the limit; false when there was no such tag. */
export async function deleteTag(scope: TagScope, tagKey: string): Promise<boolean> {
  if (!(await deleteIfPresent(tagKeyOf(scope, tagKey)))) return false;
  await releasePlace(scope);
  return true;
}

/** Takes one place under the limit for a new tag; false when the limit is reached. */
export async function reservePlace(scope: TagScope, limit: number): Promise<boolean> {
  return (await addToCounter(tagKeys.tagCount(scope.accountId, scope.domain), 'count', 1, { atMost: limit })) !== undefined;
}

export async function releasePlace(scope: TagScope): Promise<void> {
  await addToCounter(tagKeys.tagCount(scope.accountId, scope.domain), 'count', -1);
}

export async function tagCount(scope: TagScope): Promise<number> {
  const item = await getItem<{ count?: number }>(tagKeys.tagCount(scope.accountId, scope.domain));
  return Math.max(0, item?.count ?? 0);
}

export interface NamePage {
  prefix: string;
  ascending: boolean;
  limit: number;
}

/** The first `limit` tags in name order within a prefix, from either end: a key range. */
export function tagsByName(scope: TagScope, page: NamePage): Promise<TagItem[]> {
  return queryPage<TagItem>(tagKeyOf(scope, '').pk, page);
}

/** One page of style-A paging (`page`, `tag` pivot, `limit`) over the tags starting with `prefix`, in name order. */
export function tagsPage(scope: TagScope, page: PivotPage, prefix: string): Promise<TagItem[]> {
  return readPivotPage<TagItem>(tagKeyOf(scope, '').pk, '', page, prefix);
}

/** An account's tags by last sighting (gsi1), optionally only those whose key starts with `prefix`. */
export function tagsBySighting(accountId: string, options: { ascending: boolean; limit: number; prefix: string }): Promise<TagItem[]> {
  const { gsi1pk } = tagKeys.accountTagSeen(accountId, 0, '');
  return queryPage<TagItem>(gsi1pk, {
    prefix: '',
    ascending: options.ascending,
    limit: options.limit,
    onIndex: true,
    keep: (item) => String(item['tagKey']).startsWith(options.prefix),
  });
}

/** Forgets a domain's tags and their count (when the domain is deleted); the account's stay. */
export async function clearDomainTags(accountId: string, domain: string): Promise<void> {
  const scope = { accountId, domain };
  const items = await queryAll<TagItem>({ pk: tagKeys.domainTag(accountId, domain).pk }, '');
  await mapLimit(items, 8, (item) => deleteIfPresent(tagKeyOf(scope, item.tagKey)));
  await deleteItem(tagKeys.tagCount(accountId, domain));
}
