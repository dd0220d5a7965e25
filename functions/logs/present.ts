import type { RecordedEvent } from '../events/event-store';
import { storedMessageUrl } from '../messages/storage-url';

/**
 * One log item (contract §7.1, OpenAPI LogEvent) from a recorded event: `@timestamp` in RFC 3339
 * instead of epoch `timestamp`, the account and domain as objects, `storage.url` as a list of
 * URLs back to the host the client used, and `user-variables` as a JSON string.
 */
export function logItem({ accountId, domain, data }: RecordedEvent, baseUrl: string, parentId: string | undefined) {
  const { id, event, timestamp, storage, 'user-variables': variables, ...rest } = data;
  const stored = storage as { key?: string } | undefined;
  return {
    id,
    event,
    '@timestamp': new Date(Math.round(timestamp * 1000)).toISOString(),
    account: { id: accountId, ...(parentId ? { 'parent-id': parentId } : {}) },
    domain: { name: domain },
    ...rest,
    ...(stored ? { storage: { ...stored, url: stored.key ? [storedMessageUrl(baseUrl, domain, stored.key)] : [] } } : {}),
    ...(variables !== undefined ? { 'user-variables': JSON.stringify(variables) } : {}),
  };
}
