import type { NestedStack } from 'aws-cdk-lib';
import { queueWorker } from '../../functions/workers';
import { type AreaGrantee, type AreaResources, grantSendToQueue, grantTableReadWrite } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import { workerOf, workerQueue } from './queue-worker';

const IP_JOBS = queueWorker('ip-jobs');

/**
 * IP pool work finished after the reply (Mailgun's DIPP rule 6: a deleted pool's domains moved to
 * its replacement, an IP put on or taken off every domain, a revoked delegation's domains moved):
 * a queue and its worker (functions/sending-ips/ip-jobs.ts), in the administration product's
 * nested stack (ProductApi's `prepare`). Jobs are idempotent, so a redelivery finishes one that a
 * crash cut short; five receipts, then the dead-letter queue keeps it.
 */
export function addIpJobs(stack: NestedStack, environment: Record<string, string>, resources: AreaResources) {
  const queue = workerQueue(stack, 'IpJobQueue', IP_JOBS);
  workerOf(stack, 'IpJobWorker', IP_JOBS, { environment, queue: queue.queue, grant: (grantee: AreaGrantee) => grantTableReadWrite(grantee, resources.table) });
  return {
    environment: { IP_JOB_QUEUE_URL: queue.queue.queueUrl },
    grant: (area: string, fn: PlatformFunction) => {
      if (area === 'admin/ips' || area === 'admin/dynamic-pools') grantSendToQueue(fn.grantee, queue.queue);
    },
  };
}
