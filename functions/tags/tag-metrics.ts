import { bucketsBetween, bucketStart } from '../analytics/buckets';
import { getCounters } from '../analytics/counter-store';
import { addCounts, type Counts } from '../analytics/counts';
import { SENDING_METRICS } from '../analytics/metrics';
import type { TagItem } from './tag-store';

/**
 * Each tag's metrics since it was first seen (POST /v1/analytics/tags with include_metrics): its
 * month counters from the analytics area, which are kept for good, summed. One BatchGet per 100
 * (tag, month) keys from the earliest first sighting, whatever the number of events.
 */
export async function tagMetrics(accountId: string, items: TagItem[], now = Date.now()): Promise<Map<string, Record<string, number | string>>> {
  const out = new Map<string, Record<string, number | string>>();
  if (!items.length) return out;
  const since = Math.min(...items.map((item) => item.firstSeen));
  const rows = await getCounters(accountId, ['tag'], 'month', bucketsBetween(since, now, 'month'), items.map((item) => [item.tagKey]), now);
  for (const item of items) {
    const from = bucketStart(item.firstSeen, 'month');
    const counts = rows.filter((row) => row.values[0] === item.tagKey && row.bucket >= from).reduce<Counts>((sum, row) => addCounts(sum, row.counts), {});
    out.set(item.tagKey, SENDING_METRICS.valuesOf(counts, SENDING_METRICS.names));
  }
  return out;
}
