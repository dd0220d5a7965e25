import { addToCounter, deleteIfPresent, getItem, getItems, putItem, queryAll, queryPage, updateItemWhere, type Key } from '../data/store';
import { readPivotPage } from '../data/pivot-page';
import { defineEntity } from '../data/key-registry';
import type { PivotPage } from '../platform/http/paging';

/**
 * Mailing lists and their members in the single table. Members hang off the list's immutable id,
 * not its address: a rename rewrites one item, not 10,000. Addresses are stored lower-case
 * (Mailgun matches them case-insensitively). Pages read sk BETWEEN <prefix><pivot> AND <prefix>\uffff.
 */
export const listKeys = defineEntity(
  'lists',
  {
    list: { what: 'one list by address (API, sends, inbound)', pk: 'ACCT#<account>#LISTS', sk: 'LIST#<address*>', key: (accountId: string, address = ''): Key => ({ pk: `ACCT#${accountId}#LISTS`, sk: `LIST#${address}` }) },
    member: { what: 'one member of a list', pk: 'ACCT#<account>#LIST#<list id>', sk: 'M#<address*>', key: (accountId: string, listId: string, address = ''): Key => ({ pk: `ACCT#${accountId}#LIST#${listId}`, sk: `M#${address}` }) },
    post: { what: 'a list post (its status)', pk: 'LISTPOST#<post id>', sk: 'POST', key: (postId: string): Key => ({ pk: `LISTPOST#${postId}`, sk: 'POST' }) },
    page: { what: "a list post's page claim", pk: 'LISTPOST#<post id>', sk: 'PAGE#<cursor*>', key: (postId: string, cursor: string): Key => ({ pk: `LISTPOST#${postId}`, sk: `PAGE#${cursor}` }) },
    task: { what: 'a bulk upload task', pk: 'ACCT#<account>#LISTTASK', sk: '<task id>', key: (accountId: string, taskId: string): Key => ({ pk: `ACCT#${accountId}#LISTTASK`, sk: taskId }) },
  },
  [
    { what: "an account's lists, address order (pages)", pk: 'ACCT#<account>#LISTS', skPrefix: 'LIST#' },
    { what: "a list's members, address order (pages, expansion cursors)", pk: 'ACCT#<account>#LIST#<list id>', skPrefix: 'M#' },
  ],
);

export type AccessLevel = 'readonly' | 'members' | 'everyone';
export type ReplyPreference = 'list' | 'sender';

export interface ListItem {
  accountId: string;
  /** Stable across renames: members are keyed by it. */
  listId: string;
  address: string;
  name: string;
  description: string;
  accessLevel: AccessLevel;
  replyPreference: ReplyPreference;
  createdAt: string;
  membersCount: number;
}

export interface MemberItem {
  address: string;
  name: string;
  subscribed: boolean;
  vars: Record<string, unknown>;
}

export async function getList(accountId: string, address: string): Promise<ListItem | undefined> {
  return getItem<ListItem>(listKeys.list(accountId, address.toLowerCase()), { consistent: true });
}

/** The lists among `addresses` (one BatchGetItem per 100): how a send finds out it is a list post. */
export async function listsAmong(accountId: string, addresses: readonly string[]): Promise<ListItem[]> {
  if (!addresses.length) return [];
  return getItems<ListItem>(addresses.map((address) => listKeys.list(accountId, address.toLowerCase())));
}

/** Writes a new list; false when its address is taken. */
export function insertList(list: ListItem): Promise<boolean> {
  return putItem(listKeys.list(list.accountId, list.address), list, { ifAbsent: true });
}

export async function replaceList(list: ListItem): Promise<void> {
  await putItem(listKeys.list(list.accountId, list.address), list);
}

export function deleteList(accountId: string, address: string): Promise<boolean> {
  return deleteIfPresent(listKeys.list(accountId, address));
}

export function listPage(accountId: string, page: PivotPage): Promise<ListItem[]> {
  return readPivotPage<ListItem>(listKeys.list(accountId).pk, 'LIST#', page);
}

/** Every list of the account (few: they are made by hand), for skip/limit and total_count. */
export function allLists(accountId: string): Promise<ListItem[]> {
  return queryAll<ListItem>({ pk: listKeys.list(accountId).pk }, 'LIST#');
}

/**
 * Keeps members_count in step with member writes that changed how many there are; a list deleted
 * (or renamed) meanwhile is not brought back as a bare counter.
 */
export async function countMembers(list: ListItem, delta: number): Promise<void> {
  if (delta) await addToCounter(listKeys.list(list.accountId, list.address), 'membersCount', delta, { ifExists: true });
}

export function getMember(list: ListItem, address: string): Promise<MemberItem | undefined> {
  return getItem<MemberItem>(listKeys.member(list.accountId, list.listId, address.toLowerCase()), { consistent: true });
}

/** Writes a member; with `ifAbsent`, only a new one (false when the address is taken). */
export function putMember(list: ListItem, member: MemberItem, options: { ifAbsent?: boolean } = {}): Promise<boolean> {
  return putItem(listKeys.member(list.accountId, list.listId, member.address), member, options);
}

export function deleteMember(list: ListItem, address: string): Promise<boolean> {
  return deleteIfPresent(listKeys.member(list.accountId, list.listId, address));
}

const subscribedOnly = (subscribed: boolean | undefined) => (subscribed === undefined ? undefined : (item: Record<string, unknown>) => item['subscribed'] === subscribed);

export function memberPage(list: ListItem, page: PivotPage, subscribed?: boolean): Promise<MemberItem[]> {
  return readPivotPage<MemberItem>(listKeys.member(list.accountId, list.listId).pk, 'M#', page, '', subscribedOnly(subscribed));
}

/** Up to `limit` members after `after` in address order: skip/limit pages and expansion pages alike. */
export function membersAfter(list: Pick<ListItem, 'accountId' | 'listId'>, after: string | undefined, limit: number, subscribed?: boolean): Promise<MemberItem[]> {
  return queryPage<MemberItem>(listKeys.member(list.accountId, list.listId).pk, { prefix: 'M#', ascending: true, after, limit, keep: subscribedOnly(subscribed) });
}

/** How many members match a `subscribed` filter: a walk of the list, for the filtered total_count only. */
export async function countMatching(list: ListItem, subscribed: boolean): Promise<number> {
  return (await queryAll<MemberItem>({ pk: listKeys.member(list.accountId, list.listId).pk }, 'M#')).filter((m) => m.subscribed === subscribed).length;
}

/**
 * A member's own unsubscribe link: keyed by the list's id, so a link still works after a rename;
 * a member removed meanwhile stays removed (no write).
 */
export async function unsubscribeMember(accountId: string, listId: string, address: string): Promise<boolean> {
  return updateItemWhere(listKeys.member(accountId, listId, address.toLowerCase()), ['address'], address.toLowerCase(), { subscribed: false });
}
