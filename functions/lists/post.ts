import type { ParsedMail } from 'mailparser';
import type { DomainItem } from '../data/db';
import { getItem, putItem, updateItem } from '../data/store';
import { ApiError, BadRequest } from '../platform/errors';
import type { UploadedFile } from '../platform/http/body';
import { messageId as newMessageId, randomHex } from '../platform/ids';
import { sendingDomain } from '../messages/accept';
import type { MessagePlan } from '../messages/copies';
import { formatMailbox, parseMailboxes, type Mailbox } from '../messages/recipients';
import { jobObjectKey, putJobObject, queueListJob } from './jobs';
import { getList, getMember, listKeys, listsAmong, type ListItem } from './list-store';

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
export async function startListPost(list: ListItem, plan: MessagePlan, domain: DomainItem, via: Via, replyTo: string): Promise<{ id: string; postId: string }> {
  const postId = randomHex(12);
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
  await putItem(listKeys.post(postId), post);
  try {
    await queueListJob({ kind: 'expand', postId });
  } catch (error) {
    await finishPost(postId, 'failed', 'The post could not be queued').catch(() => undefined);
    throw error;
  }
  return { id: plan.messageId, postId };
}

/** Reply-To by the list's reply_preference: the list itself, or whoever wrote. */
const replyTarget = (list: ListItem, sender: string) => (list.replyPreference === 'list' ? list.address : sender);

/**
 * The send API's view: whether a message's recipients name a list (one BatchGetItem), and if so
 * how to start its post. A list address must be the message's only recipient: its members are
 * the recipients.
 */
export async function listPostOf(accountId: string, recipients: { all: string[] }) {
  const [list] = await listsAmong(accountId, recipients.all);
  if (!list) return undefined;
  if (recipients.all.length > 1) throw new BadRequest(`A mailing list address (${list.address}) must be the only recipient of a message`);
  return { list, start: (plan: MessagePlan, domain: DomainItem) => startListPost(list, plan, domain, 'api', replyTarget(list, plan.sender)) };
}

/** Whether `sender` may post to `list` through `via` (access_level); a reason when not. */
export async function refusal(list: ListItem, sender: string, via: Via): Promise<string | undefined> {
  if (via === 'api' || list.accessLevel === 'everyone') return undefined;
  if (list.accessLevel === 'readonly') return `Mailing list ${list.address} is read-only: only the API may post to it`;
  const member = await getMember(list, sender.trim().toLowerCase());
  return member ? undefined : `Only members may post to mailing list ${list.address}`;
}

/** The parts of a MIME message a post re-composes per member: mailparser's reading of it. */
async function parsed(raw: Buffer): Promise<ParsedMail> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- mailparser is over 1 MB: loaded on the first post only
  const { simpleParser } = require('../storage/mime-parser') as typeof import('../storage/mime-parser');
  return simpleParser(raw);
}

/**
 * Posts a whole MIME message to a list: the seam for inbound mail (and any caller holding MIME).
 * `sender` is the envelope sender; for `via: 'inbound'` the list's access_level decides whether
 * they may post (readonly: only the API; members: members only; everyone). The copies come from
 * the list's address (a list relays mail from other domains, which its domain cannot sign for),
 * named "<sender> via <list>", with Reply-To by reply_preference.
 */
export async function postToList(accountId: string, listAddress: string, raw: Buffer, sender: string, via: Via): Promise<{ accepted: true; id: string } | { refused: string }> {
  const list = await findListByAddress(accountId, listAddress);
  if (!list) return { refused: `Mailing list ${listAddress} not found` };
  const why = await refusal(list, sender, via);
  if (why) return { refused: why };
  let domain: DomainItem;
  try {
    domain = await sendingDomain(accountId, list.address.split('@')[1]!);
  } catch (error) {
    if (error instanceof ApiError) return { refused: error.message };
    throw error;
  }
  const mail = await parsed(raw);
  const author: Mailbox = mail.from?.value[0]?.address ? { address: mail.from.value[0].address, name: mail.from.value[0].name } : { address: sender, name: '' };
  // Checked as the API checks a From: a malformed author is refused, not handed to the composer.
  try {
    parseMailboxes('from', [author.address]);
  } catch {
    return { refused: `The message's author (${author.address}) is not a valid address` };
  }
  const from: Mailbox = { address: list.address, name: `${author.name || author.address} via ${list.name || list.address}` };
  // The composer names an inline part's Content-ID by its file name, so an inline part keeps its cid there.
  const files = (mail.attachments ?? []).map((part) => {
    const inline = part.contentDisposition === 'inline' && Boolean(part.cid);
    return { inline, file: { field: inline ? 'inline' : 'attachment', filename: (inline ? part.cid : part.filename) ?? 'attachment', contentType: part.contentType, content: part.content } };
  });
  const plan: MessagePlan = {
    accountId,
    messageId: newMessageId(domain.name),
    sender: formatMailbox(from),
    from,
    content: { subject: mail.subject ?? '', text: mail.text, html: typeof mail.html === 'string' ? mail.html : undefined, headers: [] },
    attachments: files.filter((f) => !f.inline).map((f) => f.file),
    inline: files.filter((f) => f.inline).map((f) => f.file),
    tags: [],
    variables: {},
    testMode: false,
    tracking: {},
  };
  const { id } = await startListPost(list, plan, domain, via, replyTarget(list, formatMailbox(author)));
  return { accepted: true, id };
}
