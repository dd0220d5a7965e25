import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../platform/logger';
import { receive } from './receive';
import { receiptOf } from './receipt';

/**
 * Consumes the inbound queue (SES receipt rule -> S3 action -> its SNS notification -> SQS, or the
 * local stand-in): one received message per record. A record that fails comes back (and after
 * five tries waits in the dead-letter queue with its raw message still in the bucket): receive()
 * is safe to repeat.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const outcomes = await Promise.allSettled(event.Records.map((record) => receive(receiptOf(record.body))));
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') return;
    const error = outcome.reason as Error;
    logger.error('inbound message not processed; the queue will redeliver it', { messageId: event.Records[i]!.messageId, errorName: error.name, errorMessage: error.message });
    failures.push({ itemIdentifier: event.Records[i]!.messageId });
  });
  return { batchItemFailures: failures };
}
