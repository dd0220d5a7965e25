import type { NestedStack } from 'aws-cdk-lib';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { platformEnvSchema } from '../../functions/platform/env';
import { queueWorker } from '../../functions/workers';
import { type AreaGrantee, type AreaResources, grantMessageObjects, grantSendToQueue, grantTableReadWrite } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import { workerOf, workerQueue } from './queue-worker';

const ALERTS = queueWorker('alerts');

/**
 * What sends alerts: the account's settings and Slack token in the table (the token and the
 * alerts signing key sealed with the platform key), and email through the sending pipeline
 * (the message's MIME stored, its send job queued), as the sandbox area's confirmation mail does.
 */
function grantAlertSending(grantee: AreaGrantee, { table, encryptionKey, messagesBucket, sendQueue }: AreaResources): void {
  grantTableReadWrite(grantee, table);
  encryptionKey.grantRead(grantee.role);
  grantMessageObjects(grantee, messagesBucket, ['s3:PutObject']);
  grantSendToQueue(grantee, sendQueue);
}

/** A producer of alerts (the blocklist monitor) calls raiseAlert, which queues one delivery per setting. */
export function grantRaiseAlerts(grantee: AreaGrantee, queue: sqs.IQueue): void {
  grantSendToQueue(grantee, queue);
}

/**
 * Alert delivery (functions/optimize/alerts), in the optimization product's nested stack (ProductApi's
 * `prepare`), as local mode wires it (lib/local/region-host.ts): the queue raiseAlert fills with one
 * message per (alert, setting), and the worker that delivers each by webhook, email or Slack and
 * re-queues retries on it (1m ... 4h, in hops of at most 15 minutes). Failures of the worker itself
 * are redelivered, then parked in the dead-letter queue.
 *
 * `-c alertsEmailDomain=<domain>` (a domain of the region, able to send) is where alert emails come
 * from; absent, each account's sandbox domain.
 */
export function addAlerts(stack: NestedStack, environment: Record<string, string>, resources: AreaResources) {
  const queue = workerQueue(stack, 'AlertQueue', ALERTS);
  const emailDomain: unknown = stack.node.tryGetContext('alertsEmailDomain');
  const alertsEnvironment: Record<string, string> = {
    ALERT_QUEUE_URL: queue.queue.queueUrl,
    ...(typeof emailDomain === 'string' && emailDomain ? { ALERTS_EMAIL_DOMAIN: platformEnvSchema.shape.ALERTS_EMAIL_DOMAIN.parse(emailDomain)! } : {}),
  };
  const worker = workerOf(stack, 'AlertWorker', ALERTS, {
    environment: { ...environment, ...alertsEnvironment },
    queue: queue.queue,
    grant: (grantee: AreaGrantee) => {
      grantAlertSending(grantee, resources);
      grantSendToQueue(grantee, queue.queue);
    },
  });
  return {
    queue,
    worker,
    environment: alertsEnvironment,
    grant: (area: string, fn: PlatformFunction) => {
      if (area === 'optimize/alerts') grantAlertSending(fn.grantee, resources);
    },
  };
}
