import { rfc3339 } from '../platform/dates';
import type { TagItem } from './tag-store';
import type { AccountItem } from '../accounts/account-store';

/** A tag of POST /v1/analytics/tags (contract §7.4): snake_case, RFC 3339 dates, account named. */
export function accountTagJson(item: TagItem, account: AccountItem | undefined) {
  return {
    account_id: item.accountId,
    // A primary account is its own parent (Mailgun's example shows the same id twice).
    parent_account_id: account?.parentId ?? item.accountId,
    account_name: account?.name ?? '',
    tag: item.tag,
    description: item.description,
    first_seen: rfc3339(item.firstSeen),
    last_seen: rfc3339(item.lastSeen),
  };
}

/** A tag of the legacy /v3/{domain}/tags: hyphenated, RFC 3339 (mailgun-go decodes time.Time; §17). */
export function domainTagJson(item: TagItem) {
  return {
    tag: item.tag,
    description: item.description,
    'first-seen': rfc3339(item.firstSeen),
    'last-seen': rfc3339(item.lastSeen),
  };
}
