import { keys, type AccountItem, type ApiKeyItem } from '../data/db';
import { getItem, putItem } from '../data/store';
import { createSandboxDomain } from '../domains/domains';
import { objectId } from '../platform/ids';
import { sha256Hex } from '../platform/secrets';
import { issueKey, listKeys } from '../keys/api-keys';

const PRIMARY = 'primary-account';

export interface BootstrapResult {
  accountId: string;
  /** The secret of an admin key created by this call; absent when the account already had keys. */
  createdKey?: string;
}

async function primaryAccountId(): Promise<string> {
  const existing = await getItem<{ value: string }>(keys.system(PRIMARY), { consistent: true });
  if (existing) return existing.value;
  const accountId = objectId();
  // Claim first: of two concurrent first starts, one wins and the other adopts its account.
  if (!(await putItem(keys.system(PRIMARY), { value: accountId }, { ifAbsent: true }))) {
    const winner = await getItem<{ value: string }>(keys.system(PRIMARY), { consistent: true });
    if (winner) return winner.value;
    throw new Error('could not record the primary account');
  }
  const account: AccountItem = { accountId, name: 'Primary account', status: 'open', createdAt: new Date().toISOString() };
  await putItem(keys.account(accountId), account);
  await createSandboxDomain(accountId);
  return accountId;
}

/**
 * Makes sure the region has its primary account, its sandbox domain and an admin key. With
 * `adminKey` that exact secret becomes (or stays) an admin key; otherwise a key is generated
 * only when the account has none.
 */
export async function ensurePrimaryAccount(options: { adminKey?: string } = {}): Promise<BootstrapResult> {
  const accountId = await primaryAccountId();
  if (options.adminKey) {
    const key = await getItem<ApiKeyItem>(keys.apiKey(sha256Hex(options.adminKey)), { consistent: true });
    if (key && key.accountId !== accountId) throw new Error('BOOTSTRAP_API_KEY belongs to another account');
    if (!key) await issueKey(accountId, { role: 'admin', kind: 'user', description: 'bootstrap admin key' }, options.adminKey);
    return { accountId };
  }
  if ((await listKeys(accountId)).length > 0) return { accountId };
  const { secret } = await issueKey(accountId, { role: 'admin', kind: 'user', description: 'bootstrap admin key' });
  return { accountId, createdKey: secret };
}
