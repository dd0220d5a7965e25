import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../platform/logger';
import { finishTask } from './bulk';
import type { ListJob } from './jobs';
import { finishPost } from './post';

/**
 * Consumes the list queue's dead letters: a job the queue gave up on ends its post or upload task
 * as failed, so every one has a final status. Members a failed post had already reached keep
 * their copies (accepted and sent as any message); the rest were never accepted, so no accepted
 * event waits for an outcome.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    try {
      const job = JSON.parse(message.body) as ListJob;
      const why = 'Given up after repeated failures; see the list worker logs';
      if (job.kind === 'expand') await finishPost(job.postId, 'failed', why);
      else if (job.kind === 'import') await finishTask(job.accountId, job.taskId, 'failed', why);
      // A purge that keeps failing leaves members no list reaches: nothing waits on it.
      else logger.error("a deleted list's members could not all be deleted", { listId: job.listId });
    } catch (error) {
      logger.error('list dead letter could not be settled', { messageId: message.messageId, error: error as Error });
      failures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures: failures };
}
