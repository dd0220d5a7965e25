import { loadHandler } from './function-handler';
import { queueWorkers, visibilityTimeoutOf, type QueueName, type QueueWorker as WorkerRow } from '../../functions/workers';
import type { QueueOptions, QueueWorker, SqsStandIn } from './sqs-standin';

/**
 * The worker table (functions/workers.ts) in local mode: each row's queue in the SQS stand-in,
 * on the clocks, receive count, batch size and dead-letter queue CDK gives it on AWS, invoking the
 * same handler. The one difference is the machine: where AWS runs more invocations of a worker
 * at once than LOCAL_MAX_CONCURRENCY (or any number), local mode runs that many.
 */

/** Batches of one worker in flight at once, at most, on one machine. */
export const LOCAL_MAX_CONCURRENCY = 4;

/** A dead-letter queue nothing consumes keeps messages for a person; SQS's default visibility timeout. */
const UNCONSUMED_DEAD_LETTERS: QueueOptions = { visibilityTimeoutSeconds: 30, batchSize: 10 };

/** A row's queue options; `timeoutSeconds` replaces the row's worker timeout, and the clocks that follow from it. */
export function localQueueOptions(row: WorkerRow, timeoutSeconds = row.timeoutSeconds): QueueOptions {
  return {
    visibilityTimeoutSeconds: visibilityTimeoutOf(timeoutSeconds),
    ...(row.maxReceiveCount !== undefined ? { maxReceiveCount: row.maxReceiveCount } : {}),
    ...(row.deadLetterQueue ? { deadLetterQueue: row.deadLetterQueue } : {}),
    functionTimeoutSeconds: timeoutSeconds,
    batchSize: row.batchSize,
    maxConcurrency: Math.min(row.maxConcurrency ?? LOCAL_MAX_CONCURRENCY, LOCAL_MAX_CONCURRENCY),
  };
}

export interface QueueWorkerOverrides {
  /** Worker timeouts other than the table's (local mode's shorter send worker timeout, tests'). */
  timeoutSeconds?: Partial<Record<QueueName, number>>;
  /** How a row's handler is found; default loadHandler. */
  load?: (entry: string) => QueueWorker;
}

/** Creates every row's queue (and each dead-letter queue a row names) with its worker; returns each queue's URL. */
export function createQueueWorkers(sqs: Pick<SqsStandIn, 'createQueue'>, overrides: QueueWorkerOverrides = {}): Record<QueueName, string> {
  const load = overrides.load ?? ((entry: string) => loadHandler<QueueWorker>(entry));
  const urls = {} as Record<QueueName, string>;
  const rows: readonly WorkerRow[] = queueWorkers;
  for (const row of rows) {
    urls[row.queue as QueueName] = sqs.createQueue(row.queue, localQueueOptions(row, overrides.timeoutSeconds?.[row.queue as QueueName]), load(row.entry));
  }
  for (const row of rows) {
    if (row.deadLetterQueue && !rows.some((other) => other.queue === row.deadLetterQueue)) sqs.createQueue(row.deadLetterQueue, UNCONSUMED_DEAD_LETTERS);
  }
  return urls;
}
