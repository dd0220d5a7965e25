import { SendMessageBatchCommand, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import type { RecordedEvent } from '../events/event-store';
import { sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { deliveryIdOf, type DeliveryJob } from './delivery-job';
import { webhookNameOf, type WebhookName } from './names';
import { configuredUrls } from './webhook-config';
import { redactPii, redactsPii } from './redact-pii';

/** SQS's most entries per SendMessageBatch. */
const BATCH_ENTRIES = 10;
/** Entries SQS refused (throttling, an internal error) are sent again this many times before failing the call. */
const RESEND_ATTEMPTS = 3;

/**
 * Turns recorded events into deliveries: for each event, the URLs of its webhook type at domain
 * and account level, each URL once (Mailgun de-duplicates across levels), all in one queue
 * message per event. Called by the event stream (functions/event-stream) with each batch of new
 * events. A failure throws, so the stream retries the batch; the worker's duplicate guard
 * (delivery-worker.ts) drops the deliveries that made it the first time.
 */
export async function fanOutWebhooks(events: RecordedEvent[]): Promise<void> {
  const jobs: DeliveryJob[] = [];
  // One configuration read per domain of the batch, whatever the event types.
  const lookups = new Map<string, ReturnType<typeof configuredUrls>>();
  const urlsFor = async (accountId: string, domain: string, webhook: WebhookName) => {
    const key = `${accountId}\n${domain}`;
    let lookup = lookups.get(key);
    if (!lookup) lookups.set(key, (lookup = configuredUrls(accountId, domain)));
    return (await lookup)(webhook);
  };
  await Promise.all(
    events.map(async ({ accountId, domain, data }) => {
      const webhook = webhookNameOf(data);
      if (!webhook) return;
      const [url, ...others] = await urlsFor(accountId, domain, webhook);
      if (url === undefined) return;
      const alsoTo = others.map((other) => ({ url: other, deliveryId: deliveryIdOf(data.id, other) }));
      // Redacted before it is queued, so no copy of the personal data waits in the queue either.
      const event = (await redactsPii(accountId)) ? redactPii(data) : data;
      jobs.push({ deliveryId: deliveryIdOf(data.id, url), accountId, domain, url, webhook, event, attempt: 0, ...(alsoTo.length ? { alsoTo } : {}) });
    }),
  );
  await enqueueAll(jobs);
}

async function enqueueAll(jobs: DeliveryJob[]): Promise<void> {
  if (!jobs.length) return;
  const queueUrl = env().WEBHOOK_QUEUE_URL;
  if (!queueUrl) throw new Error('WEBHOOK_QUEUE_URL is not configured');
  const chunks: SendMessageBatchRequestEntry[][] = [];
  for (let i = 0; i < jobs.length; i += BATCH_ENTRIES) {
    chunks.push(jobs.slice(i, i + BATCH_ENTRIES).map((job, n) => ({ Id: String(n), MessageBody: JSON.stringify(job) })));
  }
  await Promise.all(chunks.map((entries) => sendBatch(queueUrl, entries)));
}

async function sendBatch(queueUrl: string, entries: SendMessageBatchRequestEntry[]): Promise<void> {
  let pending = entries;
  for (let attempt = 0; attempt < RESEND_ATTEMPTS && pending.length; attempt++) {
    const out = await sqsClient().send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }));
    const failed = new Set((out.Failed ?? []).map((entry) => entry.Id));
    pending = pending.filter((entry) => failed.has(entry.Id));
  }
  if (pending.length) throw new Error(`SQS refused ${pending.length} webhook deliveries after ${RESEND_ATTEMPTS} attempts`);
}
