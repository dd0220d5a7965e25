import { defineEntity } from '../data/key-registry';
import { getItem, putItem, queryAll, type Key } from '../data/store';
import type { Role } from '../platform/access';

/**
 * A user of an account. This platform has no passwords, sessions or two-factor logins: a user is
 * who API keys are issued to. The account's first (master) user is made with its first admin key
 * (bootstrap, a new subaccount); further users come into being with the keys issued to them
 * (POST /v1/keys with `user_id`, and `user_name` or `email`).
 */
const userKeys = defineEntity(
  'users',
  { user: { what: 'a user of an account (`/v5/users`)', pk: 'ACCT#<account>#USERS', sk: '<user id*>', key: (accountId: string, userId = ''): Key => ({ pk: `ACCT#${accountId}#USERS`, sk: userId }) } },
  [{ what: "an account's users", pk: 'ACCT#<account>#USERS' }],
);

export interface UserItem {
  accountId: string;
  id: string;
  name: string;
  email: string;
  role: Role;
  isMaster: boolean;
  createdAt: string;
}

export function findUser(accountId: string, userId: string): Promise<UserItem | undefined> {
  return getItem<UserItem>(userKeys.user(accountId, userId), { consistent: true });
}

export async function listUsers(accountId: string): Promise<UserItem[]> {
  const users = await queryAll<UserItem>({ pk: userKeys.user(accountId).pk }, '');
  return users.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** Records a user the first time a key names it; an existing user is left as it is. */
export async function ensureUser(user: Omit<UserItem, 'createdAt'>, now = new Date()): Promise<UserItem> {
  const item: UserItem = { ...user, createdAt: now.toISOString() };
  if (await putItem(userKeys.user(user.accountId, user.id), item, { ifAbsent: true })) return item;
  return (await findUser(user.accountId, user.id))!;
}
