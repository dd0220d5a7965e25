import { sendingChoiceOf } from '../sending-ips/sending-options';
import { z } from 'zod/v3';
import { patchDomain, requireDomain } from '../domains/domain-store';
import { BadRequest, Forbidden } from '../platform/errors';
import { messageId as newMessageId } from '../platform/ids';
import { schema } from '../platform/http/params';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { listPostOf, sendingDomainAndLists } from '../lists/post';
import { withinMonthlyLimit } from '../accounts/monthly-limit';
import { acceptMessage, envelopeRecipients, newMessageIdentity, sendingDomain } from './accept';
import { mapLimit } from '../platform/concurrency';
import { parseRecipientVariables } from './batch';
import { acceptCopy, copyContext, type Copy, type MessagePlan } from './copies';
import { messageContent } from './template-content';
import { storedMessage, withMessageId } from './message-store';
import { parseMailboxes } from './recipients';
import { messageRoutes } from './routes';
import { readSendParams } from './send-params';
import { acceptMime } from './mime-submission';
import { foreignSenderDomain, foreignSenderMessage, SENDER_FIELDS } from './sender-domains';

const QUEUED = 'Queued. Thank you.';
const domainPath = schema(() => z.object({ domain: z.string() }).passthrough());
const storedPath = schema(() => z.object({ domain: z.string(), storageKey: z.string() }).passthrough());

export const handler = areaHandler(messageRoutes, {
  sendMessage: operation(domainPath, async (req, input) => {
    let parsed: { params: ReturnType<typeof readSendParams>; recipients: ReturnType<typeof envelopeRecipients> };
    try {
      const params = readSendParams(req.params, req.files);
      parsed = { params, recipients: envelopeRecipients(params) };
    } catch (error) {
      // An unknown or disabled domain is the answer before anything wrong with the message.
      await sendingDomain(req.accountId, input.domain);
      throw error;
    }
    const { params, recipients } = parsed;
    const { domain, lists } = await sendingDomainAndLists(req.accountId, input.domain, recipients.all);
    const content = await messageContent(req.accountId, domain.name, params, req.params);
    if (!content.text && !content.html && !params.ampHtml) {
      throw new BadRequest("Need at least one of 'text', 'html', 'amp-html' or 'template' parameters specified");
    }
    // With no From in the message or its template, the domain's postmaster sends it.
    const sender = content.from ?? `postmaster@${domain.name}`;
    const from = parseMailboxes('from', [sender]);
    if (from.length !== 1) throw new BadRequest("'from' parameter must be exactly one address");
    // Before anything is counted or queued: a list post is accepted before its copies are.
    const authors = [sender, ...params.headers.filter(([name]) => SENDER_FIELDS.includes(name.toLowerCase() as never)).map(([, value]) => value)];
    const foreign = await foreignSenderDomain(req.accountId, authors, [domain.name]);
    if (foreign) throw new Forbidden(foreignSenderMessage(foreign));
    const batch = parseRecipientVariables(req.params['recipient-variables']);
    if (batch && (recipients.cc.length || params.bcc.length)) throw new BadRequest("'cc' and 'bcc' cannot be combined with 'recipient-variables'");
    // A list address among the recipients makes the message a list post (functions/lists/post.ts).
    const post = await listPostOf(req.accountId, recipients, lists);
    const plan: MessagePlan = {
      accountId: req.accountId,
      messageId: newMessageId(domain.name),
      sender,
      from: from[0]!,
      content,
      ampHtml: params.ampHtml,
      attachments: params.attachments,
      inline: params.inline,
      tags: params.tags,
      variables: params.variables,
      testMode: params.testMode,
      deliverAt: params.deliverAt?.toISOString(),
      requireTls: params.requireTls,
      sending: await sendingChoiceOf(req.accountId, params.sendingIp, params.sendingIpPool),
      tracking: params.tracking,
    };
    if (post && batch) throw new BadRequest("'recipient-variables' cannot be combined with a mailing list address: members' vars fill its placeholders");
    // The custom monthly limit counts the request's recipients (a list address counts as one).
    return withinMonthlyLimit(req.accountId, domain.name, recipients.all.length, async () => {
      if (post) return { id: (await post.start(plan, domain)).id, message: QUEUED };
      const messageId = plan.messageId;
      // A batch is one message per 'to' recipient, each seeing only itself; all share one id.
      // Tracked links name their recipient, so tracked mail is one copy per recipient; the
      // headers still show every To and Cc, as one message would.
      const context = copyContext(plan, domain, Boolean(batch));
      const copies: Copy[] = batch
        ? recipients.to.map((to) => ({ to: [to], cc: [], all: [to.address.toLowerCase()], values: batch[to.address.toLowerCase()] ?? {} }))
        : context.tracked
          ? recipients.all.map((address) => ({ to: recipients.to, cc: recipients.cc, all: [address] }))
          : [{ to: recipients.to, cc: recipients.cc, all: recipients.all }];
      // One id for every copy; each copy is stored under its own key.
      await mapLimit(copies, 16, (copy) => acceptCopy(context, copy));
      return { id: messageId, message: QUEUED };
    });
  }),

  sendMime: operation(domainPath, async (req, input) => {
    const domain = await sendingDomain(req.accountId, input.domain);
    const params = readSendParams(req.params, req.files);
    const part = req.files.find((f) => f.field === 'message');
    const raw = part?.content ?? (typeof req.params['message'] === 'string' ? Buffer.from(req.params['message']) : undefined);
    if (!raw?.length) throw new BadRequest("Missing parameter 'message'.");
    const accepted = await acceptMime({ accountId: req.accountId, domain, mime: raw, params, form: req.params, method: 'http' });
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
    const accepted = await withinMonthlyLimit(req.accountId, domain.name, recipients.all.length, () => acceptMessage(
      // A resend goes now, even if the original is still waiting for its delivery time.
      { ...record, method: undefined, storageKey: identity.storageKey, messageId: identity.messageId, recipients: recipients.all, testMode: params.testMode || record.testMode, deliverAt: undefined },
      withMessageId(mime, identity.messageId),
      domain,
    ));
    return { id: accepted.id, message: QUEUED };
  }),
}, { onBehalfOf });
