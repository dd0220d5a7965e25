import { call } from '../api';
import { credentials } from '../session';

/** The events an alert can be set for. */
export function fetchAlertEvents<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/alerts/events', { signal });
}

export function fetchAlertSettings<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/alerts/settings', { signal });
}

/** How many alerts the history shows: the latest. */
export const HISTORY_LIMIT = 50;

/**
 * A page of the alerts raised, oldest first, with where each delivery stands: the latest, or the
 * page a paging link's pivot points at; of one event when `event` is given.
 */
export function fetchAlertHistory<T>(signal?: AbortSignal, at: { pivot?: Record<string, string>; event?: string } = {}): Promise<T> {
  const query = { ...(at.pivot ?? { page: 'last' }), limit: HISTORY_LIMIT, ...(at.event ? { event: at.event } : {}) };
  return call<T>(credentials(), 'GET', '/v1/alerts/history', { query, signal });
}

/** What the Alerts page asks for as it opens: the events, the settings and the history. */
export function loadAlerts(): void {
  void fetchAlertEvents();
  void fetchAlertSettings();
  void fetchAlertHistory();
}
