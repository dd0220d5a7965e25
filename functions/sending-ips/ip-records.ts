import { defineEntity } from '../data/key-registry';
import { queryAll, type Key } from '../data/store';
import { boundedList, MAX_LENGTH } from '../platform/http/params';

/**
 * The region's dedicated IPs as recorded, read without SES's client, for the paths that only
 * need to know what exists (accepting a message, choosing its address); ip-store.ts keeps the
 * records in step with SES.
 */

export const dedicatedIpKeys = defineEntity(
  'dedicated ips',
  {
    dedicatedIp: { what: 'a dedicated IP of the region as SES leases it: one partition (they are few)', pk: 'SYSTEM#dedicated-ips', sk: '<ip>', key: (ip = ''): Key => ({ pk: 'SYSTEM#dedicated-ips', sk: ip }) },
  },
  [{ what: "the region's dedicated IPs", pk: 'SYSTEM#dedicated-ips' }],
);

/** A dedicated IP of the region, as SES leases it, once its SES pool and configuration sets exist. */
export interface DedicatedIpItem {
  ip: string;
  /** Its PTR name, looked up when it was first seen ('' when it has none). */
  rdns: string;
  /** SES's warm-up of the address: IN_PROGRESS, DONE or NOT_APPLICABLE, and the share of traffic it allows. */
  sesWarmupStatus?: string;
  sesWarmupPercentage?: number;
  provisionedAt: string;
}

/** Numeric order for IPv4, text order otherwise. */
export function compareIps(a: string, b: string): number {
  const parts = (ip: string) => ip.split('.').map(Number);
  const [pa, pb] = [parts(a), parts(b)];
  if (pa.length === 4 && pb.length === 4 && [...pa, ...pb].every(Number.isInteger)) {
    for (let i = 0; i < 4; i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
    return 0;
  }
  return a.localeCompare(b);
}


/** The recorded IPs, without asking SES (the send path: an address provisioned is one SES can send from). */
export async function provisionedIps(): Promise<Map<string, DedicatedIpItem>> {
  return new Map((await queryAll<DedicatedIpItem>(dedicatedIpKeys.dedicatedIp(), '')).map((item) => [item.ip, item]));
}

/** More IP addresses than one request names (a domain's, a pool's, a band's): the items keep them. */
const MAX_IPS_NAMED = 1000;

/** IP addresses a request names, repeated or comma-separated. */
export const ipAddressList = () => boundedList(MAX_LENGTH.ip, MAX_IPS_NAMED);
