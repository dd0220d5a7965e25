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

/** The latest alerts raised, oldest first, with where each delivery stands. */
export function fetchAlertHistory<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/alerts/history', { query: { page: 'last', limit: HISTORY_LIMIT }, signal });
}

/** What the Alerts page asks for as it opens: the events, the settings and the history. */
export function loadAlerts(): void {
  void fetchAlertEvents();
  void fetchAlertSettings();
  void fetchAlertHistory();
}
