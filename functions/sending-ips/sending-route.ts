import { randomInt } from 'node:crypto';
import { poolOfDomain } from './ip-pools';
import type { SendingChoice } from './sending-options';
import { dynamicPoolsForSending, effectiveBand } from './dynamic-pools';
import { provisionedIps } from './ip-records';
import { ipConfigurationSets } from './ses-resources';
import { listWarmups, nextHourAt, reserveWarmupSends } from './warmup';
import type { DomainItem } from '../domains/domain-store';

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

/** The dedicated IPs a message may leave from (none: SES's shared addresses), and the DIPP they come through. */
export interface SendingAddresses {
  candidates: string[];
  poolId?: string;
}

/**
 * The addresses a domain's message may leave from, read once per message (not per 50-recipient chunk): the message's own
 * choice (checked when it was accepted) first, else the domain's dynamic pool band, DIPP or own
 * IPs, each only if still provisioned.
 */
export async function sendingAddressesOf(domain: Pick<DomainItem, 'accountId' | 'ipPoolId' | 'ipPoolOwnerId' | 'ips' | 'dynamicPool'>, message: SendingChoice): Promise<SendingAddresses> {
  const source = message.sendingIp
    ? { accountId: domain.accountId, ips: [message.sendingIp] }
    : message.sendingPoolId
      ? { accountId: domain.accountId, ipPoolId: message.sendingPoolId, ipPoolOwnerId: message.sendingPoolOwnerId }
      : domain.dynamicPool
        ? { accountId: domain.accountId, ips: (await dynamicPoolsForSending(domain.dynamicPool.ownerId))?.bands[effectiveBand(domain.dynamicPool)].ips ?? [] }
        : domain;
  if (!source.ipPoolId && !source.ips?.length) return { candidates: [] };
  const pool = await poolOfDomain(source);
  const provisioned = await provisionedIps();
  const candidates = (pool ? pool.ips : (source.ips ?? [])).filter((ip) => provisioned.has(ip));
  return { candidates, ...(pool && candidates.length ? { poolId: pool.poolId } : {}) };
}

/**
 * Picks the address `wanted` recipients are sent from: one of the candidates at random, so a
 * domain's mail spreads over them, a warming one only within its stage's hourly limit
 * (functions/sending-ips/warmup.ts); SES's shared addresses when there is no candidate.
 */
export async function routeFor(addresses: SendingAddresses, wanted: number): Promise<SendingRoute> {
  if (!addresses.candidates.length) return { granted: wanted };
  const via = addresses.poolId ? { poolId: addresses.poolId } : {};
  // Read per chunk: a warm-up started while a long message is being sent holds its later chunks.
  const warming = new Map((await listWarmups()).map((warmup) => [warmup.ip, warmup]));
  for (const ip of shuffled(addresses.candidates)) {
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
