import { bucketsBetween } from '../analytics/buckets';
import { getCounters } from '../analytics/counter-store';
import { addCounts, type Counts } from '../analytics/counts';
import { SENDING_METRICS } from '../analytics/metrics';
import type { TagItem } from './tag-store';

/**
 * Each tag's metrics since it was first seen (POST /v1/analytics/tags with include_metrics): its
 * month counters from the analytics area, which are kept for good, summed. One BatchGet per 100
 * months of tags, whatever the number of events.
 */
export async function tagMetrics(accountId: string, items: TagItem[], now = Date.now()): Promise<Map<string, Record<string, number | string>>> {
  const out = new Map<string, Record<string, number | string>>();
  await Promise.all(
    items.map(async (item) => {
      const rows = await getCounters(accountId, ['tag'], 'month', bucketsBetween(item.firstSeen, now, 'month'), [[item.tagKey]], now);
      const counts = rows.reduce<Counts>((sum, row) => addCounts(sum, row.counts), {});
      out.set(item.tagKey, SENDING_METRICS.valuesOf(counts, SENDING_METRICS.names));
    }),
  );
  return out;
}
