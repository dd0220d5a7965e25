import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import type { AreaGrantee } from './area-permissions';
import { PlatformFunction, type PlatformFunctionProps } from './platform-function';

/** SQS event sources: the most messages one invocation receives (the workers report partial failures). */
export const WORKER_BATCH_SIZE = 10;

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
export function queueWorker(scope: Construct, id: string, { queue, grant, maxConcurrency, batchSize, ...fn }: QueueWorkerProps): PlatformFunction {
  const worker = new PlatformFunction(scope, id, fn);
  grant(worker.grantee);
  worker.fn.addEventSource(new SqsEventSource(queue, { batchSize: batchSize ?? WORKER_BATCH_SIZE, reportBatchItemFailures: true, maxConcurrency }));
  return worker;
}
