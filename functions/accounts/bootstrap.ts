import { getItem, updateItem } from '../data/store';
import { primaryAccountId, recordPrimaryAccount, saveAccount, type AccountItem } from './account-store';
import { ensureUser } from './user-store';
import { createSandboxDomain } from '../domains/sandbox-domain';
import { objectId } from '../platform/ids';
import { sha256Hex } from '../platform/secrets';
import { issueKey, listKeys } from '../keys/api-keys';
import { apiKeyKeys, type ApiKeyItem } from '../keys/key-store';

export interface BootstrapResult {
  accountId: string;
  /** The secret of an admin key created by this call; absent when the account already had keys. */
  createdKey?: string;
}

async function ensurePrimaryAccountId(): Promise<string> {
  const existing = await primaryAccountId({ consistent: true });
  if (existing) return existing;
  const accountId = objectId();
  // Claim first: of two concurrent first starts, one wins and the other adopts its account.
  if (!(await recordPrimaryAccount(accountId))) {
    const winner = await primaryAccountId({ consistent: true });
    if (winner) return winner;
    throw new Error('could not record the primary account');
  }
  const account: AccountItem = { accountId, name: 'Primary account', status: 'open', createdAt: new Date().toISOString() };
  await saveAccount(account);
  await createSandboxDomain(accountId);
  return accountId;
}

/**
 * Makes sure the region has its primary account, its sandbox domain and an admin key. With
 * `adminKey` that exact secret becomes (or stays) an admin key; otherwise a key is generated
 * only when the account has none.
 */
export async function ensurePrimaryAccount(options: { adminKey?: string } = {}): Promise<BootstrapResult> {
  const accountId = await ensurePrimaryAccountId();
  const owner = await ensureMasterUser(accountId, 'Account owner');
  const adminKey = { role: 'admin' as const, kind: 'user' as const, description: 'bootstrap admin key', userId: owner.id, userName: owner.name };
  if (options.adminKey) {
    const key = await getItem<ApiKeyItem>(apiKeyKeys.apiKey(sha256Hex(options.adminKey)), { consistent: true });
    if (key && key.accountId !== accountId) throw new Error('BOOTSTRAP_API_KEY belongs to another account');
    if (!key) await issueKey(accountId, adminKey, options.adminKey);
    // A key made before users existed is given to the account's owner.
    else if (!key.userId) await updateItem(apiKeyKeys.apiKey(key.secretHash), { userId: owner.id, userName: owner.name });
    return { accountId };
  }
  if ((await listKeys(accountId)).length > 0) return { accountId };
  const { secret } = await issueKey(accountId, adminKey);
  return { accountId, createdKey: secret };
}

/** An account's first user (GET /v5/users, `is_master`): its id is the account's, so making it again is a no-op. */
export function ensureMasterUser(accountId: string, name: string) {
  return ensureUser({ accountId, id: accountId, name, email: '', role: 'admin', isMaster: true });
}
