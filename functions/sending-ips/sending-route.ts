import { randomInt } from 'node:crypto';
import type { DomainItem } from '../data/db';
import { poolOfDomain } from './ip-pools';
import { provisionedIps } from './ip-store';
import { ipConfigurationSets } from './ses-resources';

/** Where one message leaves from: a dedicated IP (and the DIPP it was chosen through), or SES's shared addresses. */
export interface SendingRoute {
  ip?: string;
  poolId?: string;
}

/**
 * Picks the address a domain's message is sent from: one of its DIPP's IPs, or of its own, at
 * random so a domain's mail spreads over them; none when it has neither (or none is provisioned
 * any longer), and SES sends from its shared addresses.
 */
export async function sendingRouteOf(domain: Pick<DomainItem, 'accountId' | 'ipPoolId' | 'ipPoolOwnerId' | 'ips'>): Promise<SendingRoute> {
  if (!domain.ipPoolId && !domain.ips?.length) return {};
  const pool = await poolOfDomain(domain);
  const wanted = pool ? pool.ips : (domain.ips ?? []);
  const provisioned = await provisionedIps();
  const candidates = wanted.filter((ip) => provisioned.has(ip));
  if (!candidates.length) return {};
  return { ip: candidates[randomInt(candidates.length)], ...(pool ? { poolId: pool.poolId } : {}) };
}

/** The configuration set that sends from the route's IP with the TLS policy wanted; the caller's default set when it has none. */
export function configurationSetOf(route: SendingRoute, requireTls: boolean, shared: string | undefined): string | undefined {
  if (!route.ip) return shared;
  const sets = ipConfigurationSets(route.ip);
  return requireTls ? sets.requireTls : sets.optional;
}
