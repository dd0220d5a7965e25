import type { SendingChoice } from '../sending-ips/sending-options';
import type { UploadedFile } from '../platform/http/body';
import { applyTracking, needsPerRecipientCopies, trackingBase, trackingPlan, type TrackingOptions, type TrackingPlan } from '../tracking/rewrite';
import { acceptMessage, type Accepted } from './accept';
import { substitute } from './batch';
import { composeMime } from './compose';
import { newStorageKey, type MessageRecord } from './message-store';
import type { Mailbox } from './recipients';
import { templateHeaders, type MessageContent } from './template-content';
import type { DomainItem } from '../domains/domain-store';

/**
 * What every copy of one message shares: its id, sender, content and options. A message is one
 * copy, or one per recipient (a batch send, tracked mail, a mailing-list post), each stored,
 * accepted and sent on its own under the same message id.
 */
export interface MessagePlan {
  accountId: string;
  messageId: string;
  /** The From as given, for the record and events. */
  sender: string;
  from: Mailbox;
  content: MessageContent;
  ampHtml?: string;
  attachments: UploadedFile[];
  inline: UploadedFile[];
  tags: string[];
  variables: Record<string, string>;
  testMode: boolean;
  /** ISO instant of o:deliverytime. */
  deliverAt?: string;
  requireTls?: boolean;
  /** o:sending-ip or o:sending-ip-pool, as checked at accept. */
  sending?: SendingChoice;
  tracking: TrackingOptions;
  /** Set when the platform sends the message for itself (functions/optimize/inbox: placement tests). */
  purpose?: MessageRecord['purpose'];
}

export interface Copy {
  to: Mailbox[];
  cc: Mailbox[];
  /** Its envelope recipients. */
  all: string[];
  /** `%recipient.*%` values (batch sends, list members). */
  values?: Record<string, unknown>;
  /** Chosen by the caller when a retry must find the same copy again (list expansion); else new. */
  storageKey?: string;
  /** Headers this copy adds (a list post's Reply-To, List-Id ...). */
  headers?: Array<[string, string]>;
  /** Further placeholders filled in this copy's text and html (`%mailing_list_unsubscribe_url%`). */
  placeholders?: Record<string, string>;
}

/** The tracking a message's copies get, worked out once per message. */
export interface CopyContext {
  plan: MessagePlan;
  domain: DomainItem;
  tracking: TrackingPlan;
  base: string | undefined;
  /** Whether each copy's links name its recipient (tracking on, or unsubscribe placeholders). */
  tracked: boolean;
}

export function copyContext(plan: MessagePlan, domain: DomainItem, perRecipient: boolean): CopyContext {
  const tracking = trackingPlan(domain, plan.tracking);
  const tracked = perRecipient || needsPerRecipientCopies(tracking, [plan.content.html, plan.content.text]);
  return { plan, domain, tracking, base: trackingBase(domain), tracked };
}

/** Mailgun's own headers: what the worker and the events need to know later travels in the message. */
function mailgunHeaders(tags: string[], variables: Record<string, string>): Array<[string, string]> {
  return [...tags.map((tag): [string, string] => ['X-Mailgun-Tag', tag]), ...(Object.keys(variables).length ? [['X-Mailgun-Variables', JSON.stringify(variables)] as [string, string]] : [])];
}

const fillPlaceholders = (text: string | undefined, placeholders: Record<string, string> | undefined) =>
  text === undefined || !placeholders ? text : Object.entries(placeholders).reduce((out, [name, value]) => out.split(name).join(value), text);

/** Composes one copy (its values filled, its links signed for its recipient), stores, accepts and queues it. */
export async function acceptCopy(context: CopyContext, copy: Copy): Promise<Accepted> {
  const { plan, domain } = context;
  const { content } = plan;
  const fill = (text: string | undefined) => (text !== undefined && copy.values ? substitute(text, copy.values) : text);
  const subject = fill(content.subject) ?? '';
  const variables = Object.fromEntries(Object.entries(plan.variables).map(([k, v]) => [k, fill(v)!]));
  const body = context.tracked
    ? await applyTracking(context.tracking, context.base, { a: plan.accountId, d: domain.name, m: plan.messageId.slice(1, -1), r: copy.all[0]!, t: plan.tags }, { html: fill(content.html), text: fill(content.text) })
    : { html: fill(content.html), text: fill(content.text), headers: [] };
  const mime = await composeMime({
    from: plan.from,
    to: copy.to,
    cc: copy.cc,
    subject,
    text: fillPlaceholders(body.text, copy.placeholders),
    html: fillPlaceholders(body.html, copy.placeholders),
    ampHtml: fill(plan.ampHtml),
    attachments: plan.attachments,
    inline: plan.inline,
    messageId: plan.messageId,
    headers: [...body.headers, ...(copy.headers ?? []), ...content.headers.map(([name, value]): [string, string] => [name, fill(value)!])],
    mailgunHeaders: [...mailgunHeaders(plan.tags, variables), ...(content.template ? templateHeaders(content.template) : [])],
  });
  return acceptMessage(
    {
      storageKey: copy.storageKey ?? newStorageKey(),
      accountId: plan.accountId,
      domain: domain.name,
      messageId: plan.messageId,
      from: plan.sender,
      subject,
      recipients: copy.all,
      to: copy.to.map((m) => m.address).join(', '),
      tags: plan.tags,
      userVariables: variables,
      attachments: plan.attachments.map((f) => ({ filename: f.filename, 'content-type': f.contentType, size: f.content.length })),
      testMode: plan.testMode,
      deliverAt: plan.deliverAt,
      requireTls: plan.requireTls,
      ...plan.sending,
      ...(plan.purpose ? { purpose: plan.purpose } : {}),
      ...(content.template ? { template: { name: content.template.name, version: content.template.version, 'is-text': content.template['is-text'] } } : {}),
    },
    mime,
    domain,
  );
}
