import { Construct } from 'constructs';
import { queueWorker } from '../../functions/workers';
import { type AreaResources, grantWebhookWorker } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import type { QueueWithDlq } from './queue';
import { workerOf, workerQueue, workerTimeout } from './queue-worker';

const WEBHOOKS = queueWorker('webhooks');

/**
 * The webhook worker's timeout: a batch's POSTs run concurrently, each bounded by
 * WEBHOOK_TIMEOUT_MS, so one POST's bound plus room for the table and queue calls around it.
 */
export const WEBHOOK_WORKER_TIMEOUT = workerTimeout(WEBHOOKS);

/**
 * Webhook delivery, as local mode wires it (lib/local/region-host.ts): the queue that fan-out
 * (functions/webhooks/fan-out.ts, run by the event stream) fills with one message per (event, URL),
 * and the worker that signs and POSTs them and re-queues retries. The queue comes first, since the
 * platform environment names it; the worker once that environment exists (`addWorker`).
 */
export class Webhooks extends Construct {
  readonly queue: QueueWithDlq;
  worker?: PlatformFunction;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.queue = workerQueue(this, 'DeliveryQueue', WEBHOOKS);
  }

  addWorker(environment: Record<string, string>, resources: AreaResources): PlatformFunction {
    this.worker = workerOf(this, 'DeliveryWorker', WEBHOOKS, { environment, queue: this.queue.queue, grant: (grantee) => grantWebhookWorker(grantee, resources) });
    return this.worker;
  }
}
