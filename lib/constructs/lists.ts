import { Construct } from 'constructs';
import { queueWorker } from '../../functions/workers';
import { type AreaResources, grantListWorker } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import type { QueueWithDlq } from './queue';
import { workerOf, workerQueue, workerTimeout } from './queue-worker';

const LISTS = queueWorker('lists');
const LIST_DEAD_LETTERS = queueWorker('list-dead-letters');

/**
 * The list worker's timeout: a job is one page of members (functions/lists/expansion-worker.ts),
 * and the worker hands a job back rather than start a page in its last 15 seconds.
 */
export const LIST_WORKER_TIMEOUT = workerTimeout(LISTS);
/** Expansion invocations at once (functions/workers.ts). */
export const LIST_WORKER_CONCURRENCY = LISTS.maxConcurrency;

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
    this.queue = workerQueue(this, 'ListQueue', LISTS);
  }

  addWorkers(environment: Record<string, string>, resources: AreaResources): void {
    this.worker = workerOf(this, 'ExpansionWorker', LISTS, { environment, queue: this.queue.queue, grant: (grantee) => grantListWorker(grantee, resources) });
    this.deadLetterWorker = workerOf(this, 'DeadLetterWorker', LIST_DEAD_LETTERS, { environment, queue: this.queue.deadLetterQueue, grant: (grantee) => grantListWorker(grantee, resources) });
  }
}
