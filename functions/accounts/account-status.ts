import { keys, type AccountItem } from '../data/db';
import { getItem } from '../data/store';

/** Whether an account may act at all: open. A disabled or deleted (closed) subaccount may not. */
export async function accountIsOpen(accountId: string): Promise<boolean> {
  const account = await getItem<AccountItem>(keys.account(accountId));
  return account?.status === 'open';
}
