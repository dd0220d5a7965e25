import { z } from 'zod/v3';
import { patchDomain, requireDomain } from '../domains/domain-store';
import { BadRequest } from '../platform/errors';
import { messageId as newMessageId } from '../platform/ids';
import { schema } from '../platform/http/params';
import { areaHandler, operation } from '../platform/http/pipeline';
import { acceptMessage, envelopeRecipients, newMessageIdentity, sendingDomain } from './accept';
import { composeMime } from './compose';
import { mapLimit } from '../platform/concurrency';
import { parseRecipientVariables, substitute } from './batch';
import { applyTracking, needsPerRecipientCopies, trackingBase, trackingPlan } from '../tracking/rewrite';
import { messageContent, type MessageContent } from './template-content';
import { newStorageKey, storedMessage, withMessageId } from './message-store';
import { parseMailboxes, type Mailbox } from './recipients';
import { messageRoutes } from './routes';
import { readSendParams } from './send-params';
import { acceptMime } from './mime-submission';

const QUEUED = 'Queued. Thank you.';
const domainPath = schema(() => z.object({ domain: z.string() }).passthrough());
const storedPath = schema(() => z.object({ domain: z.string(), storageKey: z.string() }).passthrough());


/** The template a message was rendered from, named in it as Mailgun's stored messages show. */
function templateHeaders(content: MessageContent): Array<[string, string]> {
  if (!content.template) return [];
  return [
    ['X-Mailgun-Template-Name', content.template.name],
    ['X-Mailgun-Template-Variables', JSON.stringify(content.template.variables)],
  ];
}

/** Mailgun's own headers: what the worker and the events need to know later travels in the message. */
function mailgunHeaders(tags: string[], variables: Record<string, string>): Array<[string, string]> {
  return [...tags.map((tag): [string, string] => ['X-Mailgun-Tag', tag]), ...(Object.keys(variables).length ? [['X-Mailgun-Variables', JSON.stringify(variables)] as [string, string]] : [])];
}

export const handler = areaHandler(messageRoutes, {
  sendMessage: operation(domainPath, async (req, input) => {
    const domain = await sendingDomain(req.accountId, input.domain);
    const params = readSendParams(req.params, req.files);
    const recipients = envelopeRecipients(params);
    const content = await messageContent(req.accountId, domain.name, params, req.params);
    if (!content.text && !content.html && !params.ampHtml) {
      throw new BadRequest("Need at least one of 'text', 'html', 'amp-html' or 'template' parameters specified");
    }
    // With no From in the message or its template, the domain's postmaster sends it.
    const sender = content.from ?? `postmaster@${domain.name}`;
    const from = parseMailboxes('from', [sender]);
    if (from.length !== 1) throw new BadRequest("'from' parameter must be exactly one address");
    const batch = parseRecipientVariables(req.params['recipient-variables']);
    if (batch && (recipients.cc.length || params.bcc.length)) throw new BadRequest("'cc' and 'bcc' cannot be combined with 'recipient-variables'");
    // A batch is one message per 'to' recipient, each seeing only itself; all share one id.
    const plan = trackingPlan(domain, params.tracking);
    // Tracked links name their recipient, so tracked mail is one copy per recipient; the
    // headers still show every To and Cc, as one message would.
    const tracked = Boolean(batch) || needsPerRecipientCopies(plan, [content.html, content.text]);
    const copies: Array<{ to: Mailbox[]; cc: Mailbox[]; all: string[]; values?: Record<string, unknown> }> = batch
      ? recipients.to.map((to) => ({ to: [to], cc: [], all: [to.address.toLowerCase()], values: batch[to.address.toLowerCase()] ?? {} }))
      : tracked
        ? recipients.all.map((address) => ({ to: recipients.to, cc: recipients.cc, all: [address] }))
        : [{ to: recipients.to, cc: recipients.cc, all: recipients.all, values: undefined }];
    // One id for every copy; each copy is stored under its own key.
    const messageId = newMessageId(domain.name);
    const base = trackingBase(domain);
    await mapLimit(copies, 16, async (copy) => {
      const fill = (text: string | undefined) => (text !== undefined && copy.values ? substitute(text, copy.values) : text);
      const subject = fill(content.subject) ?? '';
      const variables = Object.fromEntries(Object.entries(params.variables).map(([k, v]) => [k, fill(v)!]));
      const body = tracked
        ? await applyTracking(plan, base, { a: req.accountId, d: domain.name, m: messageId.slice(1, -1), r: copy.all[0]!, t: params.tags }, { html: fill(content.html), text: fill(content.text) })
        : { html: fill(content.html), text: fill(content.text), headers: [] };
      const mime = await composeMime({
        from: from[0]!,
        to: copy.to,
        cc: copy.cc,
        subject,
        text: body.text,
        html: body.html,
        ampHtml: fill(params.ampHtml),
        attachments: params.attachments,
        inline: params.inline,
        messageId,
        headers: [...body.headers, ...content.headers.map(([name, value]): [string, string] => [name, fill(value)!])],
        mailgunHeaders: [...mailgunHeaders(params.tags, variables), ...templateHeaders(content)],
      });
      await acceptMessage(
        {
          storageKey: newStorageKey(),
          accountId: req.accountId,
          domain: domain.name,
          messageId,
          from: sender,
          subject,
          recipients: copy.all,
          to: copy.to.map((m) => m.address).join(', '),
          tags: params.tags,
          userVariables: variables,
          attachments: params.attachments.map((f) => ({ filename: f.filename, 'content-type': f.contentType, size: f.content.length })),
          testMode: params.testMode,
          deliverAt: params.deliverAt?.toISOString(),
          requireTls: params.requireTls,
          ...(content.template ? { template: { name: content.template.name, version: content.template.version, 'is-text': content.template['is-text'] } } : {}),
        },
        mime,
        domain,
      );
    });
    return { id: messageId, message: QUEUED };
  }),

  sendMime: operation(domainPath, async (req, input) => {
    const domain = await sendingDomain(req.accountId, input.domain);
    const params = readSendParams(req.params, req.files);
    const part = req.files.find((f) => f.field === 'message');
    const raw = part?.content ?? (typeof req.params['message'] === 'string' ? Buffer.from(req.params['message']) : undefined);
    if (!raw?.length) throw new BadRequest("Missing parameter 'message'.");
    const accepted = await acceptMime({ accountId: req.accountId, domain, mime: raw, params, method: 'http' });
    return { id: accepted.id, message: QUEUED };
  }),

  sendingQueues: operation(() => z.object({ name: z.string() }), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    // mailgun-go parses `until` as an RFC 2822 date: it is present only when there is one.
    const state = domain.isDisabled ? { is_disabled: true, disabled: { reason: 'The domain is disabled' } } : { is_disabled: false, disabled: { reason: '' } };
    return { regular: state, scheduled: state };
  }),

  clearQueue: operation(() => z.object({ domain: z.string() }), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.domain);
    await patchDomain(domain, { queueClearedAt: new Date().toISOString() });
    return { message: 'done' };
  }),

  resendMessage: operation(storedPath, async (req, input) => {
    const { record, mime } = await storedMessage(req.accountId, input.domain, input.storageKey);
    const domain = await sendingDomain(req.accountId, record.domain);
    const params = readSendParams(req.params, req.files);
    const recipients = envelopeRecipients({ to: params.to, cc: [], bcc: [] });
    const identity = newMessageIdentity(domain.name);
    // A resend is a new message: its own id and storage key, the same content.
    const accepted = await acceptMessage(
      // A resend goes now, even if the original is still waiting for its delivery time.
      { ...record, method: undefined, storageKey: identity.storageKey, messageId: identity.messageId, recipients: recipients.all, testMode: params.testMode || record.testMode, deliverAt: undefined },
      withMessageId(mime, identity.messageId),
      domain,
    );
    return { id: accepted.id, message: QUEUED };
  }),
});
