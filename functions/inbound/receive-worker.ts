import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachRecord } from './batch';
import { receive } from './receive';
import { receiptOf } from './receipt';

/**
 * Consumes the inbound queue (SES receipt rule -> S3 action -> its SNS notification -> SQS, or the
 * local stand-in): one received message per record. A record that fails comes back (and after
 * five tries waits in the dead-letter queue with its raw message still in the bucket): receive()
 * is safe to repeat.
 */
export function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return eachRecord(event.Records, (record) => receive(receiptOf(record.body)), 'inbound message not processed; the queue will redeliver it');
}
