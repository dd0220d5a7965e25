/**
 * Time buckets of the counters, in UTC: an hour (yyyymmddhh), a day (yyyymmdd) or a month (yyyymm).
 * Every counter exists at the three resolutions, so a query reads buckets of its own resolution and
 * never sums finer ones.
 */
export const RESOLUTIONS = ['hour', 'day', 'month'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The start of the bucket holding `ms`. */
export function bucketStart(ms: number, resolution: Resolution): number {
  switch (resolution) {
    case 'hour':
      return Math.floor(ms / HOUR_MS) * HOUR_MS;
    case 'day':
      return Math.floor(ms / DAY_MS) * DAY_MS;
    case 'month': {
      const d = new Date(ms);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    }
  }
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucket(start: number, resolution: Resolution): number {
  switch (resolution) {
    case 'hour':
      return start + HOUR_MS;
    case 'day':
      return start + DAY_MS;
    case 'month': {
      const d = new Date(start);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    }
  }
}

/** The bucket's name in keys: its start, as digits of the resolution's length. */
export function bucketId(ms: number, resolution: Resolution): string {
  const iso = new Date(ms).toISOString();
  const digits = iso.slice(0, 13).replace(/[-T]/g, '');
  return digits.slice(0, resolution === 'hour' ? 10 : resolution === 'day' ? 8 : 6);
}

/**
 * Starts of the buckets that overlap [from, to): the first is the one holding `from`. With `atMost`,
 * it stops one past that many, so a caller can refuse a huge window without building it.
 */
export function bucketsBetween(from: number, to: number, resolution: Resolution, atMost = Infinity): number[] {
  const starts: number[] = [];
  for (let start = bucketStart(from, resolution); start < to && starts.length <= atMost; start = nextBucket(start, resolution)) starts.push(start);
  return starts;
}
