import { Duration, type NestedStack } from 'aws-cdk-lib';
import * as path from 'node:path';
import { IP_JOB_WORKER_TIMEOUT_SECONDS } from '../../functions/sending-ips/ip-job-timing';
import { REPO_ROOT } from '../paths';
import { type AreaGrantee, type AreaResources, grantSendToQueue, grantTableReadWrite } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import { QueueWithDlq } from './queue';
import { queueWorker } from './queue-worker';
import { visibilityTimeoutFor } from './sending';

const IP_JOB_WORKER_TIMEOUT = Duration.seconds(IP_JOB_WORKER_TIMEOUT_SECONDS);

/**
 * IP pool work finished after the reply (Mailgun's DIPP rule 6: a deleted pool's domains moved to
 * its replacement, an IP put on or taken off every domain, a revoked delegation's domains moved):
 * a queue and its worker (functions/sending-ips/ip-jobs.ts), in the administration product's
 * nested stack (ProductApi's `prepare`). Jobs are idempotent, so a redelivery finishes one that a
 * crash cut short; five receipts, then the dead-letter queue keeps it.
 */
export function addIpJobs(stack: NestedStack, environment: Record<string, string>, resources: AreaResources) {
  const queue = new QueueWithDlq(stack, 'IpJobQueue', { visibilityTimeout: visibilityTimeoutFor(IP_JOB_WORKER_TIMEOUT), maxReceiveCount: 5 });
  queueWorker(stack, 'IpJobWorker', {
    entry: path.join(REPO_ROOT, 'functions', 'sending-ips', 'ip-jobs.ts'),
    description: 'Queue worker: moves domains between IP pools and IPs after the IP routes have answered',
    environment,
    timeout: IP_JOB_WORKER_TIMEOUT,
    queue: queue.queue,
    maxConcurrency: 2,
    grant: (grantee: AreaGrantee) => grantTableReadWrite(grantee, resources.table),
  });
  return {
    environment: { IP_JOB_QUEUE_URL: queue.queue.queueUrl },
    grant: (area: string, fn: PlatformFunction) => {
      if (area === 'admin/ips' || area === 'admin/dynamic-pools') grantSendToQueue(fn.grantee, queue.queue);
    },
  };
}
