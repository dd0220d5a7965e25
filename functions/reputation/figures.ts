import { bucketsBetween, bucketStart } from '../analytics/buckets';
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

const COUNTED = ['delivered_smtp', 'hard_bounces', 'soft_bounces', 'complained'] as const;
type Counted = (typeof COUNTED)[number];

/**
 * What one hour's counters held at a moment: taken when a subaccount's sending is turned back on,
 * so that the guard counts the rest of that hour without what was counted in it before.
 */
export interface HourBaseline {
  /** The hour's start (epoch ms). */
  hour: number;
  counts: Partial<Record<Counted, number>>;
}

/** The account's own counters of the hour holding `at`, as they are now. */
export async function hourBaseline(accountId: string, at: number): Promise<HourBaseline> {
  const hour = bucketStart(at, 'hour');
  const [row] = await getCounters(accountId, [], 'hour', [hour], [[]], at);
  return { hour, counts: Object.fromEntries(COUNTED.map((name) => [name, row?.counts[name] ?? 0])) };
}

/**
 * The account's own figures (not its subaccounts') from `from` to `now`, read from the hour
 * counters of its events (functions/analytics): one read per hour of the window, whatever was sent.
 * The first hour is counted whole, so the window reaches back to the start of the hour holding `from`,
 * less what `baseline` says its hour held already (never below zero).
 */
export async function figuresOf(accountId: string, from: number, now: number, baseline?: HourBaseline): Promise<Figures> {
  const buckets = from <= now ? bucketsBetween(from, now + 1, 'hour') : [];
  const rows = buckets.length ? await getCounters(accountId, [], 'hour', buckets, [[]], now) : [];
  const counted = (row: (typeof rows)[number], name: Counted) => {
    const count = row.counts[name] ?? 0;
    return row.bucket === baseline?.hour ? Math.max(0, count - (baseline.counts[name] ?? 0)) : count;
  };
  const sum = (name: Counted) => rows.reduce((total, row) => total + counted(row, name), 0);
  const delivered = sum('delivered_smtp');
  const hardBounces = sum('hard_bounces');
  const bounced = hardBounces + sum('soft_bounces');
  const complaints = sum('complained');
  const volume = delivered + bounced;
  return { delivered, hardBounces, bounced, complaints, volume, bounceRate: percentOf(hardBounces, volume), complaintRate: percentOf(complaints, volume), from: buckets[0] ?? from, to: now };
}
