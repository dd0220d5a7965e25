import { RESOLUTIONS, bucketStart } from '../../analytics/buckets';
import { addToCounters } from '../../analytics/counter-store';
import type { StoredCount } from '../../analytics/counts';

/** The usage metric each check counts under (mailgun-contract §7.2), and previews per client; code analysis has none. */
export type UsageMetric = 'link_validation' | 'image_validation' | 'accessibility' | 'email_preview';

/**
 * Counts one finished run of a test in the account's usage metrics (`<metric>_count`, and
 * `<metric>_failed_count` when it failed), read back by POST /v1/analytics/usage/metrics. The
 * counter batch is the run itself, so a worker that retries after counting does not count twice.
 */
export async function countUsage(accountId: string, metric: UsageMetric, failed: boolean, run: string, at = Date.now()): Promise<void> {
  const counts: Partial<Record<StoredCount, number>> = { [metric]: 1 };
  if (failed) counts[`${metric}_failed`] = 1;
  await addToCounters(
    RESOLUTIONS.map((resolution) => ({ accountId, kind: [], values: [], resolution, bucket: bucketStart(at, resolution), counts })),
    `inspect:${run}`,
  );
}
