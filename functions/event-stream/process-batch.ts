import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { getItem, putItem, type Key } from '../data/store';
import type { RecordedEvent } from '../events/event-store';
import { logger } from '../platform/logger';
import { recordedEventOf } from './records';
import { defineEntity } from '../data/key-registry';

const streamProgressKeys = defineEntity('stream progress', {
  streamProgress: { what: 'an event-stream consumer has finished a batch (functions/event-stream): read before, written after', pk: 'SYSTEM#stream-progress#<consumer>', sk: '<batch id>', key: (consumer: string, batchId: string): Key => ({ pk: `SYSTEM#stream-progress#${consumer}`, sk: batchId }) },
});

/** Something that acts on every newly recorded event: analytics counters, the tag registry, webhooks. */
export interface EventConsumer {
  name: string;
  consume(events: RecordedEvent[]): Promise<void>;
}

/**
 * Records per stream batch (the deployed event source's and local mode's): large batches let the
 * counters add many events per UpdateItem, since a busy domain's events in one hour share their
 * counter items.
 */
export const EVENT_STREAM_BATCH_SIZE = 500;

/**
 * How long the event source waits to fill a batch (MaximumBatchingWindowInSeconds): up to this
 * much delay before counters and webhooks see an event, for batches that aggregate well.
 */
export const EVENT_STREAM_BATCHING_WINDOW_SECONDS = 2;

/** How long a consumer's progress mark is kept: longer than the stream's 24 h retention. */
const PROGRESS_TTL_SECONDS = 2 * 86_400;

interface ProgressMark {
  /** The last record of the batch the consumer finished. */
  through: string;
  ttl: number;
}

/**
 * Hands a stream batch to every consumer. On a failure the handler reports the batch's first
 * record, so the stream offers the batch again from that same record (without bisecting: see
 * lib/constructs/event-stream.ts), possibly with later records added. Each consumer that finished
 * a batch marks it under its first record with how far it got, and on the retry skips the records
 * up to there: counters are not added twice and webhooks not queued twice because a different
 * consumer failed. A consumer that fails halfway still repeats its own work; each keeps that as
 * small as it can.
 */
export function streamHandler(consumers: EventConsumer[]) {
  return async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
    const records = event.Records;
    if (!records.length) return { batchItemFailures: [] };
    // Unmarshalled once for all consumers, none of which changes the events it is given.
    const batch = records.map((record) => ({ sequence: sequenceOf(record), event: recordedEventOf(record) }));
    const results = await Promise.allSettled(consumers.map((consumer) => runOnce(consumer, batch)));
    const failed = results.flatMap((result, i) => (result.status === 'rejected' ? [{ consumer: consumers[i]!.name, error: result.reason as Error }] : []));
    if (!failed.length) return { batchItemFailures: [] };
    const first = sequenceOf(records[0]!);
    for (const { consumer, error } of failed) logger.error('event consumer failed; the batch will be retried', { consumer, first, error });
    return { batchItemFailures: [{ itemIdentifier: first }] };
  };
}

interface StreamedRecord {
  sequence: string;
  /** Undefined for a record that is not a new event (see recordedEventOf). */
  event: RecordedEvent | undefined;
}

async function runOnce(consumer: EventConsumer, batch: StreamedRecord[]): Promise<void> {
  const mark = streamProgressKeys.streamProgress(consumer.name, batch[0]!.sequence);
  const done = await getItem<ProgressMark>(mark, { consistent: true });
  const remaining = done ? batch.filter((record) => compareSequence(record.sequence, done.through) > 0) : batch;
  if (!remaining.length) return;
  const events = remaining.flatMap((record) => (record.event ? [record.event] : []));
  if (events.length) await consumer.consume(events);
  const item: ProgressMark = { through: batch[batch.length - 1]!.sequence, ttl: Math.floor(Date.now() / 1000) + PROGRESS_TTL_SECONDS };
  await putItem(mark, item);
}

const sequenceOf = (record: DynamoDBRecord) => record.dynamodb?.SequenceNumber ?? '';

/** Stream sequence numbers are decimal strings that only grow within a shard (a batch is one shard). */
export function compareSequence(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
