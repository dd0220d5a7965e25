import { deleteItems } from '../data/store';
import { mapLimit } from '../platform/concurrency';
import { logger } from '../platform/logger';
import { queueListJob } from './jobs';
import { BadRequest, NotFound } from '../platform/errors';
import { objectId } from '../platform/ids';
import { isEmailAddress } from '../suppressions/schemas';
import {
  countMembers,
  deleteList,
  deleteMember,
  getList,
  getMember,
  insertList,
  listKeys,
  membersAfter,
  putMember,
  replaceList,
  type AccessLevel,
  type ListItem,
  type MemberItem,
  type ReplyPreference,
} from './list-store';
import { nameHolder } from '../domains/domain-store';

/** The rules of mailing lists and their members (contract §10); no HTTP here. */

const ACCESS_LEVELS: readonly AccessLevel[] = ['readonly', 'members', 'everyone'];
const REPLY_PREFERENCES: readonly ReplyPreference[] = ['list', 'sender'];
/** Member writes in flight at once for a bulk upload. */
const WRITES_AT_ONCE = 25;

const listNotFound = (address: string) => new NotFound(`Mailing list ${address} not found`);

export async function requireList(accountId: string, address: string): Promise<ListItem> {
  const list = await getList(accountId, address);
  if (!list) throw listNotFound(address);
  return list;
}

function accessLevel(value: string | undefined): AccessLevel | undefined {
  if (value === undefined) return undefined;
  const level = value.trim().toLowerCase() as AccessLevel;
  if (!ACCESS_LEVELS.includes(level)) throw new BadRequest(`Invalid access level '${value}'. It can be any of: 'readonly', 'members', 'everyone'.`);
  return level;
}

function replyPreference(value: string | undefined): ReplyPreference | undefined {
  if (value === undefined) return undefined;
  const preference = value.trim().toLowerCase() as ReplyPreference;
  if (!REPLY_PREFERENCES.includes(preference)) throw new BadRequest(`Invalid reply preference '${value}'. It can be any of: 'sender', 'list'`);
  return preference;
}

/** `devs@mg.net` or `Developers <devs@mg.net>` (the OpenAPI's form): the address, and a name if given. */
function listAddress(raw: string): { address: string; name?: string } {
  const match = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(raw);
  const address = (match ? match[2]! : raw).trim().toLowerCase();
  if (!isEmailAddress(address)) throw new BadRequest(`Invalid parameter 'address': '${raw}' is not a valid email address`);
  return { address, ...(match?.[1] ? { name: match[1].trim() } : {}) };
}

export interface ListFields {
  name?: string;
  description?: string;
  access_level?: string;
  reply_preference?: string;
}

/**
 * A list's address may not be on a domain another account holds (a subaccount's list on its
 * parent's sandbox domain, say): mail to it reaches that domain's account, never this list, and
 * the address would pass for the other account's.
 */
async function checkListDomain(accountId: string, address: string): Promise<void> {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  const holder = await nameHolder(domain);
  if (holder && holder !== accountId) throw new BadRequest(`The domain ${domain} of ${address} belongs to another account`);
}

export async function createList(accountId: string, input: ListFields & { address: string }): Promise<ListItem> {
  const { address, name } = listAddress(input.address);
  await checkListDomain(accountId, address);
  const list: ListItem = {
    accountId,
    listId: objectId(),
    address,
    name: input.name ?? name ?? '',
    description: input.description ?? '',
    accessLevel: accessLevel(input.access_level) ?? 'readonly',
    replyPreference: replyPreference(input.reply_preference) ?? 'list',
    createdAt: new Date().toISOString(),
    membersCount: 0,
  };
  if (!(await insertList(list))) throw new BadRequest(`Duplicate object: mailing list ${address} already exists`);
  return list;
}

/**
 * Changes a list's fields; a new `address` renames it: the list is written under the new address
 * (refused if taken) and then removed from the old one. Its members follow, as they hang off its id.
 */
export async function updateList(accountId: string, current: string, input: ListFields & { address?: string }): Promise<ListItem> {
  const list = await requireList(accountId, current);
  const changed: ListItem = {
    ...list,
    name: input.name ?? list.name,
    description: input.description ?? list.description,
    accessLevel: accessLevel(input.access_level) ?? list.accessLevel,
    replyPreference: replyPreference(input.reply_preference) ?? list.replyPreference,
  };
  const renamed = input.address === undefined ? undefined : listAddress(input.address).address;
  if (renamed !== undefined && renamed !== list.address) await checkListDomain(accountId, renamed);
  if (renamed === undefined || renamed === list.address) {
    await replaceList(changed);
    return changed;
  }
  if (!(await insertList({ ...changed, address: renamed }))) throw new BadRequest(`Duplicate object: mailing list ${renamed} already exists`);
  // A member added between the read above and this delete counts on the old item only: members_count
  // may then be one short until the next change, the members themselves are not lost.
  await deleteList(accountId, list.address);
  return { ...changed, address: renamed };
}

export async function removeList(accountId: string, address: string): Promise<void> {
  const list = await getList(accountId, address);
  if (!list || !(await deleteList(accountId, address))) throw listNotFound(address);
  // Its members can no longer be reached (a list made again at this address gets a new id): they
  // are deleted in the background, a page a job. If that cannot be queued they stay unreachable.
  await queueListJob({ kind: 'purge', accountId, listId: list.listId }).catch((error: Error) =>
    logger.error("a deleted list's members could not be queued for deletion", { listId: list.listId, error }),
  );
}

/** Members deleted per purge job: one query page, 40 BatchWriteItem calls. */
const PURGE_PAGE = 1000;

/** Deletes one page of a deleted list's members; true when more may remain. */
export async function purgeMembers(accountId: string, listId: string): Promise<boolean> {
  const members = await membersAfter({ accountId, listId }, undefined, PURGE_PAGE);
  await deleteItems(members.map((member) => listKeys.member(accountId, listId, member.address)));
  return members.length === PURGE_PAGE;
}

export interface MemberInput {
  address: string;
  name?: string;
  vars?: Record<string, unknown>;
  subscribed?: boolean;
}

const newMember = (input: MemberInput): MemberItem => ({ address: input.address, name: input.name ?? '', subscribed: input.subscribed ?? true, vars: input.vars ?? {} });

/** Adds a member; with `upsert`, an existing one takes the given fields, else it is refused. */
export async function addMember(list: ListItem, input: MemberInput, upsert: boolean): Promise<MemberItem> {
  const member = newMember(input);
  if (await putMember(list, member, { ifAbsent: true })) {
    await countMembers(list, 1);
    return member;
  }
  if (!upsert) throw new BadRequest(`Address already exists '${input.address}'`);
  return (await changeMember(list, input.address, input))!;
}

/** Sets the given fields of a member (a new `address` moves it); undefined when it is not on the list. */
export async function changeMember(list: ListItem, address: string, input: Partial<MemberInput>): Promise<MemberItem | undefined> {
  const existing = await getMember(list, address);
  if (!existing) return undefined;
  const changed: MemberItem = {
    address: input.address ?? existing.address,
    name: input.name ?? existing.name,
    subscribed: input.subscribed ?? existing.subscribed,
    vars: input.vars ?? existing.vars,
  };
  if (changed.address === existing.address) {
    await putMember(list, changed);
    return changed;
  }
  if (!(await putMember(list, changed, { ifAbsent: true }))) throw new BadRequest(`Address already exists '${changed.address}'`);
  await removeMember(list, existing.address);
  await countMembers(list, 1);
  return changed;
}

export async function removeMember(list: ListItem, address: string): Promise<boolean> {
  const removed = await deleteMember(list, address);
  if (removed) await countMembers(list, -1);
  return removed;
}

/**
 * A bulk upload (members.json, members.csv): new members are added, existing ones replaced only
 * with `upsert`. A later entry for the same address wins. Safe to run again (the async task's
 * retries): a member already written is simply not new the second time.
 */
export async function addMembers(list: ListItem, entries: readonly MemberInput[], upsert: boolean): Promise<void> {
  const latest = [...new Map(entries.map((entry) => [entry.address, entry])).values()];
  const added = await mapLimit(latest, WRITES_AT_ONCE, async (entry) => {
    const member = newMember(entry);
    if (await putMember(list, member, { ifAbsent: true })) return 1;
    if (upsert) await putMember(list, member);
    return 0;
  });
  await countMembers(list, added.reduce((a: number, b) => a + b, 0));
}
