import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../platform/logger';
import type { InspectJob } from './common/inspect-store';
import { failRun } from './job-worker';

/**
 * Consumes the inspection queue's dead letters: a run whose worker was killed on every attempt
 * (out of time or memory, so it could not end the test itself) ends `Failed`.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    try {
      const job = JSON.parse(message.body) as InspectJob;
      await failRun(job, 'The test could not be run: its worker ran out of time or memory on every attempt');
    } catch (error) {
      logger.error('inspection dead letter could not be settled', { messageId: message.messageId, error: error as Error });
      failures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures: failures };
}
