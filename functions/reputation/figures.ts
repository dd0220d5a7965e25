import { bucketsBetween } from '../analytics/buckets';
import { getCounters } from '../analytics/counter-store';

/** An account's sending over a window, from the analytics counters it already keeps. */
export interface Figures {
  delivered: number;
  hardBounces: number;
  /** Hard and soft: every permanent failure a receiving server gave (suppressions are not sent, so not here). */
  bounced: number;
  complaints: number;
  /** Delivered plus bounced: what the rates are over. */
  volume: number;
  /** Percent of the volume. */
  bounceRate: number;
  complaintRate: number;
  /** The window: from the start of the first hour counted, to when it was read (epoch ms). */
  from: number;
  to: number;
}

const percentOf = (part: number, whole: number) => (whole > 0 ? (part / whole) * 100 : 0);

/**
 * The account's own figures (not its subaccounts') from `from` to `now`, read from the hour
 * counters of its events (functions/analytics): one read per hour of the window, whatever was sent.
 * The first hour is counted whole, so the window reaches back to the start of the hour holding `from`.
 */
export async function figuresOf(accountId: string, from: number, now: number): Promise<Figures> {
  const buckets = from <= now ? bucketsBetween(from, now + 1, 'hour') : [];
  const rows = buckets.length ? await getCounters(accountId, [], 'hour', buckets, [[]], now) : [];
  const sum = (name: 'delivered_smtp' | 'hard_bounces' | 'soft_bounces' | 'complained') => rows.reduce((total, row) => total + (row.counts[name] ?? 0), 0);
  const delivered = sum('delivered_smtp');
  const hardBounces = sum('hard_bounces');
  const bounced = hardBounces + sum('soft_bounces');
  const complaints = sum('complained');
  const volume = delivered + bounced;
  return { delivered, hardBounces, bounced, complaints, volume, bounceRate: percentOf(hardBounces, volume), complaintRate: percentOf(complaints, volume), from: buckets[0] ?? from, to: now };
}
