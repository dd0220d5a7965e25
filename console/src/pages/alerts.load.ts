import { call } from '../api';
import { credentials } from '../session';
import { loadBlocklistEvents } from './blocklist-events';

/** The events an alert can be set for. */
export function fetchAlertEvents<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/alerts/events', { signal });
}

export function fetchAlertSettings<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/alerts/settings', { signal });
}

/** How many domain events the alert history lists. */
export const HISTORY_DOMAIN_EVENTS = 50;

/** What the Alerts page asks for as it opens: the events, the settings and the history. */
export function loadAlerts(): void {
  void fetchAlertEvents();
  void fetchAlertSettings();
  void loadBlocklistEvents(new AbortController().signal, HISTORY_DOMAIN_EVENTS);
}
