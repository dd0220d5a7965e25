import type { DomainItem } from '../data/db';
import { PayloadTooLarge } from '../platform/errors';
import { mapLimit } from '../platform/concurrency';
import { needsPerRecipientCopies, trackingBase, trackingPlan } from '../tracking/rewrite';
import { acceptMessage, envelopeRecipients, newMessageIdentity, type Accepted } from './accept';
import { newStorageKey } from './message-store';
import { mimeHeaders } from './mime-headers';
import { trackMime } from './mime-tracking';
import type { SendParams } from './send-params';

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
  method: SubmissionMethod;
}

/**
 * Accepts a caller-built MIME message: the one path behind POST /v3/{domain}/messages.mime and
 * the SMTP submission service (functions/smtp). A message without a Message-ID gets the
 * platform's, so events and replies can name it; then it is stored, gets its accepted events and
 * is queued like any other.
 */
export async function acceptMime(submission: MimeSubmission): Promise<Accepted> {
  const { domain, params } = submission;
  if (submission.mime.length > MAX_MIME_MESSAGE_BYTES) throw new PayloadTooLarge(`The message exceeds the maximum size of ${MAX_MIME_MESSAGE_BYTES} bytes`);
  const recipients = envelopeRecipients(params);
  const headers = mimeHeaders(submission.mime);
  const identity = newMessageIdentity(domain.name);
  const messageId = headers.messageId ?? identity.messageId;
  const mime = headers.messageId ? submission.mime : Buffer.concat([Buffer.from(`Message-Id: ${messageId}\r\n`), submission.mime]);
  // Tracked links name their recipient, so tracked mail is one copy per recipient (each stored
  // under its own key, all with one id), as the HTTP messages path sends it.
  const plan = trackingPlan(domain, params.tracking);
  const tracked = needsPerRecipientCopies(plan, [mime.toString('latin1')]);
  const copies = tracked ? recipients.all.map((address) => [address]) : [recipients.all];
  const base = trackingBase(domain);
  const accepted = await mapLimit([...copies.entries()], 16, async ([i, copy]) =>
    acceptMessage(
      {
        storageKey: i === 0 ? identity.storageKey : newStorageKey(),
        accountId: submission.accountId,
        domain: domain.name,
        messageId,
        from: headers.from,
        subject: headers.subject,
        recipients: copy,
        to: headers.to || params.to.join(', '),
        tags: params.tags,
        userVariables: params.variables,
        attachments: [],
        testMode: params.testMode,
        deliverAt: params.deliverAt?.toISOString(),
        requireTls: params.requireTls,
        ...(submission.method === 'http' ? {} : { method: submission.method }),
      },
      tracked ? await trackMime(mime, plan, base, { a: submission.accountId, d: domain.name, m: messageId.trim().replace(/^<|>$/g, ''), r: copy[0]!, t: params.tags }) : mime,
      domain,
    ),
  );
  return accepted[0]!;
}
