import { call } from '../api';
import { credentials } from '../session';

/** The account's score over all its mail. */
export function fetchTotalScore<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/maverick-score/total', { signal });
}

/** Scores grouped by domain (lowest first) or by day (oldest first); `term` narrows them (`domain:<name>`). */
export function fetchScores<T>(group: 'domain' | 'timestamp', { term, signal }: { term?: string; signal?: AbortSignal } = {}): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/maverick-score/grouped', { query: { group, limit: 100, sort: group === 'domain' ? 'score:asc' : 'timestamp:asc', term }, signal });
}

/** What the Health score page asks for as it opens. */
export function loadHealth(): void {
  void fetchTotalScore();
  void fetchScores('domain');
  void fetchScores('timestamp');
}
