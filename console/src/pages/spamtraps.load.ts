import { call } from '../api';
import { openingTime } from '../opening-time';
import { credentials } from '../session';

/** The period the page opens on, in days. */
export const OPENING_DAYS = 30;

/** When the page's period ends as it opens. */
export const spamTrapsOpening = openingTime();

/** The spam-trap counts of the `days` up to `end`, per `dimension` (day or sending domain). */
export function fetchSpamTraps<T>(days: number, end: Date, dimension: 'timestamp' | 'domain_name', signal?: AbortSignal): Promise<T> {
  const query = { start: new Date(end.getTime() - days * 86_400_000).toISOString(), end: end.toISOString(), dimension, limit: 1000, ...(dimension === 'domain_name' ? { sort: 'total_count:desc' } : {}) };
  return call<T>(credentials(), 'GET', '/v2/spamtraps', { query, signal });
}

/** What the Spam traps page asks for as it opens: its period's counts per day and per domain. */
export function loadSpamTraps(): void {
  const end = spamTrapsOpening.start();
  void fetchSpamTraps(OPENING_DAYS, end, 'timestamp');
  void fetchSpamTraps(OPENING_DAYS, end, 'domain_name');
}
