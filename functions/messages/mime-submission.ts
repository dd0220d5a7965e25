import { sendingChoiceOf } from '../sending-ips/sending-options';
import { postToList } from '../lists/inbound-post';
import { listPostOf } from '../lists/post';
import { mapLimit } from '../platform/concurrency';
import { BadRequest, PayloadTooLarge } from '../platform/errors';
import { needsPerRecipientCopies, trackingBase, trackingPlan } from '../tracking/rewrite';
import { withinMonthlyLimit } from '../accounts/monthly-limit';
import { acceptMessage, envelopeRecipients, newMessageIdentity } from './accept';
import { parseRecipientVariables } from './batch';
import { recipientCopy, type CopyPlan } from './mime-copies';
import { mimeHeaders } from './mime-headers';
import { templatedMime } from './mime-template';
import { assertOwnSender } from './sender-domains';
import { newStorageKey } from './message-store';
import type { Mailbox } from './recipients';
import type { SendParams } from './send-params';
import { namedTemplate, templateHeaders } from './template-content';
import type { DomainItem } from '../domains/domain-store';

/**
 * The largest MIME message accepted, by POST /v3/{domain}/messages.mime and by SMTP submission
 * alike: API Gateway's 10 MB request limit, which bounds the HTTP path in any case (on AWS the
 * Lambda's 6 MB invocation payload bounds it further). SMTP announces it with the SIZE extension.
 */
export const MAX_MIME_MESSAGE_BYTES = 10 * 1024 * 1024;

/** How a message reached the platform: the `method` of its accepted events. */
export type SubmissionMethod = 'http' | 'smtp';

export interface MimeSubmission {
  accountId: string;
  /** The sending domain, already checked to be able to send (sendingDomain). */
  domain: DomainItem;
  /** The message as the client built it. */
  mime: Buffer;
  /** Recipients (to, cc, bcc: the envelope) and o:/v: options, from the form or the SMTP session. */
  params: SendParams;
  /** The raw options: `template`, `t:version`, `t:text`, `t:variables`, `recipient-variables`. */
  form: Record<string, unknown>;
  method: SubmissionMethod;
}

/** One copy to accept: its recipients, and what makes its MIME its own. */
interface Copy {
  recipients: string[];
  to?: Mailbox;
  values?: Record<string, unknown>;
}

/**
 * Accepts a caller-built MIME message: the one path behind POST /v3/{domain}/messages.mime and
 * the SMTP submission service (functions/smtp). A message without a Message-ID gets the
 * platform's, so events and replies can name it. A named template becomes its body; a batch
 * (recipient variables) or tracking makes one copy per recipient, all with one id, each stored
 * under its own key, as the HTTP messages path sends them. Then each copy is stored, gets its
 * accepted events and is queued like any other.
 */
export async function acceptMime(submission: MimeSubmission): Promise<{ id: string }> {
  if (submission.mime.length > MAX_MIME_MESSAGE_BYTES) throw new PayloadTooLarge(`The message exceeds the maximum size of ${MAX_MIME_MESSAGE_BYTES} bytes`);
  const recipients = envelopeRecipients(submission.params);
  // Before anything is counted or queued: a list post is accepted before its copies are.
  await assertOwnSender(submission.accountId, submission.domain.name, submission.mime);
  // The custom monthly limit counts the request's recipients (a list address counts as one).
  return withinMonthlyLimit(submission.accountId, submission.domain.name, recipients.all.length, () => acceptRecipients(submission, recipients));
}

async function acceptRecipients(submission: MimeSubmission, recipients: ReturnType<typeof envelopeRecipients>): Promise<{ id: string }> {
  const { domain, params } = submission;
  const batch = parseRecipientVariables(submission.form['recipient-variables']);
  if (batch && (recipients.cc.length || params.bcc.length)) throw new BadRequest("'cc' and 'bcc' cannot be combined with 'recipient-variables'");
  // A list address makes the message a list post, as on the messages endpoint (functions/lists/post.ts).
  const post = await listPostOf(submission.accountId, recipients);
  if (post) {
    if (batch) throw new BadRequest("'recipient-variables' cannot be combined with a mailing list address: members' vars fill its placeholders");
    const posted = await postToList(submission.accountId, post.list.address, submission.mime, mimeHeaders(submission.mime).from, 'api', {
      domain,
      tags: params.tags,
      testMode: params.testMode,
      tracking: params.tracking,
    });
    if ('refused' in posted) throw new BadRequest(posted.refused);
    return { id: posted.id };
  }
  const named = await namedTemplate(submission.accountId, domain.name, params, submission.form);
  const identity = newMessageIdentity(domain.name);
  let mime = submission.mime;
  if (named) {
    const { rendered } = named;
    const supplied: Array<[string, string]> = (['From', 'Subject', 'Reply-To'] as const).flatMap((name) => (rendered.headers[name] ? [[name, rendered.headers[name]] as [string, string]] : []));
    mime = await templatedMime(mime, { html: rendered.html, text: rendered.text, headers: [...supplied, ...templateHeaders(named.template)] });
  }
  const headers = mimeHeaders(mime);
  const messageId = headers.messageId ?? identity.messageId;
  if (!headers.messageId) mime = Buffer.concat([Buffer.from(`Message-Id: ${messageId}\r\n`), mime]);

  const plan = trackingPlan(domain, params.tracking);
  const tracked = needsPerRecipientCopies(plan, [mime.toString('latin1')]);
  const copies: Copy[] = batch
    ? recipients.to.map((to) => ({ recipients: [to.address.toLowerCase()], to, values: batch[to.address.toLowerCase()] ?? {} }))
    : tracked
      ? recipients.all.map((address) => ({ recipients: [address] }))
      : [{ recipients: recipients.all }];
  const base = trackingBase(domain);
  const bareId = messageId.trim().replace(/^<|>$/g, '');
  const sending = await sendingChoiceOf(submission.accountId, params.sendingIp, params.sendingIpPool);
  const accepted = await mapLimit([...copies.entries()], 16, async ([i, copy]) => {
    const plans: CopyPlan = {
      ...(copy.to ? { batch: { to: copy.to, values: copy.values ?? {} } } : {}),
      ...(tracked ? { tracking: { plan, base, claims: { a: submission.accountId, d: domain.name, m: bareId, r: copy.recipients[0]!, t: params.tags } } } : {}),
    };
    const body = plans.batch || plans.tracking ? await recipientCopy(mime, plans) : mime;
    const own = plans.batch ? mimeHeaders(body) : headers;
    return acceptMessage(
      {
        storageKey: i === 0 ? identity.storageKey : newStorageKey(),
        accountId: submission.accountId,
        domain: domain.name,
        messageId,
        from: own.from,
        subject: own.subject,
        recipients: copy.recipients,
        to: own.to || params.to.join(', '),
        tags: params.tags,
        userVariables: params.variables,
        attachments: [],
        testMode: params.testMode,
        deliverAt: params.deliverAt?.toISOString(),
        requireTls: params.requireTls,
        ...sending,
        ...(named ? { template: { name: named.template.name, version: named.template.version, 'is-text': named.template['is-text'] } } : {}),
        ...(submission.method === 'http' ? {} : { method: submission.method }),
      },
      body,
      domain,
    );
  });
  return accepted[0]!;
}
