import { durationBefore, parseDateInput } from '../platform/dates';
import { BadRequest } from '../platform/errors';

/**
 * The time window of a metrics or stats question: `start` and `end` (RFC 2822, or epoch seconds for
 * the stats API), `duration` (`24h`, `7d`, `2m` = months) counted back from `end` and overriding
 * `start`, defaults end = now and start = 7 days before end.
 */
export interface TimeRange {
  from: number;
  to: number;
}

export function parseDuration(value: string, end: number): number {
  const start = durationBefore(value, end);
  if (start === undefined) throw new BadRequest(`Invalid duration '${value}': use a number of hours, days or months, such as 24h, 7d or 1m`);
  return start;
}

function parseDate(value: string, name: string): number {
  const date = parseDateInput(value);
  if (!date) throw new BadRequest(`Invalid ${name} '${value}': use an RFC 2822 date such as 'Mon, 02 Jan 2006 15:04:05 -0700'`);
  return date.getTime();
}

export function timeRange(input: { start?: string; end?: string; duration?: string }, now = Date.now()): TimeRange {
  const to = input.end !== undefined ? parseDate(input.end, 'end') : now;
  const from = input.duration !== undefined ? parseDuration(input.duration, to) : input.start !== undefined ? parseDate(input.start, 'start') : to - 7 * 86_400_000;
  // A duration or an epoch too large for a date (year 275760 and beyond) is no window at all.
  if (!Number.isFinite(from) || !Number.isFinite(to) || Number.isNaN(new Date(from).getTime())) throw new BadRequest('The time window is out of range');
  if (from >= to) throw new BadRequest('start must be before end');
  return { from, to };
}

/** `Tue, 24 Sep 2024 00:00:00 +0000`: RFC 2822 with a numeric zone, as the metrics API writes it. */
export function rfc2822(ms: number): string {
  return new Date(ms).toUTCString().replace(/GMT$/, '+0000');
}

/** `Tue, 14 Feb 2012 00:00:00 UTC`, as the stats API writes it. */
export function statsDate(ms: number): string {
  return new Date(ms).toUTCString().replace(/GMT$/, 'UTC');
}
