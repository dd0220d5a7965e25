import { findAccount } from './account-store';

/** Whether an account may act at all: open. A disabled or deleted (closed) subaccount may not. */
export async function accountIsOpen(accountId: string): Promise<boolean> {
  const account = await findAccount(accountId);
  return account?.status === 'open';
}
