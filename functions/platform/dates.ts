/** RFC 1123 with GMT (`Thu, 13 Oct 2011 18:02:00 GMT`), the format of v3 resources. */
export function rfc1123(date: Date | number | string): string {
  return new Date(date).toUTCString();
}

/** RFC 3339 in UTC with milliseconds, the format of newer v1+ resources. */
export function rfc3339(date: Date | number | string): string {
  return new Date(date).toISOString();
}

/** ISO 8601 without a zone (`2006-01-02T15:04:05`): mailgun-go's ISO8601Time rejects anything else on /v1/keys. */
export function isoNoZone(date: Date | number | string): string {
  return new Date(date).toISOString().slice(0, 19);
}

/** Epoch seconds as a float (event timestamps). */
export function epochSeconds(date: Date | number | string): number {
  return new Date(date).getTime() / 1000;
}

/**
 * Parses the date inputs clients send: RFC 2822 (with or without zero-padded day), RFC 3339, or epoch
 * seconds. Returns undefined for anything else so callers can refuse it with their own message.
 */
export function parseDateInput(value: string): Date | undefined {
  const trimmed = value.trim();
  const date = /^\d+(\.\d+)?$/.test(trimmed) ? new Date(Number(trimmed) * 1000) : new Date(trimmed);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * The instant `duration` before `end`, in Mailgun's duration syntax (`24h`, `7d`, `2m` = months),
 * as the metrics, stats and logs APIs take it. Undefined when malformed; NaN when too far back for
 * a date (callers refuse both).
 */
export function durationBefore(duration: string, end: number): number | undefined {
  const match = /^(\d+)\s*([hdm])$/i.exec(duration.trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = match[2]!.toLowerCase();
  if (unit !== 'm') return end - amount * (unit === 'h' ? 3_600_000 : 86_400_000);
  const date = new Date(end);
  date.setUTCMonth(date.getUTCMonth() - amount);
  return date.getTime();
}
