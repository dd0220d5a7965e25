import { getItem, queryAll } from '../data/store';
import { BadRequest } from '../platform/errors';
import { primaryAccountId } from '../accounts/account-store';
import { provisionedIps } from './ip-records';
import { delegationsOf, ipPoolKeys } from './pool-records';

/**
 * `o:sending-ip` and `o:sending-ip-pool` (X-Mailgun-Sending-Ip and -Ip-Pool over SMTP): one
 * message sent from a given dedicated IP, or from a given DIPP, whatever its domain uses. Checked
 * when the message is accepted, from the table alone (no SES client in the accepting Lambda).
 */
export interface SendingChoice {
  sendingIp?: string;
  sendingPoolId?: string;
  /** The pool's account, when the pool is a parent's delegated to this subaccount. */
  sendingPoolOwnerId?: string;
}

interface PoolRecord {
  poolId: string;
  accountId: string;
  ips: string[];
  deleting?: unknown;
}

/** A pool the account sees: its own, or one its parent delegated to it. */
async function visiblePool(accountId: string, poolId: string): Promise<PoolRecord | undefined> {
  if (!/^[0-9a-f]{24}$/.test(poolId)) return undefined;
  const own = await getItem<PoolRecord>(ipPoolKeys.ipPool(accountId, poolId));
  if (own) return own.deleting ? undefined : own;
  const delegation = await getItem<{ parentId: string }>(ipPoolKeys.poolDelegation(accountId, poolId));
  const inherited = delegation && (await getItem<PoolRecord>(ipPoolKeys.ipPool(delegation.parentId, poolId)));
  return inherited && !inherited.deleting ? inherited : undefined;
}

/** Whether the account may send from this provisioned IP: the primary account's are all; a subaccount's, those delegated to it. */
async function mayUseIp(accountId: string, ip: string): Promise<boolean> {
  if (!(await provisionedIps()).has(ip)) return false;
  if (accountId === (await primaryAccountId())) return true;
  const delegated = await queryAll<{ ip?: string; poolId?: string; parentId: string }>(delegationsOf(accountId), '');
  if (delegated.some((d) => d.ip === ip)) return true;
  const pools = await Promise.all(delegated.filter((d) => d.poolId).map((d) => getItem<PoolRecord>(ipPoolKeys.ipPool(d.parentId, d.poolId!))));
  return pools.some((pool) => pool?.ips.includes(ip));
}

export async function sendingChoiceOf(accountId: string, ip: string | undefined, poolId: string | undefined): Promise<SendingChoice> {
  if (ip && poolId) throw new BadRequest("'o:sending-ip' and 'o:sending-ip-pool' cannot be combined");
  if (ip) {
    if (!(await mayUseIp(accountId, ip))) throw new BadRequest(`'o:sending-ip': ${ip} is not a dedicated IP of this account`);
    return { sendingIp: ip };
  }
  if (poolId) {
    const pool = await visiblePool(accountId, poolId);
    if (!pool) throw new BadRequest(`'o:sending-ip-pool': IP pool ${poolId} not found`);
    if (!pool.ips.length) throw new BadRequest(`'o:sending-ip-pool': IP pool ${poolId} has no IPs`);
    return { sendingPoolId: pool.poolId, ...(pool.accountId !== accountId ? { sendingPoolOwnerId: pool.accountId } : {}) };
  }
  return {};
}
