import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import * as path from 'node:path';
import { platformEnvSchema } from '../../functions/platform/env';
import { REPO_ROOT } from '../paths';
import { type AreaResources, grantWebhookWorker } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import { queueWorker } from './queue-worker';
import { QueueWithDlq } from './queue';
import { MAX_RECEIVE_COUNT, visibilityTimeoutFor } from './sending';

/**
 * The webhook worker's timeout: a batch's POSTs run concurrently, each bounded by
 * WEBHOOK_TIMEOUT_MS, so one POST's bound plus room for the table and queue calls around it.
 */
export const WEBHOOK_WORKER_TIMEOUT = Duration.seconds(Math.ceil(platformEnvSchema.shape.WEBHOOK_TIMEOUT_MS.parse(undefined) / 1000) + 20);

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
    this.queue = new QueueWithDlq(this, 'DeliveryQueue', {
      visibilityTimeout: visibilityTimeoutFor(WEBHOOK_WORKER_TIMEOUT),
      maxReceiveCount: MAX_RECEIVE_COUNT,
    });
  }

  addWorker(environment: Record<string, string>, resources: AreaResources): PlatformFunction {
    // No maxConcurrency bound: receivers are many and independent, and each POST is bounded by its timeout.
    this.worker = queueWorker(this, 'DeliveryWorker', {
      entry: path.join(REPO_ROOT, 'functions', 'webhooks', 'delivery-worker.ts'),
      description: 'Queue worker: signs and POSTs webhook deliveries, re-queues retries',
      environment,
      timeout: WEBHOOK_WORKER_TIMEOUT,
      queue: this.queue.queue,
      grant: (grantee) => grantWebhookWorker(grantee, resources),
    });
    return this.worker;
  }
}
