import { defineEntity } from '../data/key-registry';
import { getItem, getItems, putItem, queryAll, updateItem, updateItemIf, type Key } from '../data/store';

/**
 * Accounts: every read and write of an account item goes through here. A subaccount is an account
 * with a `parentId`, listed under its parent; the region's primary account is recorded once.
 */
export const accountKeys = defineEntity(
  'accounts',
  {
    account: { what: 'an account by id', pk: 'ACCT#<account>', sk: 'ACCOUNT', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'ACCOUNT' }) },
    subaccount: {
      what: "one of a parent's subaccounts (its AccountItem stays the record of truth), in creation order",
      pk: 'ACCT#<parent>#SUBACCOUNTS',
      sk: '<subaccount>',
      key: (parentId: string, subaccountId = ''): Key => ({ pk: `ACCT#${parentId}#SUBACCOUNTS`, sk: subaccountId }),
    },
    primaryAccount: { what: 'which account is the region\'s primary one (bootstrap.ts)', pk: 'SYSTEM#primary-account', sk: 'SYSTEM', key: (): Key => ({ pk: 'SYSTEM#primary-account', sk: 'SYSTEM' }) },
  },
  [{ what: "a parent's subaccounts", pk: 'ACCT#<parent>#SUBACCOUNTS' }],
);

export interface AccountItem {
  accountId: string;
  name: string;
  parentId?: string;
  status: 'open' | 'disabled' | 'closed';
  createdAt: string;
  updatedAt?: string;
  /** Why a subaccount was disabled (POST …/disable `reason` and `note`). */
  disabledReason?: string;
  disabledNote?: string;
  /** A subaccount's features (PUT …/features): `{ sending: { enabled: true }, … }`. */
  features?: Record<string, { enabled: boolean }>;
  /** Why its sending is off, when the reputation guard turned it off (functions/accounts/sending.ts). */
  sendingPause?: { reason: string; by: 'reputation-guard'; at: string };
  /** When its sending was last turned back on: the reputation guard judges only what was sent after. */
  sendingResumedAt?: string;
  /** What its counters held in the hour it was turned back on, at that moment (functions/reputation/figures.ts). */
  sendingResumedBaseline?: { hour: number; counts: Record<string, number> };
  /** Dashboard session settings (PUT /v5/accounts): kept for a dashboard; this platform has no sessions of its own. */
  session?: { inactiveTimeout?: number; absoluteTimeout?: number; logoutRedirectUrl?: string };
}

export function findAccount(accountId: string, options: { consistent?: boolean } = {}): Promise<AccountItem | undefined> {
  return getItem<AccountItem>(accountKeys.account(accountId), options);
}

export function findAccounts(accountIds: readonly string[]): Promise<AccountItem[]> {
  return getItems<AccountItem>(accountIds.map((id) => accountKeys.account(id)));
}

export async function saveAccount(account: AccountItem): Promise<void> {
  await putItem(accountKeys.account(account.accountId), account);
}

/** Changes an account's attributes (undefined removes one); answers the account as it now is. */
export function patchAccount(accountId: string, changes: Partial<AccountItem>): Promise<AccountItem> {
  return updateItem<AccountItem>(accountKeys.account(accountId), changes);
}

/** Changes an account only if it still has the `expected` attributes; false when it changed meanwhile. */
export function patchAccountIf(accountId: string, expected: Partial<AccountItem>, changes: Partial<AccountItem>): Promise<boolean> {
  return updateItemIf(accountKeys.account(accountId), expected, changes);
}

/** Lists a new subaccount under its parent. */
export async function addSubaccount(parentId: string, subaccountId: string): Promise<void> {
  await putItem(accountKeys.subaccount(parentId, subaccountId), { accountId: subaccountId });
}

/** The ids a parent's subaccounts were listed under, in creation order. */
export async function subaccountIdsOf(parentId: string): Promise<string[]> {
  return (await queryAll<{ accountId: string }>({ pk: accountKeys.subaccount(parentId).pk }, '')).map((item) => item.accountId);
}

/** The region's primary account, once recorded. */
export async function primaryAccountId(options: { consistent?: boolean } = {}): Promise<string | undefined> {
  return (await getItem<{ value: string }>(accountKeys.primaryAccount(), options))?.value;
}

/** Records the region's primary account; false when one was recorded first. */
export function recordPrimaryAccount(accountId: string): Promise<boolean> {
  return putItem(accountKeys.primaryAccount(), { value: accountId }, { ifAbsent: true });
}
