import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { putItem, getItem } from '../data/store';
import { keys } from '../data/db';
import type { RecordedEvent } from '../events/event-store';
import { logger } from '../platform/logger';
import { recordedEventOf } from './records';

/** Something that acts on every newly recorded event: analytics counters, the tag registry, webhooks. */
export interface EventConsumer {
  name: string;
  consume(events: RecordedEvent[]): Promise<void>;
}

/** How long a consumer's "done with this batch" mark is kept: longer than the stream's 24 h retention. */
const PROGRESS_TTL_SECONDS = 2 * 86_400;

/**
 * Hands a stream batch to every consumer. The stream retries a failed batch as a whole (from its
 * first record, with bisecting), so a consumer that already finished the batch marks it done and
 * is skipped on the retry: counters are not added twice and webhooks not queued twice because a
 * different consumer failed. A consumer that fails halfway through still repeats its own work;
 * each keeps that as small as it can.
 */
export function streamHandler(consumers: EventConsumer[]) {
  return async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
    const records = event.Records;
    if (!records.length) return { batchItemFailures: [] };
    const events = records.map(recordedEventOf).filter((e): e is RecordedEvent => e !== undefined);
    const batchId = batchIdOf(event);
    const results = await Promise.allSettled(consumers.map((consumer) => runOnce(consumer, batchId, events)));
    const failed = results.flatMap((result, i) => (result.status === 'rejected' ? [{ consumer: consumers[i]!.name, error: result.reason as Error }] : []));
    if (!failed.length) return { batchItemFailures: [] };
    for (const { consumer, error } of failed) logger.error('event consumer failed; the batch will be retried', { consumer, batchId, error });
    // Reporting the first record retries the whole batch; finished consumers skip it by their mark.
    return { batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb?.SequenceNumber ?? '' }] };
  };
}

async function runOnce(consumer: EventConsumer, batchId: string, events: RecordedEvent[]): Promise<void> {
  const mark = keys.streamProgress(consumer.name, batchId);
  if (await getItem(mark, { consistent: true })) return;
  if (events.length) await consumer.consume(events);
  await putItem(mark, { ttl: Math.floor(Date.now() / 1000) + PROGRESS_TTL_SECONDS });
}

/** A batch is named by its first and last sequence numbers and its size (sequence numbers only grow). */
function batchIdOf(event: DynamoDBStreamEvent): string {
  const sequence = event.Records.map((r) => r.dynamodb?.SequenceNumber ?? '');
  return `${sequence[0]}-${sequence[sequence.length - 1]}-${sequence.length}`;
}
