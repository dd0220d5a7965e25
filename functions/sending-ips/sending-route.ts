import { randomInt } from 'node:crypto';
import type { DomainItem } from '../data/db';
import { poolOfDomain } from './ip-pools';
import type { SendingChoice } from './sending-options';
import { effectiveBand, getDynamicPools } from './dynamic-pools';
import { provisionedIps } from './ip-records';
import { ipConfigurationSets } from './ses-resources';
import { listWarmups, nextHourAt, reserveWarmupSends } from './warmup';

/**
 * Where some recipients of a message leave from: a dedicated IP (and the DIPP it was chosen
 * through), or SES's shared addresses; `granted` of the recipients asked for may go now (fewer
 * when a warming address has little of its hour left), and none means every address the domain
 * may use has spent its hour: the rest waits until `heldUntil`.
 */
export interface SendingRoute {
  ip?: string;
  poolId?: string;
  granted: number;
  heldUntil?: number;
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Picks the address `wanted` recipients of a domain's message are sent from: one of its DIPP's
 * IPs, or of its own, at random so a domain's mail spreads over them, a warming one only within
 * its stage's hourly limit (functions/sending-ips/warmup.ts); SES's shared addresses when the
 * domain has neither (or none is provisioned any longer).
 */
export async function sendingRouteOf(domain: Pick<DomainItem, 'accountId' | 'ipPoolId' | 'ipPoolOwnerId' | 'ips' | 'dynamicPool'>, message: SendingChoice, wanted: number): Promise<SendingRoute> {
  // The message's own choice (checked when it was accepted) comes before its domain's; a domain
  // in dynamic pools sends from its band's IPs.
  const source = message.sendingIp
    ? { accountId: domain.accountId, ips: [message.sendingIp] }
    : message.sendingPoolId
      ? { accountId: domain.accountId, ipPoolId: message.sendingPoolId, ipPoolOwnerId: message.sendingPoolOwnerId }
      : domain.dynamicPool
        ? { accountId: domain.accountId, ips: (await getDynamicPools(domain.dynamicPool.ownerId))?.bands[effectiveBand(domain.dynamicPool)].ips ?? [] }
        : domain;
  if (!source.ipPoolId && !source.ips?.length) return { granted: wanted };
  const pool = await poolOfDomain(source);
  const provisioned = await provisionedIps();
  const candidates = (pool ? pool.ips : (source.ips ?? [])).filter((ip) => provisioned.has(ip));
  if (!candidates.length) return { granted: wanted };
  const via = pool ? { poolId: pool.poolId } : {};
  const warming = new Map((await listWarmups()).map((warmup) => [warmup.ip, warmup]));
  for (const ip of shuffled(candidates)) {
    const warmup = warming.get(ip);
    if (!warmup) return { ip, ...via, granted: wanted };
    const granted = await reserveWarmupSends(warmup, wanted);
    if (granted > 0) return { ip, ...via, granted };
  }
  return { granted: 0, heldUntil: nextHourAt() };
}

/** The configuration set that sends from the route's IP with the TLS policy wanted; the caller's default set when it has none. */
export function configurationSetOf(route: SendingRoute, requireTls: boolean, shared: string | undefined): string | undefined {
  if (!route.ip) return shared;
  const sets = ipConfigurationSets(route.ip);
  return requireTls ? sets.requireTls : sets.optional;
}
