import { call, type Query } from '../api';
import { credentials } from '../session';

export const PAGE_SIZE = 100;

/** A page of the mailing lists (`query`: the page size and where the page starts). */
export function fetchLists<T>(query: Query, signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v3/lists/pages', { query, signal });
}

/** What the Mailing lists page asks for as it opens. */
export function loadLists(): void {
  void fetchLists({ limit: PAGE_SIZE });
}
