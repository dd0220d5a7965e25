import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import * as path from 'node:path';
import { EXPANSION_WORKER_TIMEOUT_SECONDS } from '../../functions/lists/list-timing';
import { REPO_ROOT } from '../paths';
import { type AreaResources, grantListWorker } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import { queueWorker } from './queue-worker';
import { QueueWithDlq } from './queue';
import { MAX_RECEIVE_COUNT, visibilityTimeoutFor } from './sending';

/**
 * The list worker's timeout: a job is one page of members (functions/lists/expansion-worker.ts),
 * and the worker hands a job back rather than start a page in its last 15 seconds.
 */
export const LIST_WORKER_TIMEOUT = Duration.seconds(EXPANSION_WORKER_TIMEOUT_SECONDS);
/** The dead-letter consumer only marks posts and tasks failed: one write per job. */
const LIST_DEAD_LETTER_TIMEOUT = Duration.seconds(30);
/**
 * Expansion invocations at once. Each accepts 16 copies at a time (S3, DynamoDB, SQS) and
 * feeds the send queue, whose own concurrency bounds SES: more would only queue faster.
 */
export const LIST_WORKER_CONCURRENCY = 4;

/**
 * Mailing lists' background work, as local mode wires it (lib/local/region-host.ts): the queue
 * that list posts and bulk uploads fill, its worker, and the consumer of its dead letters, which
 * ends a given-up post or upload as failed. The queue comes first (the platform environment names
 * it), the workers once that environment exists (`addWorkers`).
 */
export class Lists extends Construct {
  readonly queue: QueueWithDlq;
  worker?: PlatformFunction;
  deadLetterWorker?: PlatformFunction;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Six times the worker's timeout: a job comes back only once its invocation is certainly
    // dead, which is what lets a duplicate job for a page held by a live one be dropped.
    this.queue = new QueueWithDlq(this, 'ListQueue', {
      visibilityTimeout: visibilityTimeoutFor(LIST_WORKER_TIMEOUT),
      maxReceiveCount: MAX_RECEIVE_COUNT,
      deadLetterVisibilityTimeout: visibilityTimeoutFor(LIST_DEAD_LETTER_TIMEOUT),
    });
  }

  addWorkers(environment: Record<string, string>, resources: AreaResources): void {
    this.worker = queueWorker(this, 'ExpansionWorker', {
      entry: path.join(REPO_ROOT, 'functions', 'lists', 'expansion-worker.ts'),
      description: 'Queue worker: expands list posts a page of members at a time, runs bulk member uploads',
      environment,
      timeout: LIST_WORKER_TIMEOUT,
      queue: this.queue.queue,
      grant: (grantee) => grantListWorker(grantee, resources),
      maxConcurrency: LIST_WORKER_CONCURRENCY,
    });
    this.deadLetterWorker = queueWorker(this, 'DeadLetterWorker', {
      entry: path.join(REPO_ROOT, 'functions', 'lists', 'dead-letters.ts'),
      description: 'Queue worker: ends list posts and uploads the list queue gave up on as failed',
      environment,
      timeout: LIST_DEAD_LETTER_TIMEOUT,
      queue: this.queue.deadLetterQueue,
      grant: (grantee) => grantListWorker(grantee, resources),
    });
  }
}
