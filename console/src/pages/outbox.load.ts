import { call, type Query } from '../api';
import { credentials } from '../session';

/** Local mode's record of what the SES stand-in delivered. */
export const OUTBOX = '/_local/outbox';
export const PAGE_SIZE = 50;

/** A page of the outbox (`query`: a search, and what arrived since or before a message). */
export function fetchOutbox<T>(query: Query, signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', OUTBOX, { query: { limit: PAGE_SIZE, ...query }, signal });
}

/** What the Outbox asks for as it opens. */
export function loadOutbox(): void {
  void fetchOutbox({});
}
