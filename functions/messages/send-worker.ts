import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deleteItem, getItem, putItem, updateItem } from '../data/store';
import { findDomain } from '../domains/domain-store';
import { suppressionFor, type SuppressionVerdict } from '../suppressions/sending';
import { newEvent, recordEvents, type EventData } from '../events/event-store';
import { mapLimit } from '../platform/concurrency';
import { sesSendClient, sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import type { SendJob } from './accept';
import { findMessage, loadMime, messageEventFields, type MessageRecord } from './message-store';

/**
 * Consumes the send queue. Each recipient is claimed with a conditional write before SES is
 * called, so a redelivered job never sends the same message to the same recipient twice; the
 * final event comes from SES's notifications (delivered, bounced) or from here (test mode,
 * rejections, retries exhausted).
 */
export const MAX_ATTEMPTS = 8;
export const RETRY_WINDOW_MS = 8 * 3600_000;
/** SES's limit on recipients per SendEmail call. */
export const SES_MAX_RECIPIENTS = 50;

/** Claim updates and suppression lookups in flight at once for one message (up to 1,000 recipients). */
const CLAIM_WRITES_AT_ONCE = 16;
const SUPPRESSION_CHECKS_AT_ONCE = 16;

/** SES tags that let a notification find its message (values: letters, digits, _ and - only). */
export const TAG_ACCOUNT = 'mp_account';
export const TAG_STORAGE = 'mp_storage';

const claimKey = (storageKey: string, recipient: string) => ({ pk: `MSG#${storageKey}`, sk: `RCPT#${recipient}` });

/**
 * How a failed SES call ends. SES answered that it did not send: retry later (throttling, its own
 * 5xx) or give up (a rejection). No answer at all (connection lost, timeout) is ambiguous: SES may
 * have sent, so the recipient is not sent again; its notification, if any, still arrives.
 */
type Failure = 'retry' | 'reject' | 'unknown';

const RETRYABLE = new Set(['TooManyRequestsException', 'LimitExceededException', 'ThrottlingException', 'InternalFailure', 'ServiceUnavailable']);

function classify(error: unknown): Failure {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined) return 'unknown';
  if (RETRYABLE.has(e.name ?? '') || status === 429 || status >= 500) return 'retry';
  return 'reject';
}

function outcomeEvent(record: MessageRecord, recipient: string, name: 'delivered' | 'failed', fields: Record<string, unknown>) {
  return newEvent(name, { ...messageEventFields(record, recipient), ...fields });
}

const SUPPRESSED: Record<SuppressionVerdict, string> = {
  'suppress-bounce': 'Not delivering to previously bounced address',
  'suppress-complaint': 'Not delivering to a user who marked your messages as spam',
  'suppress-unsubscribe': 'Not delivering to unsubscribed address',
};

/**
 * A claim still 'sending' this long after it was made belongs to an invocation that died (the
 * deployed worker times out at 2 minutes): SES may or may not have the message.
 */
export const STALE_CLAIM_MS = 5 * 60_000;

interface Claim {
  state: 'sending' | 'done';
  at: number;
}

/**
 * Claims the recipients not yet claimed. Those claimed and done were handled by an earlier
 * delivery; those left 'sending' by a dead invocation are returned as `stale`, to be settled
 * with a final event rather than sent again.
 */
async function claim(record: MessageRecord): Promise<{ claimed: string[]; stale: string[] }> {
  const now = Date.now();
  const outcomes = await mapLimit(record.recipients, CLAIM_WRITES_AT_ONCE, async (recipient) => {
    const key = claimKey(record.storageKey, recipient);
    if (await putItem(key, { state: 'sending', at: now, ttl: record.ttl }, { ifAbsent: true })) return 'claimed';
    const existing = await getItem<Claim>(key, { consistent: true });
    return existing?.state === 'sending' && now - existing.at >= STALE_CLAIM_MS ? 'stale' : 'handled';
  });
  const having = (outcome: string) => record.recipients.filter((_, i) => outcomes[i] === outcome);
  return { claimed: having('claimed'), stale: having('stale') };
}

const retryDelay = (attempt: number) => Math.min(900, env().SEND_RETRY_BASE_SECONDS * 2 ** attempt);

async function retryLater(job: SendJob): Promise<void> {
  const delay = retryDelay(job.attempt);
  const next: SendJob = { ...job, attempt: job.attempt + 1, firstAttemptAt: job.firstAttemptAt ?? Date.now() };
  await sqsClient().send(new SendMessageCommand({ QueueUrl: env().SEND_QUEUE_URL!, MessageBody: JSON.stringify(next), DelaySeconds: delay }));
}

async function sendOne(job: SendJob): Promise<void> {
  const record = await findMessage(job.storageKey);
  if (!record) {
    logger.warn('send job for a message that no longer exists', { storageKey: job.storageKey });
    return;
  }
  const { claimed: recipients, stale } = await claim(record);
  const done = (recipient: string) => updateItem(claimKey(record.storageKey, recipient), { state: 'done' });
  /** Final events for these recipients in as few writes as the table allows, then their claims done. */
  const settle = async (targets: string[], eventOf: (recipient: string) => EventData) => {
    await recordEvents(record.accountId, record.domain, targets.map(eventOf));
    await mapLimit(targets, CLAIM_WRITES_AT_ONCE, done);
  };
  const unknown = 'Delivery outcome unknown: an earlier attempt stopped while sending; not retried to avoid a duplicate';
  await settle(stale, (recipient) => outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: 'generic', 'delivery-status': { code: 550, message: unknown, description: unknown, 'attempt-no': job.attempt + 1 } }));
  if (!recipients.length) return;

  const domain = await findDomain(record.accountId, record.domain);
  if (!domain || (domain.queueClearedAt && record.createdAt <= domain.queueClearedAt)) {
    const why = domain ? "Cancelled: the domain's queue was cleared" : 'Cancelled: the domain was deleted';
    await settle(recipients, (recipient) => outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: 'generic', 'delivery-status': { code: 550, message: why, description: why, 'attempt-no': 0 } }));
    return;
  }

  if (record.testMode) {
    await settle(recipients, (recipient) => outcomeEvent(record, recipient, 'delivered', { 'delivery-status': { code: 250, message: 'OK', description: 'Test mode: accepted, not sent', 'attempt-no': 1, tls: false, utf8: true, 'certificate-verified': false, 'session-seconds': 0 } }));
    return;
  }
  // Checked at send time, so a bounce recorded after acceptance still stops the message.
  const verdicts = new Map(await mapLimit(recipients, SUPPRESSION_CHECKS_AT_ONCE, async (recipient) => [recipient, await suppressionFor(record.accountId, record.domain, recipient, record.tags)] as const));
  const sendable = recipients.filter((recipient) => !verdicts.get(recipient));
  await settle(
    recipients.filter((recipient) => verdicts.get(recipient)),
    (recipient) => {
      const verdict = verdicts.get(recipient)!;
      return outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: verdict, 'delivery-status': { code: 605, message: '', description: SUPPRESSED[verdict], 'attempt-no': 1, 'session-seconds': 0 } });
    },
  );
  if (!sendable.length) return;
  const mime = await loadMime(record);
  if (!mime) throw new Error(`MIME of ${record.storageKey} is missing`);
  const configurationSet = configurationSetFor(record.requireTls ?? domain.requireTls);
  // SES takes at most 50 recipients per call; each chunk succeeds or fails on its own.
  for (let i = 0; i < sendable.length; i += SES_MAX_RECIPIENTS) {
    await sendChunk(job, record, mime, configurationSet, sendable.slice(i, i + SES_MAX_RECIPIENTS), done);
  }
}

/**
 * SES applies a TLS policy per configuration set, so a message that must go over TLS names the
 * twin set whose policy is Require. Without that set it is not sent at all: sending it through
 * the opportunistic set would break the promise.
 */
function configurationSetFor(requireTls: boolean): string | undefined {
  if (!requireTls) return env().SES_CONFIGURATION_SET;
  const name = env().SES_TLS_CONFIGURATION_SET;
  if (!name) throw new Error('SES_TLS_CONFIGURATION_SET is not configured: a message that requires TLS cannot be sent');
  return name;
}

async function sendChunk(job: SendJob, record: MessageRecord, mime: Buffer, configurationSet: string | undefined, recipients: string[], done: (recipient: string) => Promise<unknown>): Promise<void> {
  try {
    await sesSendClient().send(
      new SendEmailCommand({
        Destination: { ToAddresses: recipients },
        Content: { Raw: { Data: mime } },
        ConfigurationSetName: configurationSet,
        EmailTags: [
          { Name: TAG_ACCOUNT, Value: record.accountId },
          { Name: TAG_STORAGE, Value: record.storageKey },
        ],
      }),
    );
    await mapLimit(recipients, CLAIM_WRITES_AT_ONCE, done);
  } catch (error) {
    const failure = classify(error);
    const age = Date.now() - (job.firstAttemptAt ?? Date.now());
    const giveUp = failure !== 'retry' || job.attempt + 1 >= MAX_ATTEMPTS || age >= RETRY_WINDOW_MS;
    const description =
      failure === 'unknown' ? `Delivery outcome unknown (${(error as Error).message}); not retried to avoid a duplicate` : (error as Error).message;
    await recordEvents(
      record.accountId,
      record.domain,
      recipients.map((recipient) =>
        outcomeEvent(record, recipient, 'failed', {
          'log-level': giveUp ? 'error' : 'warn',
          severity: giveUp ? 'permanent' : 'temporary',
          reason: giveUp && failure === 'retry' ? 'old' : 'generic',
          'delivery-status': { code: giveUp ? 550 : 421, message: description, description, 'attempt-no': job.attempt + 1, ...(giveUp ? {} : { 'retry-seconds': retryDelay(job.attempt) }) },
        }),
      ),
    );
    // A recipient to retry is released, so the retry can claim it again.
    await mapLimit(recipients, CLAIM_WRITES_AT_ONCE, (recipient) => (giveUp ? done(recipient) : deleteItem(claimKey(record.storageKey, recipient))));
    if (!giveUp) await retryLater(job);
  }
}

/**
 * Gives every recipient that no delivery has claimed a final failed event, claiming it so a late
 * send job cannot send it after all. For a message that could not be handed to the send queue
 * (functions/messages/schedule-undelivered.ts).
 */
export async function abandonUnsent(storageKey: string, why: string): Promise<number> {
  const record = await findMessage(storageKey);
  if (!record) return 0;
  const claims = await mapLimit(record.recipients, CLAIM_WRITES_AT_ONCE, (recipient) =>
    putItem(claimKey(storageKey, recipient), { state: 'done', at: Date.now(), ttl: record.ttl }, { ifAbsent: true }),
  );
  const unsent = record.recipients.filter((_, i) => claims[i]);
  await recordEvents(
    record.accountId,
    record.domain,
    unsent.map((recipient) => outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: 'generic', 'delivery-status': { code: 550, message: why, description: why, 'attempt-no': 0 } })),
  );
  return unsent.length;
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records as SQSRecord[]) {
    try {
      await sendOne(JSON.parse(message.body) as SendJob);
    } catch (error) {
      logger.error('send job failed; the queue will redeliver it', { messageId: message.messageId, error: error as Error });
      failures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures: failures };
}
