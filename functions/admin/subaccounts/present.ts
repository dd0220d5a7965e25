import type { AccountItem } from '../../accounts/account-store';
import { DEFAULT_FEATURES } from '../../accounts/subaccount-store';

/** Mailgun's dates on subaccounts: RFC 1123 (`Wed, 06 Nov 2024 19:48:29 GMT`). */
const rfc1123 = (iso: string) => new Date(iso).toUTCString();

export function subaccountJson(account: AccountItem) {
  return {
    id: account.accountId,
    name: account.name,
    status: account.status,
    created_at: rfc1123(account.createdAt),
    updated_at: rfc1123(account.updatedAt ?? account.createdAt),
    features: { ...DEFAULT_FEATURES, ...account.features, ...sendingWithReason(account) },
  };
}

/** `sending` turned off by the reputation guard says why (and since when) beside `enabled`. */
function sendingWithReason(account: AccountItem) {
  const pause = account.sendingPause;
  return pause && account.features?.['sending']?.enabled === false ? { sending: { enabled: false, reason: pause.reason, paused_by: pause.by, paused_at: rfc1123(pause.at) } } : {};
}
