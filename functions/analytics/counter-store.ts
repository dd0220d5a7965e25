import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getItems, isLive, queryAll } from '../data/store';
import { TABLE_KEYS } from '../data/table';
import { defineEntity } from '../data/key-registry';
import { byteLength, MAX_SORT_KEY_BYTES } from '../data/key-limits';
import { documentClient } from '../platform/aws-clients';
import { logger } from '../platform/logger';
import { mapLimit } from '../platform/concurrency';
import { env } from '../platform/env';
import { bucketId, nextBucket, type Resolution } from './buckets';
import { STORED_COUNTS, type Counts } from './counts';
import { kindName, valuesKey, valuesOfKey, type Attribute } from './slices';

/**
 * Pre-aggregated counters: one item per (account, slice kind, resolution, bucket, slice values),
 * holding one number attribute per count (counts.ts), added to with UpdateItem ADD.
 *
 * So a query costs one read per bucket it covers (times the distinct values it groups by), never
 * one per event. Kinds, values and the sort key's encoding are in slices.ts.
 *
 * Retention is Mailgun's: hour buckets expire 60 days after they end, day buckets after a year,
 * month buckets are kept (their `ttl` is absent).
 */
defineEntity(
  'analytics counters',
  {
    counter: {
      what: 'one slice of one bucket (built by counterPartition and valuesKey): BatchGet per bucket',
      pk: 'ACCT#<account>#CNT#<kind>#<resolution>#<bucket>',
      sk: '<URI-encoded values, #-joined*>',
    },
  },
  [{ what: 'group by a value in a bucket (domains, countries), sk begins_with <values>#', pk: 'ACCT#<account>#CNT#<kind>#<resolution>#<bucket>' }],
);

function counterPartition(accountId: string, kind: readonly Attribute[], resolution: Resolution, bucket: number): string {
  return `ACCT#${accountId}#CNT#${kindName(kind)}#${resolution}#${bucketId(bucket, resolution)}`;
}

const RETENTION_DAYS: Record<Resolution, number | undefined> = { hour: 60, day: 366, month: undefined };

function expiryOf(resolution: Resolution, bucket: number): number | undefined {
  const days = RETENTION_DAYS[resolution];
  return days === undefined ? undefined : Math.floor(nextBucket(bucket, resolution) / 1000) + days * 86_400;
}

export interface CounterDelta {
  accountId: string;
  kind: readonly Attribute[];
  values: readonly string[];
  resolution: Resolution;
  bucket: number;
  counts: Counts;
}

/**
 * Slice values are URI-encoded into the sort key, so a long tag or country with non-ASCII letters
 * can make one longer than DynamoDB allows. No such counter can exist: it reads as zero, and an
 * event's delta for it is left out rather than failing the whole batch on every retry.
 */
const fitsSortKey = (sk: string) => byteLength(sk) <= MAX_SORT_KEY_BYTES;

export const deltaKey = (d: Omit<CounterDelta, 'counts'>) => `${counterPartition(d.accountId, d.kind, d.resolution, d.bucket)}\n${valuesKey(d.values)}`;

/** How many counter writes run at once: enough to hide latency, few enough not to flood a partition. */
const WRITE_CONCURRENCY = 16;

/**
 * Adds every delta, each one UpdateItem. `batch` names the set of events the deltas come from: each
 * item remembers the last batch added to it and refuses the same batch again, so a batch retried
 * after this function failed halfway does not add twice to the counters it already reached (see
 * count-events.ts for what is left).
 */
export async function addToCounters(deltas: CounterDelta[], batch: string): Promise<void> {
  const storable = deltas.filter((d) => fitsSortKey(valuesKey(d.values)));
  if (storable.length < deltas.length) logger.warn('counters with keys too long to store were skipped', { skipped: deltas.length - storable.length });
  await mapLimit(storable, WRITE_CONCURRENCY, async (d) => {
    const names: Record<string, string> = { '#batch': 'lastBatch' };
    const values: Record<string, unknown> = { ':batch': batch };
    const adds: string[] = [];
    STORED_COUNTS.forEach((name, i) => {
      const n = d.counts[name];
      if (!n) return;
      names[`#c${i}`] = name;
      values[`:c${i}`] = n;
      adds.push(`#c${i} :c${i}`);
    });
    if (!adds.length) return;
    const ttl = expiryOf(d.resolution, d.bucket);
    const sets = ['#batch = :batch'];
    if (ttl !== undefined) {
      names['#ttl'] = TABLE_KEYS.ttl;
      values[':ttl'] = ttl;
      sets.push('#ttl = :ttl');
    }
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: env().TABLE_NAME,
          Key: { pk: counterPartition(d.accountId, d.kind, d.resolution, d.bucket), sk: valuesKey(d.values) },
          UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_not_exists(#batch) OR #batch <> :batch',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      // Already added by an earlier attempt at this very batch.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  });
}

export interface CounterRow {
  bucket: number;
  values: string[];
  counts: Counts;
}

function countsOf(item: Record<string, unknown>): Counts {
  const counts: Counts = {};
  for (const name of STORED_COUNTS) if (typeof item[name] === 'number') counts[name] = item[name];
  return counts;
}

/** One slice's counters in each bucket: BatchGet, 100 keys a call (absent items are zero). */
export async function getCounters(accountId: string, kind: readonly Attribute[], resolution: Resolution, buckets: number[], valueSets: string[][], now = Date.now()): Promise<CounterRow[]> {
  const bucketOfPartition = new Map<string, number>();
  const keys = buckets.flatMap((bucket) => {
    const pk = counterPartition(accountId, kind, resolution, bucket);
    bucketOfPartition.set(pk, bucket);
    return valueSets.map((values) => ({ pk, sk: valuesKey(values) })).filter((key) => fitsSortKey(key.sk));
  });
  const items = await getItems<Record<string, unknown> & { ttl?: number }>(keys);
  return items.filter((item) => isLive(item, now)).map((item) => ({ bucket: bucketOfPartition.get(item.pk)!, values: valuesOfKey(item.sk), counts: countsOf(item) }));
}

/** Every counter of a kind in each bucket, optionally only those whose leading values are `prefix`. */
export async function queryCounters(accountId: string, kind: readonly Attribute[], resolution: Resolution, buckets: number[], prefix: readonly string[] = [], now = Date.now()): Promise<CounterRow[]> {
  const skPrefix = prefix.length ? `${valuesKey(prefix)}${prefix.length < kind.length ? '#' : ''}` : '';
  if (!fitsSortKey(skPrefix)) return [];
  const perBucket = await mapLimit(buckets, 8, async (bucket) => {
    const items = await queryAll<Record<string, unknown> & { sk: string; ttl?: number }>({ pk: counterPartition(accountId, kind, resolution, bucket) }, skPrefix, { withSortKey: true });
    return items.filter((item) => isLive(item, now)).map((item) => ({ bucket, values: valuesOfKey(item.sk), counts: countsOf(item) }));
  });
  return perBucket.flat();
}
