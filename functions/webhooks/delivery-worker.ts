import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { getItem, keyId, putItem, setAbsentAttributes, updateItemIf, type Key } from '../data/store';
import { TABLE_KEYS } from '../data/table';
import type { EventData } from '../events/event-store';
import { sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { hopDelaySeconds, jobsOf, retryDelayMs, type DeliveryJob } from './delivery-job';
import { recordFailedDelivery } from './failed-deliveries';
import { DeliveryError, postJson } from './http-post';
import { withStorageUrl } from '../messages/storage-url';
import { payloadOf } from './signature';
import { signingKeyForDelivery } from './signing-key';
import { webhookAddressPolicy } from './url-policy';
import { defineEntity } from '../data/key-registry';

export const deliveryClaimKeys = defineEntity('webhook delivery claims', {
  webhookDeliveries: { what: "which queue message owns each delivery (one per URL) of one attempt at an event's webhooks, one attribute per delivery: a retried stream batch enqueues them twice", pk: 'ACCT#<account>#WHDELIVERY#<event id>#<attempt>', sk: 'CLAIMS', key: (accountId: string, eventId: string, attempt: number): Key => ({ pk: `ACCT#${accountId}#WHDELIVERY#${eventId}#${attempt}`, sk: 'CLAIMS' }) },
});

/**
 * Consumes the webhook delivery queue: POSTs each job's event, signed, to its URL. The records of a
 * batch are sent concurrently, each bounded by WEBHOOK_TIMEOUT_MS, so a slow receiver delays no
 * other. A 2xx ends the job; 406 ends it as rejected; an address the policy refuses ends it as
 * refused-address; anything else (or no answer) queues the next attempt on Mailgun's schedule,
 * and after the last one the job is recorded as given up.
 * Retries are new messages rather than failed ones, so the queue's own redelivery (and its DLQ)
 * is left for failures of the worker itself: a table or queue call that failed.
 */

/** A claim outlives any replay of the stream batch that produced the job. */
const CLAIM_SECONDS = 86_400;

/** Rounds of claiming one event's deliveries before giving up (each lost race settles at least one). */
const CLAIM_ROUNDS = 5;

/** A due job of the batch, and the queue message that carries it. */
interface Due {
  job: DeliveryJob;
  messageId: string;
}

/**
 * Each attempt of a delivery is claimed for its queue message. A replayed stream batch enqueues
 * the same (event, URL) again under another message id, and a worker that died after queuing the
 * next attempt leaves that attempt queued twice; the second copy finds the claim taken and is
 * dropped, so one retry chain goes on. The same message redelivered finds its own claim and goes on.
 *
 * The claims of one attempt at one event's deliveries (one per URL) are attributes of one item,
 * and fan-out puts all of an event's URLs in one message, so they are claimed with one conditional
 * write (claimAbsent), as are any other jobs of the batch for the same event and attempt.
 * Whether a claim is taken depends on the delivery alone (its event, attempt and URL), never on
 * which batch or stream replay brought it, so any two copies of a delivery meet on the same
 * attribute. If the condition fails (a copy got there first, or this message was received
 * before), the item is read, the deliveries it names are settled and the rest tried again.
 *
 * Answers, for each job, whether it may go on; a failed claim fails the jobs of its event only.
 */
function claim(dues: Due[]): Map<Due, Promise<boolean>> {
  const groups = new Map<string, Due[]>();
  for (const due of dues) {
    const id = keyId(claimKey(due.job));
    groups.set(id, [...(groups.get(id) ?? []), due]);
  }
  const outcomes = new Map<Due, Promise<boolean>>();
  for (const group of groups.values()) {
    const won = claimGroup(claimKey(group[0]!.job), group).then((winners) => new Set(winners));
    for (const due of group) outcomes.set(due, won.then((winners) => winners.has(due)));
  }
  return outcomes;
}

const claimKey = (job: DeliveryJob) => deliveryClaimKeys.webhookDeliveries(job.accountId, job.event.id, job.attempt);
const claimAttribute = (job: DeliveryJob) => `d_${job.deliveryId}`;

async function claimGroup(key: Key, group: Due[]): Promise<Due[]> {
  let unsettled = group;
  const won: Due[] = [];
  for (let round = 0; unsettled.length; round++) {
    if (round === CLAIM_ROUNDS) throw new Error(`could not settle the claims of ${unsettled.length} webhook deliveries in ${round} rounds`);
    // Two copies of one delivery in the same batch: one is tried, and the other settled by the outcome.
    const tried = [...new Map(unsettled.map((due) => [due.job.deliveryId, due])).values()];
    if (await claimAbsent(key, tried, round === 0 && tried[0]!.job.attempt === 0)) return [...won, ...tried];
    // Some delivery is claimed already (a copy got there first, or this very message before a
    // redelivery): those are settled, whoever holds them (HANDLED: by this message before, not
    // again); the rest are tried again.
    const owners = (await getItem<Record<string, unknown>>(key, { consistent: true })) ?? {};
    const next: Due[] = [];
    for (const due of unsettled) {
      const owner = owners[claimAttribute(due.job)];
      if (owner === undefined) next.push(due);
      else if (owner === due.messageId) won.push(due);
    }
    unsettled = next;
  }
  return won;
}

/**
 * Claims deliveries none of which is claimed yet, in one conditional write; false when one is.
 * A first attempt's item is normally new (fan-out sends all of an event's URLs in one message), so
 * it is first written whole, if absent: the cheapest condition to check. Otherwise (a retry, whose
 * event's other URLs may be retried too, or the item was there) each attribute must be absent.
 */
async function claimAbsent(key: Key, dues: Due[], asNewItem: boolean): Promise<boolean> {
  const owners = Object.fromEntries(dues.map((due) => [claimAttribute(due.job), due.messageId]));
  const ttl = { [TABLE_KEYS.ttl]: Math.ceil(Date.now() / 1000) + CLAIM_SECONDS };
  return asNewItem ? putItem(key, { ...owners, ...ttl }, { ifAbsent: true }) : setAbsentAttributes(key, owners, ttl);
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

/** A delivery's claim once its message has handled it (sent, and queued its retry or recorded its failure). */
const HANDLED = 'handled';

/**
 * Sends the deliveries of one message that it claimed. If one of them fails (a table or queue
 * call after its POST), the message comes back for it; those already handled are marked so
 * first, so that the redelivery (which finds the other claims still in its name) does not send
 * them again.
 */
async function deliverAll(dues: Due[], claims: Map<Due, Promise<boolean>>): Promise<void> {
  const results = await Promise.allSettled(dues.map(async (due) => ((await claims.get(due)!) ? (await deliver(due.job), true) : false)));
  const failure = results.find((result) => result.status === 'rejected');
  if (!failure) return;
  const handled = dues.filter((_, i) => results[i]!.status === 'fulfilled' && (results[i] as PromiseFulfilledResult<boolean>).value);
  if (handled.length) {
    const mine = Object.fromEntries(handled.map((due) => [claimAttribute(due.job), due.messageId]));
    await updateItemIf(claimKey(handled[0]!.job), mine, Object.fromEntries(Object.keys(mine).map((attribute) => [attribute, HANDLED])));
  }
  throw failure.reason;
}

/** A record's job, or undefined for one that cannot be read (dropped: retrying cannot make it readable). */
function jobOf(record: SQSRecord): DeliveryJob | undefined {
  try {
    return JSON.parse(record.body) as DeliveryJob;
  } catch {
    // The queue only ever holds what fan-out and this worker wrote.
    logger.error('unreadable webhook delivery message dropped', { messageId: record.messageId });
    return undefined;
  }
}

/**
 * The batch's messages: those not due yet take another hop of at most 15 minutes; the deliveries
 * of the due ones are claimed together (one write per event they share) and those claimed here
 * are sent, all at once. A record fails (and is redelivered) only when its own hop, claim or
 * delivery failed.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const records = event.Records as SQSRecord[];
  const outcomes = new Map<string, Promise<unknown>>();
  const duesOf = new Map<string, Due[]>();
  const now = Date.now();
  for (const record of records) {
    const message = jobOf(record);
    if (!message) continue;
    if (message.notBefore !== undefined && message.notBefore > now) outcomes.set(record.messageId, enqueue(message));
    else duesOf.set(record.messageId, jobsOf(message).map((job) => ({ job, messageId: record.messageId })));
  }
  const claims = claim([...duesOf.values()].flat());
  for (const [messageId, dues] of duesOf) outcomes.set(messageId, deliverAll(dues, claims));
  const settled = await Promise.allSettled(records.map((record) => outcomes.get(record.messageId)));
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
