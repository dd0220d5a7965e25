import { call } from '../api';
import { credentials } from '../session';
import { loadBlocklistEvents } from './blocklist-events';

/** The IP blocklists checked. */
export function fetchBlocklists<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/blocklist-monitoring/blocklists', { signal });
}

export function fetchMonitoredIps<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/inboxready/ip_addresses', { query: { limit: 1000 }, signal });
}

/** The domains monitored on the domain lists, with their state. */
export function fetchMonitoredDomains<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/monitoring/domains', { signal });
}

/** The domains managed for monitoring (and their verification). */
export function fetchManagedDomains<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/inboxready/domains', { query: { limit: 1000 }, signal });
}

/** How many domain events the events section lists. */
export const DOMAIN_EVENTS = 100;

/** What the Blocklists page asks for as it opens: each section's data. */
export function loadBlocklists(): void {
  void fetchBlocklists();
  void fetchMonitoredIps();
  void fetchMonitoredDomains();
  void fetchManagedDomains();
  void loadBlocklistEvents(new AbortController().signal, DOMAIN_EVENTS);
}
