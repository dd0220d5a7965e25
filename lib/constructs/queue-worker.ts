import { Duration } from 'aws-cdk-lib';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import * as path from 'node:path';
import { deadLetterConsumerOf, visibilityTimeoutOf, WORKER_BATCH_SIZE, type QueueWorker } from '../../functions/workers';
import { REPO_ROOT } from '../paths';
import type { AreaGrantee } from './area-permissions';
import { PlatformFunction, type PlatformFunctionProps } from './platform-function';
import { QueueWithDlq } from './queue';

export interface QueueWorkerProps extends PlatformFunctionProps {
  queue: sqs.IQueue;
  /** What the worker may touch (one of area-permissions.ts's grants). */
  grant: (grantee: AreaGrantee) => void;
  /** The SQS event source's bound on concurrent invocations; unbounded when absent. */
  maxConcurrency?: number;
  /** Messages per invocation; WORKER_BATCH_SIZE unless a message is a long job of its own. */
  batchSize?: number;
}

/**
 * A platform function fed by an SQS queue, batches of WORKER_BATCH_SIZE, reporting which messages
 * of a batch failed so that only those come back.
 */
function queueWorker(scope: Construct, id: string, { queue, grant, maxConcurrency, batchSize, ...fn }: QueueWorkerProps): PlatformFunction {
  const worker = new PlatformFunction(scope, id, fn);
  grant(worker.grantee);
  worker.fn.addEventSource(new SqsEventSource(queue, { batchSize: batchSize ?? WORKER_BATCH_SIZE, reportBatchItemFailures: true, maxConcurrency }));
  return worker;
}

/** A row's Lambda timeout (functions/workers.ts). */
export const workerTimeout = (row: QueueWorker) => Duration.seconds(row.timeoutSeconds);

/**
 * A row's queue (functions/workers.ts): its visibility timeout six times its worker's timeout,
 * its receive count, and a dead-letter queue whose visibility timeout suits the row consuming it.
 */
export function workerQueue(scope: Construct, id: string, row: QueueWorker): QueueWithDlq {
  const consumer = deadLetterConsumerOf(row);
  return new QueueWithDlq(scope, id, {
    visibilityTimeout: Duration.seconds(visibilityTimeoutOf(row.timeoutSeconds)),
    maxReceiveCount: row.maxReceiveCount,
    deadLetterVisibilityTimeout: consumer ? Duration.seconds(visibilityTimeoutOf(consumer.timeoutSeconds)) : undefined,
  });
}

export interface WorkerOfProps {
  /** The queue the row consumes: its own, or for a dead-letter consumer the dead-letter queue of the row it names. */
  queue: sqs.IQueue;
  environment: Record<string, string>;
  /** The grant the row names (its `grant`), on the construct's resources. */
  grant: (grantee: AreaGrantee) => void;
  /** A deployment's own bound, where the stack takes one (sendConcurrency); default the row's. */
  maxConcurrency?: number;
}

/** A row's Lambda and event source (functions/workers.ts). */
export function workerOf(scope: Construct, id: string, row: QueueWorker, { queue, environment, grant, maxConcurrency }: WorkerOfProps): PlatformFunction {
  return queueWorker(scope, id, {
    entry: path.join(REPO_ROOT, 'functions', `${row.entry}.ts`),
    description: row.description,
    environment,
    timeout: workerTimeout(row),
    ...(row.memorySizeMb ? { memorySize: row.memorySizeMb } : {}),
    queue,
    grant,
    maxConcurrency: maxConcurrency ?? row.maxConcurrency,
    batchSize: row.batchSize,
  });
}
