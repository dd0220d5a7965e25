import { findAccounts, subaccountIdsOf, type AccountItem } from './account-store';

// Apart from the subaccounts area's store: the areas that take `include_subaccounts` (domains,
// analytics) need the list only, not what creating a subaccount brings into a bundle.

export async function listSubaccounts(parentId: string): Promise<AccountItem[]> {
  const accounts = await findAccounts(await subaccountIdsOf(parentId));
  return accounts.filter((account) => account.parentId === parentId);
}

/**
 * The accounts a listing covers: the acting one, and with `include_subaccounts` its subaccounts
 * that still exist (not deleted) after it.
 */
export async function accountsCovered(accountId: string, includeSubaccounts: boolean | undefined): Promise<string[]> {
  if (!includeSubaccounts) return [accountId];
  return [accountId, ...(await listSubaccounts(accountId)).filter((a) => a.status !== 'closed').map((a) => a.accountId)];
}
