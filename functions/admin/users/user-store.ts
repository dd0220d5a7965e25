import { keys } from '../../data/db';
import { getItem, putItem, queryAll } from '../../data/store';
import type { Role } from '../../platform/access';

/**
 * A user of an account. This platform has no passwords, sessions or two-factor logins: a user is
 * who API keys are issued to. The account's first (master) user is made with its first admin key
 * (bootstrap, a new subaccount); further users come into being with the keys issued to them
 * (POST /v1/keys with `user_id`, and `user_name` or `email`).
 */
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
  return getItem<UserItem>(keys.user(accountId, userId), { consistent: true });
}

export async function listUsers(accountId: string): Promise<UserItem[]> {
  const users = await queryAll<UserItem>({ pk: keys.user(accountId).pk }, '');
  return users.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** Records a user the first time a key names it; an existing user is left as it is. */
export async function ensureUser(user: Omit<UserItem, 'createdAt'>, now = new Date()): Promise<UserItem> {
  const item: UserItem = { ...user, createdAt: now.toISOString() };
  if (await putItem(keys.user(user.accountId, user.id), item, { ifAbsent: true })) return item;
  return (await findUser(user.accountId, user.id))!;
}

/** The User shape of contract 12.4, with what this platform does not have (passwords, 2FA, SSO) empty. */
export function userJson(user: UserItem) {
  const at = user.email.lastIndexOf('@');
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    email_details: {
      address: user.email,
      is_valid: at > 0,
      parts: { local_part: at > 0 ? user.email.slice(0, at) : user.email, domain: at > 0 ? user.email.slice(at + 1) : '', display_name: user.name },
    },
    role: user.role,
    account_id: user.accountId,
    activated: true,
    is_disabled: false,
    is_master: user.isMaster,
    opened_ip: '',
    metadata: {},
    tfa_enabled: false,
    tfa_active: false,
    tfa_created_at: null,
    password_updated_at: null,
    preferences: { time_zone: 'UTC', time_format: '', programming_language: '' },
    auth: { method: 'api_key', prior_method: '', prior_details: {} },
    github_user_id: null,
    salesforce_user_id: null,
    migration_status: '',
  };
}
