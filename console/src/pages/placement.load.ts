import { call } from '../api';
import { credentials } from '../session';

/** The mailbox providers seed mailboxes are configured for. */
export function fetchProviders<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v4/inbox/providers', { signal });
}

export function fetchSeedLists<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v4/inbox/seedlists', { query: { limit: 100 }, signal });
}

/** The latest placement results. */
export function fetchResults<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v4/inbox/results', { query: { limit: 25 }, signal });
}

/** What the Inbox placement page asks for as it opens. */
export function loadPlacement(): void {
  void fetchProviders();
  void fetchSeedLists();
  void fetchResults();
}
