import { SEND_DEAD_LETTER_WORKER_TIMEOUT_SECONDS, SEND_MAX_RECEIVE_COUNT, SEND_WORKER_TIMEOUT_SECONDS } from './delivery/send-timing';
import { INSPECT_WORKER_TIMEOUT_SECONDS } from './inspect/job-timing';
import { EXPANSION_WORKER_TIMEOUT_SECONDS } from './lists/list-timing';
import { ALERT_WORKER_TIMEOUT_SECONDS } from './optimize/alerts/alert-timing';
import { platformEnvSchema } from './platform/env';
import { IP_JOB_WORKER_TIMEOUT_SECONDS } from './sending-ips/ip-job-timing';

/**
 * Every queue worker, in one table (as routes.ts is the HTTP surface and schedules.ts the periodic
 * jobs). CDK builds each row's SQS queue (with its dead-letter queue), Lambda and event source
 * from it (lib/constructs/queue-worker.ts); local mode builds the same queue in its SQS stand-in
 * with the same clocks, batch size and bound, invoking `functions/<entry>.ts`'s handler
 * (lib/local/queue-workers.ts). So local mode runs every worker as AWS does, by construction.
 *
 * The table's own stream (new events to analytics, webhooks' fan-out) is not a queue on AWS and
 * is not here (lib/constructs/event-stream.ts, lib/local/dynamodb-stream.ts).
 */
export interface QueueWorker {
  /** The queue's name in local mode (and its file in the data dir). */
  queue: string;
  /** The setting that gives producers the queue's URL; absent for a queue only AWS services fill (SNS). */
  urlSetting?: 'SEND_QUEUE_URL' | 'WEBHOOK_QUEUE_URL' | 'LIST_QUEUE_URL' | 'IP_JOB_QUEUE_URL' | 'ALERT_QUEUE_URL' | 'INSPECT_QUEUE_URL' | 'INBOUND_ACTION_QUEUE_URL';
  /** The module under functions/, without `.ts`, whose `handler` consumes the queue. */
  entry: string;
  /** The Lambda's description. */
  description: string;
  /** The Lambda's timeout; the queue's visibility timeout is six times it (visibilityTimeoutOf). */
  timeoutSeconds: number;
  /** Receives before a message is parked in the dead-letter queue; absent for a dead-letter queue itself. */
  maxReceiveCount?: number;
  /** Messages per invocation. */
  batchSize: number;
  /** The event source's bound on invocations at once (maxConcurrency); absent: unbounded. */
  maxConcurrency?: number;
  memorySizeMb?: number;
  /** What the worker's role may do (the grant of that name in lib/constructs/). */
  grant: 'send-worker' | 'abandon-unsent' | 'notifications-worker' | 'webhook-worker' | 'list-worker' | 'table-read-write' | 'alert-worker' | 'inspect-worker' | 'inbound-receive' | 'route-actions';
  /**
   * The local name of the queue's dead-letter queue, when a row consumes it (the row whose `queue`
   * it is: deadLetterConsumerOf) or people read it; otherwise local mode parks given-up messages
   * beside the queue.
   */
  deadLetterQueue?: string;
}

/**
 * AWS's guidance for a queue feeding a Lambda: a visibility timeout of at least six times the
 * function's timeout, so a batch whose invocation is retried (throttling, a cold start) is not
 * handed to a second consumer while the first may still be working on it.
 */
export const visibilityTimeoutOf = (timeoutSeconds: number) => 6 * timeoutSeconds;

/** Deliveries of a message before its queue parks it in the dead-letter queue. */
const MAX_RECEIVE_COUNT = 5;
/** Messages one invocation receives (the workers report partial batch failures). */
export const WORKER_BATCH_SIZE = 10;

/** One webhook POST's bound (WEBHOOK_TIMEOUT_MS's default) in whole seconds. */
const webhookPostSeconds = Math.ceil(platformEnvSchema.shape.WEBHOOK_TIMEOUT_MS.parse(undefined) / 1000);

export const queueWorkers = [
  {
    queue: 'send',
    urlSetting: 'SEND_QUEUE_URL',
    entry: 'delivery/send-worker',
    description: 'Queue worker: sends accepted messages through SES',
    // The clocks of the claims (delivery/send-timing.ts): a job comes back only once its claims are dead.
    timeoutSeconds: SEND_WORKER_TIMEOUT_SECONDS,
    maxReceiveCount: SEND_MAX_RECEIVE_COUNT,
    batchSize: WORKER_BATCH_SIZE,
    // The bound on SES calls at once: at the bound the poller stops taking messages (reserved
    // concurrency would throttle invocations, count receives and push mail to the DLQ). This is
    // the default; a deployment's sendConcurrency (lib/platform-stack.ts) replaces it on AWS.
    maxConcurrency: 2,
    grant: 'send-worker',
    deadLetterQueue: 'send-dead-letters',
  },
  {
    queue: 'send-dead-letters',
    entry: 'delivery/send-dead-letters',
    description: 'Queue worker: gives the unsent recipients of dead-lettered send jobs a final event',
    timeoutSeconds: SEND_DEAD_LETTER_WORKER_TIMEOUT_SECONDS,
    batchSize: WORKER_BATCH_SIZE,
    grant: 'abandon-unsent',
  },
  {
    // Fed by SES's event destination (SNS).
    queue: 'ses-notifications',
    entry: 'delivery/ses-notifications',
    description: 'Queue worker: turns SES notifications into events',
    // A batch is up to 10 notifications, a few table writes each.
    timeoutSeconds: 30,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    batchSize: WORKER_BATCH_SIZE,
    grant: 'notifications-worker',
  },
  {
    queue: 'webhooks',
    urlSetting: 'WEBHOOK_QUEUE_URL',
    entry: 'webhooks/delivery-worker',
    description: 'Queue worker: signs and POSTs webhook deliveries, re-queues retries',
    // A batch's POSTs run concurrently: one POST's bound plus room for the table and queue calls.
    timeoutSeconds: webhookPostSeconds + 20,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    batchSize: WORKER_BATCH_SIZE,
    // Unbounded: receivers are many and independent, and each POST is bounded by its timeout.
    grant: 'webhook-worker',
  },
  {
    queue: 'lists',
    urlSetting: 'LIST_QUEUE_URL',
    entry: 'lists/expansion-worker',
    description: 'Queue worker: expands list posts a page of members at a time, runs bulk member uploads',
    // A job is one page of members; the worker hands it back rather than start a page in its last 15 s.
    timeoutSeconds: EXPANSION_WORKER_TIMEOUT_SECONDS,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    batchSize: WORKER_BATCH_SIZE,
    // Each accepts 16 copies at a time and feeds the send queue, whose own bound limits SES: more would only queue faster.
    maxConcurrency: 4,
    grant: 'list-worker',
    deadLetterQueue: 'list-dead-letters',
  },
  {
    queue: 'list-dead-letters',
    entry: 'lists/dead-letters',
    description: 'Queue worker: ends list posts and uploads the list queue gave up on as failed',
    // It only marks posts and tasks failed: one write per job.
    timeoutSeconds: 30,
    batchSize: WORKER_BATCH_SIZE,
    grant: 'list-worker',
  },
  {
    queue: 'ip-jobs',
    urlSetting: 'IP_JOB_QUEUE_URL',
    entry: 'sending-ips/ip-jobs',
    description: 'Queue worker: moves domains between IP pools and IPs after the IP routes have answered',
    timeoutSeconds: IP_JOB_WORKER_TIMEOUT_SECONDS,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    batchSize: WORKER_BATCH_SIZE,
    maxConcurrency: 2,
    grant: 'table-read-write',
  },
  {
    queue: 'alerts',
    urlSetting: 'ALERT_QUEUE_URL',
    entry: 'optimize/alerts/delivery-worker',
    description: 'Queue worker: delivers alerts by webhook (signed), email and Slack, re-queues retries',
    timeoutSeconds: ALERT_WORKER_TIMEOUT_SECONDS,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    batchSize: WORKER_BATCH_SIZE,
    grant: 'alert-worker',
    deadLetterQueue: 'alert-dead-letters',
  },
  {
    queue: 'inspect',
    urlSetting: 'INSPECT_QUEUE_URL',
    entry: 'inspect/job-worker',
    description: 'Queue worker: runs inspection tests (links, images, accessibility, code analysis)',
    timeoutSeconds: INSPECT_WORKER_TIMEOUT_SECONDS,
    // A second receipt ends the run Failed (inspect/job-worker.ts); a third, if ending it failed.
    maxReceiveCount: 3,
    // One run is one invocation: a run may take minutes.
    batchSize: 1,
    // Tests running at once per region: each fetches links or images, so this also bounds outbound load.
    maxConcurrency: 8,
    // jsdom with axe-core over a 5 MiB email, and sharp decoding large images, need room.
    memorySizeMb: 2048,
    grant: 'inspect-worker',
    deadLetterQueue: 'inspect-dead-letters',
  },
  {
    queue: 'inbound-actions',
    urlSetting: 'INBOUND_ACTION_QUEUE_URL',
    entry: 'inbound/action-worker',
    description: 'Queue worker: runs route actions (signed POSTs, forwards through the send queue), re-queues retries',
    // One POST (bounded by WEBHOOK_TIMEOUT_MS) or one re-send, plus the table and queue calls around it.
    timeoutSeconds: webhookPostSeconds + 30,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    batchSize: WORKER_BATCH_SIZE,
    memorySizeMb: 512,
    grant: 'route-actions',
  },
  {
    // Fed by SES receiving's S3 action notifications (SNS); in local mode, by the inbound SMTP stand-in.
    queue: 'inbound',
    entry: 'inbound/receive-worker',
    description: 'Queue worker: parses received mail, records its events and queues its route actions',
    // It parses a message and writes a few items; route actions are separate jobs.
    timeoutSeconds: 60,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    batchSize: WORKER_BATCH_SIZE,
    memorySizeMb: 512,
    grant: 'inbound-receive',
  },
] as const satisfies readonly QueueWorker[];

export type QueueName = (typeof queueWorkers)[number]['queue'];

/** The row of a queue. */
export function queueWorker(queue: QueueName): QueueWorker {
  return queueWorkers.find((row) => row.queue === queue)!;
}

/** The row that consumes `row`'s dead-letter queue, if one does. */
export function deadLetterConsumerOf(row: QueueWorker): QueueWorker | undefined {
  return row.deadLetterQueue === undefined ? undefined : queueWorkers.find((other: QueueWorker) => other.queue === row.deadLetterQueue);
}
