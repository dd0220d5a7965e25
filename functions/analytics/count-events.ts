import { createHash } from 'node:crypto';
import type { RecordedEvent } from '../events/event-store';
import { mapLimit } from '../platform/concurrency';
import { bucketStart, RESOLUTIONS } from './buckets';
import { addToCounters, deltaKey, type CounterDelta } from './counter-store';
import { countsOfEvent, type Firsts, type StoredCount } from './counts';
import { combinations, eventValues, KINDS } from './slices';
import { claimFirst } from './unique-marks';

/**
 * A count an area adds to the analytics' own for some events (the spam-trap hits of
 * functions/optimize/spamtraps): for each event of a batch, the count it adds, if any. The sources
 * are listed where the event consumers are (functions/event-stream/handler.ts), so analytics
 * imports none of them.
 */
export type CountSource = (events: readonly RecordedEvent[]) => Promise<Array<StoredCount | undefined>>;

/**
 * Adds a batch of newly recorded events to the analytics counters, with what `sources` add to the
 * events it counts (the event-stream Lambda's consumer, once per batch). The batch is summed in
 * memory first, so a thousand deliveries of one domain in one hour cost one UpdateItem per counter
 * they touch, not a thousand.
 *
 * Delivery is at least once, and this is what a repeat does:
 * - The stream handler skips the records this consumer already finished (its progress mark), so
 *   a failure elsewhere (tags, webhooks) does not count them twice, even when the retry carries
 *   more records than the first try.
 * - If this function fails halfway and the same batch comes again, every counter item it already
 *   reached refuses the batch by its `lastBatch` (counter-store.ts); unique opens and clicks
 *   recognise their own event (unique-marks.ts). Counts stay exact.
 * - What can still double: an item that another batch (from another shard) updated between the
 *   failure and the retry has forgotten this batch, and a retry that carries more records than
 *   the failed try is a different batch. Either needs a failure inside this function itself.
 */
export function eventCounter(sources: readonly CountSource[]): (events: RecordedEvent[]) => Promise<void> {
  return (events) => countEvents(events, sources);
}

async function countEvents(events: RecordedEvent[], sources: readonly CountSource[]): Promise<void> {
  if (!events.length) return;
  const [firsts, added] = await Promise.all([firstsOf(events), Promise.all(sources.map((countsOf) => countsOf(events)))]);
  const deltas = new Map<string, CounterDelta>();
  events.forEach((event, i) => {
    const counts = countsOfEvent(event.data, firsts[i]);
    if (!counts.length) return;
    for (const fromSource of added) {
      const count = fromSource[i];
      if (count) counts.push(count);
    }
    const values = eventValues(event);
    const at = Math.round(event.data.timestamp * 1000);
    const buckets = RESOLUTIONS.map((resolution) => ({ resolution, bucket: bucketStart(at, resolution) }));
    for (const kind of KINDS) {
      for (const combination of combinations(kind, values)) {
        for (const { resolution, bucket } of buckets) {
          const slice = { accountId: event.accountId, kind, values: combination, resolution, bucket };
          const key = deltaKey(slice);
          let delta = deltas.get(key);
          if (!delta) deltas.set(key, (delta = { ...slice, counts: {} }));
          for (const name of counts) delta.counts[name] = (delta.counts[name] ?? 0) + 1;
        }
      }
    }
  });
  await addToCounters([...deltas.values()], batchName(events));
}

/** A name for the batch that does not depend on its order: the hash of its event ids. */
function batchName(events: RecordedEvent[]): string {
  const ids = events.map((e) => e.data.id).sort();
  return createHash('sha256').update(ids.join('\n')).digest('base64url').slice(0, 22);
}

/** For each open and click, whether it is its message's first by that recipient. */
async function firstsOf(events: RecordedEvent[]): Promise<Firsts[]> {
  return mapLimit(events, 16, async (event) => {
    const name = event.data.event;
    if (name !== 'opened' && name !== 'clicked') return {};
    const message = event.data['message'] as { headers?: { 'message-id'?: unknown } } | undefined;
    const messageId = message?.headers?.['message-id'];
    const recipient = event.data['recipient'];
    // Without a message and a recipient there is nothing to be unique by: count it as unique.
    if (typeof messageId !== 'string' || typeof recipient !== 'string') return { [name]: true };
    return { [name]: await claimFirst(event.accountId, name, messageId, recipient, event.data.id, event.data.timestamp) };
  });
}
