import { keys, type AccountItem } from '../data/db';
import { getItems, queryAll } from '../data/store';

// Apart from the subaccounts area's store: the areas that take `include_subaccounts` (domains,
// analytics) need the list only, not what creating a subaccount brings into a bundle.

export async function listSubaccounts(parentId: string): Promise<AccountItem[]> {
  const ids = await queryAll<{ accountId: string }>({ pk: keys.subaccount(parentId).pk }, '');
  const accounts = await getItems<AccountItem>(ids.map((id) => keys.account(id.accountId)));
  return accounts.filter((account) => account.parentId === parentId);
}

/** The ids of a parent's subaccounts that still exist (not deleted), for `include_subaccounts`. */
export async function openSubaccountIds(parentId: string): Promise<string[]> {
  return (await listSubaccounts(parentId)).filter((a) => a.status !== 'closed').map((a) => a.accountId);
}
