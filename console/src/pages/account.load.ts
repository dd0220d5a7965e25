import { call } from '../api';
import { credentials } from '../session';

/** The account's own monthly sending limit (pages/monthly-limit.tsx shows it). */
export const OWN_LIMIT_PATH = '/v5/accounts/limit/custom/monthly';

export function fetchAccountSettings<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v5/accounts', { signal });
}

export function fetchAllowlist<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v2/ip_whitelist', { signal });
}

export function fetchUsers<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v5/users', { query: { limit: 100 }, signal });
}

export function fetchAuthorizedRecipients<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v5/sandbox/auth_recipients', { signal });
}

/** What the Account settings page asks for as it opens: each section's data. */
export function loadAccount(): void {
  void call(credentials(), 'GET', OWN_LIMIT_PATH);
  void fetchAccountSettings();
  void fetchAllowlist();
  void fetchUsers();
  void fetchAuthorizedRecipients();
}
