import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../platform/logger';
import type { SendJob } from '../messages/accept';
import { findMessage, loadMime, type MessageRecord } from '../messages/message-store';
import { allHeaderValues } from '../messages/mime-headers';
import { foreignSenderDomain, foreignSenderMessage, SENDER_FIELDS } from '../messages/sender-domains';
import { claim, failUnknown, invocationOf, outOfTime, release, settle, type Invocation } from './claims';
import { passGates } from './gates';
import { failedEvent } from './outcome-events';
import { sendInChunks } from './ses-chunks';
import { requeue } from './send-queue';
import { SEND_WORKER_TIMEOUT_SECONDS } from './send-timing';

/**
 * Consumes the send queue: claims each recipient (claims.ts), passes the claimed ones through the
 * policy gates (gates.ts) and hands the rest to SES in chunks (ses-chunks.ts). The final event
 * comes from SES's notifications (delivered, bounced: ses-notifications.ts) or from here (test
 * mode, refusals, rejections, retries exhausted).
 */

async function sendOne(job: SendJob, invocation: Invocation): Promise<void> {
  const record = await findMessage(job.storageKey);
  if (!record) {
    logger.warn('send job for a message that no longer exists', { storageKey: job.storageKey });
    return;
  }
  const { claimed, ambiguous, busyUntil } = await claim(record, invocation);
  // Another invocation holds some recipients: the job comes back once its claims are certainly
  // dead, never dropping a recipient that may still need sending.
  if (busyUntil !== undefined) await requeue(job, (busyUntil - Date.now()) / 1000);
  await failUnknown(record, ambiguous, job.attempt + 1);
  try {
    await sendClaimed(job, record, claimed, invocation);
  } catch (error) {
    // What was claimed and never handed to SES goes back at once, so the queue's redelivery
    // (and in the end its dead-letter consumer) finds it free, not held until the deadline.
    await release(record.storageKey, claimed, invocation, 'claimed');
    throw error;
  }
}

/** Settles or sends the recipients this invocation claimed. */
async function sendClaimed(job: SendJob, record: MessageRecord, recipients: string[], invocation: Invocation): Promise<void> {
  if (!recipients.length) return;
  const { domain, refused, sendable } = await passGates(record, recipients);
  await settle(record, [...refused.keys()], (recipient) => refused.get(recipient)!);
  if (!domain || !sendable.length) return;
  const stored = await loadMime(record);
  if (!stored) throw new Error(`MIME of ${record.storageKey} is missing`);
  // Checked again here, the one door to SES, for mail accepted before the rule or by a path
  // that missed it: SES signs with the key of whichever identity the From names.
  const foreign = await foreignSenderDomain(record.accountId, allHeaderValues(stored, SENDER_FIELDS), [domain.name]);
  if (foreign) {
    await settle(record, sendable, (recipient) => failedEvent(record, recipient, foreignSenderMessage(foreign), job.attempt + 1));
    return;
  }
  await sendInChunks(job, record, domain, stored, sendable, invocation);
}

/**
 * Gives every recipient not yet sent a final failed event, claiming it so that a late send job
 * cannot send it after all; a recipient a dead invocation left 'sending' fails as unknown. For a
 * message that could not be handed to the send queue (schedule-undelivered.ts) or whose job the
 * queue gave up on (send-dead-letters.ts). `busyUntil` says another invocation still holds some
 * recipients, and when its claims will be dead: ask again then.
 */
export async function abandonUnsent(storageKey: string, why: string): Promise<{ failed: number; busyUntil?: number }> {
  const record = await findMessage(storageKey);
  if (!record) return { failed: 0 };
  const invocation = invocationOf(SEND_WORKER_TIMEOUT_SECONDS * 1000);
  const { claimed, ambiguous, busyUntil } = await claim(record, invocation);
  await failUnknown(record, ambiguous, 0);
  await settle(record, claimed, (recipient) => failedEvent(record, recipient, why, 0));
  return { failed: claimed.length + ambiguous.length, busyUntil };
}

export async function handler(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  // Without a Lambda context (a direct call), the deployed timeout is assumed.
  const invocation = invocationOf(context?.getRemainingTimeInMillis() ?? SEND_WORKER_TIMEOUT_SECONDS * 1000);
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records as SQSRecord[]) {
    try {
      const job = JSON.parse(message.body) as SendJob;
      // Too late in this invocation to start another message: it goes back to the queue as it
      // is, rather than being cut off by the timeout (which would count against the whole batch).
      if (outOfTime(invocation)) await requeue(job, 0);
      else await sendOne(job, invocation);
    } catch (error) {
      logger.error('send job failed; the queue will redeliver it', { messageId: message.messageId, error: error as Error });
      failures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures: failures };
}
