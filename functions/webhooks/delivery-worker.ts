import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { keys } from '../data/db';
import { getItem, putItem } from '../data/store';
import type { EventData } from '../events/event-store';
import { sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { hopDelaySeconds, retryDelayMs, type DeliveryJob } from './delivery-job';
import { recordFailedDelivery } from './failed-deliveries';
import { DeliveryError, postJson } from './http-post';
import { withStorageUrl } from '../messages/storage-url';
import { payloadOf } from './signature';
import { signingKeyForDelivery } from './signing-key';
import { webhookAddressPolicy } from './url-policy';

/**
 * Consumes the webhook delivery queue: POSTs each job's event, signed, to its URL. The records of a
 * batch are sent concurrently, each bounded by WEBHOOK_TIMEOUT_MS, so a slow receiver delays no
 * other. A 2xx ends the job; 406 ends it as rejected; an address the policy refuses ends it as
 * refused-address; anything else (or no answer) queues the next attempt on Mailgun's schedule,
 * and after the last one the job is recorded as given up.
 * Retries are new messages rather than failed ones, so the queue's own redelivery (and its DLQ)
 * is left for failures of the worker itself: a table or queue call that failed.
 */
interface DeliveryClaim {
  messageId: string;
  ttl: number;
}

/** A claim outlives any replay of the stream batch that produced the job. */
const CLAIM_SECONDS = 86_400;

/**
 * Each attempt of a delivery claims it for its queue message. A replayed stream batch enqueues the
 * same (event, URL) again under another message id, and a worker that died after queuing the next
 * attempt leaves that attempt queued twice; the second copy finds the claim taken and is dropped,
 * so one retry chain goes on. The same message redelivered finds its own claim and goes on.
 */
async function claim(job: DeliveryJob, messageId: string): Promise<boolean> {
  const key = keys.webhookDelivery(job.accountId, `${job.deliveryId}#${job.attempt}`);
  const item: DeliveryClaim = { messageId, ttl: Math.ceil(Date.now() / 1000) + CLAIM_SECONDS };
  if (await putItem(key, item, { ifAbsent: true })) return true;
  const owner = await getItem<DeliveryClaim>(key, { consistent: true });
  return owner?.messageId === messageId;
}

async function enqueue(job: DeliveryJob): Promise<void> {
  const delay = job.notBefore === undefined ? 0 : hopDelaySeconds(job.notBefore);
  await sqsClient().send(new SendMessageCommand({ QueueUrl: env().WEBHOOK_QUEUE_URL!, MessageBody: JSON.stringify(job), DelaySeconds: delay }));
}

/** The event as the events API shows it, its stored message's URL on this region's API. */
function present(event: EventData, domain: string): EventData {
  const base = env().PUBLIC_API_URL;
  return base ? withStorageUrl(event, base, domain) : event;
}

/** One attempt: the receiver's status, or what kept it from answering (`refused` when the address policy did). */
async function attempt(job: DeliveryJob): Promise<{ status?: number; outcome: string; refused?: boolean }> {
  const timeoutMs = env().WEBHOOK_TIMEOUT_MS;
  const key = await signingKeyForDelivery(job.accountId);
  const body = JSON.stringify(payloadOf(key, present(job.event, job.domain)));
  try {
    const reply = await postJson(job.url, body, { timeoutMs, policy: webhookAddressPolicy() });
    return { status: reply.status, outcome: String(reply.status) };
  } catch (error) {
    if (error instanceof DeliveryError) return { outcome: error.message, refused: error.kind === 'forbidden-address' };
    throw error;
  }
}

async function deliver(job: DeliveryJob): Promise<void> {
  const { status, outcome, refused } = await attempt(job);
  if (status !== undefined && status >= 200 && status < 300) return;
  if (status === 406) return recordFailedDelivery(job, 'rejected', outcome, Date.now());
  // Nothing was sent, and retrying would only probe the same address again for eight hours: a URL
  // stored before the policy refused it, or a name now pointing inside, is given up at once.
  if (refused) return recordFailedDelivery(job, 'refused-address', outcome, Date.now());
  const delay = retryDelayMs(job.attempt, env().WEBHOOK_RETRY_SCALE);
  if (delay === undefined) return recordFailedDelivery(job, 'retries-exhausted', outcome, Date.now());
  const at = Date.now();
  await enqueue({ ...job, attempt: job.attempt + 1, notBefore: at + delay, firstAttemptAt: job.firstAttemptAt ?? at, lastOutcome: outcome });
}

async function handleRecord(record: SQSRecord): Promise<void> {
  let job: DeliveryJob;
  try {
    job = JSON.parse(record.body) as DeliveryJob;
  } catch {
    // Retrying cannot make it readable; the queue only ever holds what fan-out and this worker wrote.
    logger.error('unreadable webhook delivery message dropped', { messageId: record.messageId });
    return;
  }
  // Not due yet: another hop of at most 15 minutes.
  if (job.notBefore !== undefined && job.notBefore > Date.now()) return enqueue(job);
  if (!(await claim(job, record.messageId))) return;
  await deliver(job);
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const records = event.Records as SQSRecord[];
  const settled = await Promise.allSettled(records.map(handleRecord));
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  settled.forEach((result, i) => {
    if (result.status === 'fulfilled') return;
    // Name and message only: an error's own fields (a URL parse error's `input`) could carry the
    // receiver's URL, credentials included.
    const error = result.reason as Error;
    logger.error('webhook delivery job failed; the queue will redeliver it', { messageId: records[i]!.messageId, errorName: error.name, errorMessage: error.message });
    failures.push({ itemIdentifier: records[i]!.messageId });
  });
  return { batchItemFailures: failures };
}
