import type { EventData } from '../events/event-store';
import { absoluteUrl } from '../platform/http/paging';

/** Where a stored message is read back (GET /v3/domains/{domain}/messages/{key}) on this API. */
export function storedMessageUrl(baseUrl: string, domain: string, storageKey: string): string {
  return absoluteUrl(baseUrl, `/v3/domains/${domain}/messages/${storageKey}`);
}

/**
 * The event as the events API and webhooks show it: its `storage.url` points back at this API
 * (mailgun-go fetches it verbatim). Stored events keep only the key, since the host can differ.
 */
export function withStorageUrl(data: EventData, baseUrl: string, domain: string): EventData {
  const storage = data['storage'] as { key?: string } | undefined;
  if (!storage?.key) return data;
  return { ...data, storage: { ...storage, url: storedMessageUrl(baseUrl, domain, storage.key) } };
}
