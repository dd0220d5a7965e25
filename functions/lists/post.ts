import { byteLength, MAX_DOMAIN_NAME_BYTES } from '../data/key-limits';
import { getItem, getItems, putItem, updateItem } from '../data/store';
import { canSend, sendingDomain } from '../messages/accept';
import { BadRequest, NotFound } from '../platform/errors';
import type { UploadedFile } from '../platform/http/body';
import { randomHex } from '../platform/ids';
import type { MessagePlan } from '../messages/copies';
import { jobObjectKey, putJobObject, queueListJob } from './jobs';
import { getList, getMember, listKeys, listsAmong, type ListItem } from './list-store';
import { domainKeys, type DomainItem } from '../domains/domain-store';

/**
 * A post to a mailing list: one message expanded to one copy per subscribed member by the list
 * queue's worker (expansion-worker.ts). The API's sends and inbound mail both arrive here.
 *
 * | pattern               | key condition                         |
 * |-----------------------|---------------------------------------|
 * | a post (its status)   | pk = LISTPOST#<post id>, sk = POST    |
 */
export interface ListPost {
  postId: string;
  accountId: string;
  listId: string;
  listAddress: string;
  /** The sending domain its copies go out from. */
  domain: string;
  messageId: string;
  via: Via;
  /** Every post ends done or failed; `accepted` counts the members that got their copy. */
  status: 'expanding' | 'done' | 'failed';
  accepted?: number;
  error?: string;
  createdAt: string;
  finishedAt?: string;
}

export type Via = 'api' | 'inbound';

/** A message plan as stored for the worker: files travel base64-encoded. */
export interface StoredPlan extends Omit<MessagePlan, 'attachments' | 'inline'> {
  attachments: StoredFile[];
  inline: StoredFile[];
  /** Where replies go (reply_preference), unless the message names its own Reply-To. */
  replyTo: string;
}

type StoredFile = Omit<UploadedFile, 'content'> & { content: string };

const storeFile = (file: UploadedFile): StoredFile => ({ ...file, content: file.content.toString('base64') });
export const loadFile = (file: StoredFile): UploadedFile => ({ ...file, content: Buffer.from(file.content, 'base64') });

export const getPost = (postId: string) => getItem<ListPost>(listKeys.post(postId), { consistent: true });

export async function finishPost(postId: string, status: 'done' | 'failed', error?: string): Promise<void> {
  await updateItem(listKeys.post(postId), { status, error, finishedAt: new Date().toISOString() });
}

/** The list at this address, if the account has one. */
export function findListByAddress(accountId: string, address: string): Promise<ListItem | undefined> {
  return getList(accountId, address.trim().toLowerCase());
}

/**
 * Stores the post's content, records the post and queues its first page. Nothing is accepted
 * yet: each member's copy gets its accepted event when the worker reaches it.
 */
export async function startListPost(list: ListItem, plan: MessagePlan, domain: DomainItem, via: Via, replyTo: string, postId = randomHex(12)): Promise<{ id: string; postId: string }> {
  const stored: StoredPlan = { ...plan, attachments: plan.attachments.map(storeFile), inline: plan.inline.map(storeFile), replyTo };
  await putJobObject(jobObjectKey(list.accountId, 'list-posts', postId), stored);
  const post: ListPost = {
    postId,
    accountId: list.accountId,
    listId: list.listId,
    listAddress: list.address,
    domain: domain.name,
    messageId: plan.messageId,
    via,
    status: 'expanding',
    createdAt: new Date().toISOString(),
  };
  // A post id given by the caller (inbound mail, derived from the received message) may have been
  // started before: its expansion is queued again while it is still expanding (a page held by a
  // live invocation ignores the copy), and a finished one is left alone.
  if (!(await putItem(listKeys.post(postId), post, { ifAbsent: true }))) {
    const existing = await getPost(postId);
    if (existing?.status !== 'expanding') return { id: existing?.messageId ?? plan.messageId, postId };
  }
  try {
    await queueListJob({ kind: 'expand', postId });
  } catch (error) {
    await finishPost(postId, 'failed', 'The post could not be queued').catch(() => undefined);
    throw error;
  }
  return { id: plan.messageId, postId };
}

/** Reply-To by the list's reply_preference: the list itself, or whoever wrote. */
export const replyTarget = (list: ListItem, sender: string) => (list.replyPreference === 'list' ? list.address : sender);

/**
 * The send API's view: whether a message's recipients name a list, and if so how to start its
 * post. A list address must be the message's only recipient: its members are the recipients.
 * `lists` are the lists among the recipients when the caller read them already (sendingDomainAndLists).
 */
export async function listPostOf(accountId: string, recipients: { all: string[] }, lists?: ListItem[]) {
  const [list] = lists ?? (await listsAmong(accountId, recipients.all));
  if (!list) return undefined;
  if (recipients.all.length > 1) throw new BadRequest(`A mailing list address (${list.address}) must be the only recipient of a message`);
  return { list, start: (plan: MessagePlan, domain: DomainItem) => startListPost(list, plan, domain, 'api', replyTarget(list, plan.sender)) };
}

/**
 * The sending domain and the lists among a message's recipients in one consistent BatchGetItem:
 * every send must know both, and one round trip costs what the domain's read alone did.
 */
export async function sendingDomainAndLists(accountId: string, name: string, recipients: readonly string[]): Promise<{ domain: DomainItem; lists: ListItem[] }> {
  if (byteLength(name) > MAX_DOMAIN_NAME_BYTES) return { domain: await sendingDomain(accountId, name), lists: [] };
  const domainKey = domainKeys.domain(accountId, name.toLowerCase());
  const listKeysOf = recipients.map((address) => listKeys.list(accountId, address.toLowerCase()));
  const items = await getItems<Record<string, unknown>>([domainKey, ...listKeysOf], { consistent: true });
  const domain = items.find((item) => item.pk === domainKey.pk && item.sk === domainKey.sk) as DomainItem | undefined;
  if (!domain) throw new NotFound('Domain not found');
  const lists = items.filter((item) => item.pk === listKeysOf[0]?.pk) as unknown as ListItem[];
  return { domain: canSend(domain), lists };
}

/** Whether `sender` may post to `list` through `via` (access_level); a reason when not. */
export async function refusal(list: ListItem, sender: string, via: Via): Promise<string | undefined> {
  if (via === 'api' || list.accessLevel === 'everyone') return undefined;
  if (list.accessLevel === 'readonly') return `Mailing list ${list.address} is read-only: only the API may post to it`;
  const member = await getMember(list, sender.trim().toLowerCase());
  return member ? undefined : `Only members may post to mailing list ${list.address}`;
}
