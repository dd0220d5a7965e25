import { call } from '../api';
import { credentials } from '../session';

export function fetchMonthlyLimit<T>(signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v5/accounts/limit/custom/monthly', { signal });
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
  void fetchMonthlyLimit();
  void fetchAllowlist();
  void fetchUsers();
  void fetchAuthorizedRecipients();
}
