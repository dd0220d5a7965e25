import type { DedicatedIp } from '@aws-sdk/client-sesv2';
import { deleteItem, putItem, queryAll } from '../data/store';
import { reverseLookup } from '../platform/dns';
import { logger } from '../platform/logger';
import { primaryAccountId } from '../accounts/account-store';
import { compareIps, dedicatedIpKeys, type DedicatedIpItem } from './ip-records';
import { delegationsOf } from './pool-records';
import { provisionIp, sesDedicatedIps } from './ses-resources';

export { compareIps, type DedicatedIpItem } from './ip-records';

/** How long a container trusts its last look at SES's list before looking again. */
const SYNC_EVERY_MS = 60_000;
let lastSync: { at: number; items: DedicatedIpItem[] } | undefined;

/**
 * The region's dedicated IPs: SES's list, each provisioned (its own pool and configuration sets)
 * the first time it is seen, and dropped once SES no longer leases it. Looked at again at most
 * once a minute per container, so a newly leased address shows within a minute.
 */
export async function dedicatedIps(options: { fresh?: boolean } = {}): Promise<DedicatedIpItem[]> {
  if (!options.fresh && lastSync && Date.now() - lastSync.at < SYNC_EVERY_MS) return lastSync.items;
  const [leased, known] = await Promise.all([sesDedicatedIps(), queryAll<DedicatedIpItem>(dedicatedIpKeys.dedicatedIp(), '')]);
  const byIp = new Map(known.map((item) => [item.ip, item]));
  const items: DedicatedIpItem[] = [];
  for (const ses of leased) {
    const existing = byIp.get(ses.Ip!);
    items.push(existing && existing.sesWarmupStatus === ses.WarmupStatus && existing.sesWarmupPercentage === ses.WarmupPercentage ? existing : await recordIp(ses, existing));
  }
  const leasedIps = new Set(leased.map((ses) => ses.Ip));
  for (const gone of known.filter((item) => !leasedIps.has(item.ip))) {
    logger.info('a dedicated IP is no longer leased from SES', { ip: gone.ip });
    await deleteItem(dedicatedIpKeys.dedicatedIp(gone.ip));
  }
  items.sort((a, b) => compareIps(a.ip, b.ip));
  lastSync = { at: Date.now(), items };
  return items;
}

async function recordIp(ses: DedicatedIp, existing: DedicatedIpItem | undefined): Promise<DedicatedIpItem> {
  if (!existing) await provisionIp(ses);
  const item: DedicatedIpItem = {
    ip: ses.Ip!,
    rdns: existing?.rdns ?? (await reverseLookup(ses.Ip!))[0] ?? '',
    sesWarmupStatus: ses.WarmupStatus,
    sesWarmupPercentage: ses.WarmupPercentage,
    provisionedAt: existing?.provisionedAt ?? new Date().toISOString(),
  };
  await putItem(dedicatedIpKeys.dedicatedIp(item.ip), item);
  return item;
}

/**
 * The dedicated IPs an account may assign: all of the region's for the primary account; for a
 * subaccount, those its parent delegated to it (PUT /v5/accounts/subaccounts/{id}/ip).
 */
export async function accountIps(accountId: string): Promise<DedicatedIpItem[]> {
  if (accountId === (await primaryAccountId())) return dedicatedIps();
  const delegated = new Set((await queryAll<{ ip: string }>(delegationsOf(accountId), 'IP#')).map((d) => d.ip));
  if (!delegated.size) return [];
  return (await dedicatedIps()).filter((item) => delegated.has(item.ip));
}

