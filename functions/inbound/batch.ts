import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { logger } from '../platform/logger';

/**
 * Handles a batch's records at once and reports the failed ones, so only those come back. Errors
 * are logged by name and message only: their own fields could carry a receiver's URL and its credentials.
 */
export async function eachRecord(records: readonly SQSRecord[], handle: (record: SQSRecord) => Promise<void>, failure: string): Promise<SQSBatchResponse> {
  const outcomes = await Promise.allSettled(records.map(handle));
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') return;
    const error = outcome.reason as Error;
    logger.error(failure, { messageId: records[i]!.messageId, errorName: error.name, errorMessage: error.message });
    batchItemFailures.push({ itemIdentifier: records[i]!.messageId });
  });
  return { batchItemFailures };
}
