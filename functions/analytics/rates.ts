/**
 * Mailgun's rate metrics, computed from counts when read (OpenAPI Metric descriptions): each is a
 * percentage of its denominator, sent as a string with two decimals ("83.33"), "0.00" when the
 * denominator is zero. Rates are never stored: summing rates over buckets would be wrong, summing
 * counts and dividing once is not.
 */
type CountsOf = Record<string, number>;

const percent = (part: number, whole: number) => (whole > 0 ? ((part / whole) * 100).toFixed(2) : '0.00');

export const RATES: Record<string, (c: CountsOf) => string> = {
  // "The rate at which sent emails are delivered; does not include suppressed emails" (sent excludes them).
  delivered_rate: (c) => percent(c['delivered']!, c['sent']!),
  // Engagement is measured against what was delivered.
  opened_rate: (c) => percent(c['opened']!, c['delivered']!),
  clicked_rate: (c) => percent(c['clicked']!, c['delivered']!),
  unique_opened_rate: (c) => percent(c['unique_opened']!, c['delivered']!),
  unique_clicked_rate: (c) => percent(c['unique_clicked']!, c['delivered']!),
  unsubscribed_rate: (c) => percent(c['unsubscribed']!, c['delivered']!),
  complained_rate: (c) => percent(c['complained']!, c['delivered']!),
  // Bounces (hard + soft, suppressions excluded) and failures over the emails sent.
  bounce_rate: (c) => percent(c['bounced']!, c['sent']!),
  fail_rate: (c) => percent(c['failed']!, c['sent']!),
  permanent_fail_rate: (c) => percent(c['permanent_failed']!, c['sent']!),
  temporary_fail_rate: (c) => percent(c['temporary_failed']!, c['sent']!),
  // "Delivered with two or more attempts", over the delivered.
  delayed_rate: (c) => percent(c['delivered_two_plus_attempts']!, c['delivered']!),
  // "The denominator is the processed_count."
  delayed_first_attempt_rate: (c) => percent(c['delayed_first_attempt']!, c['processed']!),
};

export const RATE_METRICS = Object.keys(RATES);
