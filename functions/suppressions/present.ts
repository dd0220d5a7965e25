import { rfc1123 } from '../platform/dates';
import type { SuppressionList } from './lists';
import type { ItemOf, SuppressionItem } from './suppression-store';

/** The record shapes of contract §8. Dates are RFC 1123 (mailgun-go's RFC2822Time), never null. */
const PRESENTERS: { [L in SuppressionList]: (item: ItemOf<L>) => Record<string, unknown> } = {
  bounces: (item) => ({ address: item.address, code: item.code, error: item.error, created_at: rfc1123(item.createdAt) }),
  complaints: (item) => ({ address: item.address, created_at: rfc1123(item.createdAt) }),
  unsubscribes: (item) => ({ address: item.address, tags: item.tags, created_at: rfc1123(item.createdAt) }),
  // The allowlist alone names its fields this way, camelCase `createdAt` included.
  whitelists: (item) => ({ type: item.type, value: item.address, reason: item.reason, createdAt: rfc1123(item.createdAt) }),
};

export function entryJson(item: SuppressionItem): Record<string, unknown> {
  return (PRESENTERS[item.list] as (item: SuppressionItem) => Record<string, unknown>)(item);
}
