import { db } from '../data/db';
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
  const entities = db();
  const { data: existing } = await entities.system.get({ name: PRIMARY }).go({ consistent: true });
  if (existing) return existing.value;
  const accountId = objectId();
  try {
    // Claim first: of two concurrent first starts, one wins and the other adopts its account.
    await entities.system.create({ name: PRIMARY, value: accountId }).go();
  } catch {
    const { data: winner } = await entities.system.get({ name: PRIMARY }).go({ consistent: true });
    if (winner) return winner.value;
    throw new Error('could not record the primary account');
  }
  await entities.account.create({ accountId, name: 'Primary account', status: 'open', createdAt: new Date().toISOString() }).go();
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
    const { data: key } = await db().apiKey.get({ secretHash: sha256Hex(options.adminKey) }).go({ consistent: true });
    if (key && key.accountId !== accountId) throw new Error('BOOTSTRAP_API_KEY belongs to another account');
    if (!key) await issueKey(accountId, { role: 'admin', kind: 'user', description: 'bootstrap admin key' }, options.adminKey);
    return { accountId };
  }
  if ((await listKeys(accountId)).length > 0) return { accountId };
  const { secret } = await issueKey(accountId, { role: 'admin', kind: 'user', description: 'bootstrap admin key' });
  return { accountId, createdKey: secret };
}
