import type { AccountItem } from '../../accounts/account-store';

/** The account's own features PUT /v5/accounts/features sets, and GET /v5/accounts reads back. */
export const ACCOUNT_FEATURES = ['webhooks_redact_pii'] as const;

/**
 * GET /v5/accounts: what PUT /v5/accounts and PUT /v5/accounts/features set, under the names they
 * take, so a form can start from the current values. A setting never set is left out.
 */
export function accountSettingsJson(account: AccountItem) {
  const session = account.session ?? {};
  return {
    account: {
      id: account.accountId,
      name: account.name,
      status: account.status,
      created_at: new Date(account.createdAt).toUTCString(),
      ...(session.inactiveTimeout !== undefined ? { inactive_session_timeout: session.inactiveTimeout } : {}),
      ...(session.absoluteTimeout !== undefined ? { absolute_session_timeout: session.absoluteTimeout } : {}),
      ...(session.logoutRedirectUrl !== undefined ? { logout_redirect_url: session.logoutRedirectUrl } : {}),
      features: Object.fromEntries(ACCOUNT_FEATURES.map((name) => [name, { enabled: account.features?.[name]?.enabled === true }])),
    },
  };
}
