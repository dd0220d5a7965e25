import type { ParsedMail } from 'mailparser';
import { sendingOffFor } from '../accounts/monthly-limit';
import { sendingDomain } from '../messages/accept';
import type { MessagePlan } from '../messages/copies';
import { formatMailbox, parseMailboxes, type Mailbox } from '../messages/recipients';
import { ApiError } from '../platform/errors';
import { mailparser } from '../platform/lazy/lazy-modules';
import { messageId as newMessageId } from '../platform/ids';
import { findListByAddress, refusal, replyTarget, startListPost, type Via } from './post';
import type { DomainItem } from '../domains/domain-store';

/**
 * A whole MIME message posted to a list (inbound mail, messages.mime, SMTP). Kept apart from post.ts,
 * which the messages Lambda loads for every send, because it reads MIME with mailparser (over
 * 1 MB): only the Lambdas that take MIME posts (inbound) carry it.
 */

/** The parts of a MIME message a post re-composes per member: mailparser's reading of it. */
async function parsed(raw: Buffer): Promise<ParsedMail> {
  // mailparser is over 1 MB: loaded on the first post only.
  const { simpleParser } = mailparser();
  return simpleParser(raw);
}

/**
 * Posts a whole MIME message to a list: the seam for inbound mail (and any caller holding MIME).
 * `sender` is the envelope sender; for `via: 'inbound'` the list's access_level decides whether
 * they may post (readonly: only the API; members: members only; everyone). The copies come from
 * the list's address (a list relays mail from other domains, which its domain cannot sign for),
 * named "<sender> via <list>", with Reply-To by reply_preference.
 */
export async function postToList(
  accountId: string,
  listAddress: string,
  raw: Buffer,
  sender: string,
  via: Via,
  options: {
    /** Given for a post that may be made again (inbound mail redelivered): the same ids start it once. */
    postId?: string;
    messageId?: string;
    /** An API post's sending domain (the request's) and o: options (messages.mime, SMTP). */
    domain?: DomainItem;
    tags?: string[];
    testMode?: boolean;
    tracking?: MessagePlan['tracking'];
  } = {},
): Promise<{ accepted: true; id: string } | { refused: string }> {
  const list = await findListByAddress(accountId, listAddress);
  if (!list) return { refused: `Mailing list ${listAddress} not found` };
  const why = await refusal(list, sender, via);
  if (why) return { refused: why };
  let domain: DomainItem;
  try {
    domain = options.domain ?? (await sendingDomain(accountId, list.address.split('@')[1]!));
  } catch (error) {
    if (error instanceof ApiError) return { refused: error.message };
    throw error;
  }
  // Received mail relayed to the list is the account's sending too: off (its parent, or the
  // reputation guard), the post is refused. API and SMTP posts were refused before they got here.
  const off = via === 'inbound' ? await sendingOffFor(accountId, domain.name) : undefined;
  if (off) return { refused: off };
  const mail = await parsed(raw);
  const author: Mailbox = mail.from?.value[0]?.address ? { address: mail.from.value[0].address, name: mail.from.value[0].name } : { address: sender, name: '' };
  // Checked as the API checks a From: a malformed author is refused, not handed to the composer.
  try {
    parseMailboxes('from', [author.address]);
  } catch {
    return { refused: `The message's author (${author.address}) is not a valid address` };
  }
  // Through the API the author is the sending domain's own; mail from elsewhere is relayed as the list.
  const from: Mailbox = via === 'api' ? author : { address: list.address, name: `${author.name || author.address} via ${list.name || list.address}` };
  // The composer names an inline part's Content-ID by its file name, so an inline part keeps its cid there.
  const files = (mail.attachments ?? []).map((part) => {
    const inline = part.contentDisposition === 'inline' && Boolean(part.cid);
    return { inline, file: { field: inline ? 'inline' : 'attachment', filename: (inline ? part.cid : part.filename) ?? 'attachment', contentType: part.contentType, content: part.content } };
  });
  const plan: MessagePlan = {
    accountId,
    messageId: options.messageId ?? newMessageId(domain.name),
    sender: formatMailbox(from),
    from,
    content: { subject: mail.subject ?? '', text: mail.text, html: typeof mail.html === 'string' ? mail.html : undefined, headers: [] },
    attachments: files.filter((f) => !f.inline).map((f) => f.file),
    inline: files.filter((f) => f.inline).map((f) => f.file),
    tags: options.tags ?? [],
    variables: {},
    testMode: options.testMode ?? false,
    tracking: options.tracking ?? {},
  };
  const { id } = await startListPost(list, plan, domain, via, replyTarget(list, formatMailbox(author)), options.postId);
  return { accepted: true, id };
}
