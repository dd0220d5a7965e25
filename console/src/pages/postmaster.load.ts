import { call } from '../api';
import { credentials } from '../session';

/** The period the page opens on, in days. */
export const FIRST_DAYS = 30;

/**
 * The last `days` as the API's range. Google's figures are daily: the end is the current minute,
 * so the page's own call and the one asked ahead as its link was clicked are the same call.
 */
export function range(days: number) {
  const end = Math.floor(Date.now() / 60_000) * 60;
  return { offset: 0, limit: 1000, timeRangeStart: end - days * 86_400, timeRangeEnd: end };
}

/** Each domain's figures over the last `days`. */
export function fetchSummary<T>(days: number, signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/reputationanalytics/gpt/summary/domains', { query: range(days), signal });
}

/** What the Postmaster page asks for as it opens. */
export function loadPostmaster(): void {
  void fetchSummary(FIRST_DAYS);
}
