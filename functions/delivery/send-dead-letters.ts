import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../platform/logger';
import type { SendJob } from '../messages/accept';
import { abandonUnsent } from './send-worker';

function sendJobOf(body: string): SendJob | undefined {
  try {
    const job = JSON.parse(body) as Partial<SendJob> | null;
    return job && typeof job.storageKey === 'string' ? (job as SendJob) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Consumes the send queue's dead-letter queue: a send job the queue gave up on (it failed on
 * every receive) still owes each recipient not yet sent a final event, so each gets a failed one.
 * A job whose recipients another invocation still holds comes back (partial batch failure) until
 * those claims are settled or dead.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    const job = sendJobOf(message.body);
    if (!job) {
      // Nothing the platform queued: no recipients to settle, and retrying cannot help.
      logger.error('dead-lettered message is not a send job; dropped', { messageId: message.messageId });
      continue;
    }
    try {
      const receives = message.attributes.ApproximateReceiveCount;
      const { failed, busyUntil } = await abandonUnsent(job.storageKey, 'Not delivered: sending failed on every attempt');
      if (busyUntil !== undefined) failures.push({ itemIdentifier: message.messageId });
      logger.error('send job dead-lettered; unsent recipients failed', { storageKey: job.storageKey, failed, waiting: busyUntil !== undefined, receives });
    } catch (error) {
      logger.error('could not settle a dead-lettered send job; it will come back', { messageId: message.messageId, error: error as Error });
      failures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures: failures };
}
