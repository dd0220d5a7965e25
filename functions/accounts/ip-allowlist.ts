import { BlockList, isIP } from 'node:net';
import { defineEntity } from '../data/key-registry';
import { getItem, putItem, updateItemIf, type Key } from '../data/store';
import { BadRequest, Conflict } from '../platform/errors';

const allowlistKeys = defineEntity('ip allowlist', {
  ipAllowlist: { what: "the addresses and CIDRs an account's keys and SMTP logins may be used from (`/v2/ip_whitelist`)", pk: 'ACCT#<account>', sk: 'IPALLOWLIST', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'IPALLOWLIST' }) },
});

/** One entry of `/v2/ip_whitelist`: an address or a CIDR range, IPv4 or IPv6. */
export interface AllowedAddress {
  ip_address: string;
  description: string;
}

interface AllowlistItem {
  addresses: AllowedAddress[];
  /** Bumped by every change: two concurrent changes cannot both build on the same list. */
  version: number;
}

/** The list as read, with the version a change must still find. */
export interface Allowlist {
  addresses: AllowedAddress[];
  version: number;
}

/** At most this many entries: the list is one item, read on every authorization that misses the cache. */
const MAX_ALLOWLIST_ENTRIES = 1000;

/** An address or CIDR in its canonical spelling, or Mailgun's 400. */
export function canonicalEntry(raw: string): string {
  const value = raw.trim();
  const [address, prefix, extra] = value.split('/');
  const family = isIP(address ?? '');
  const bits = prefix === undefined ? undefined : Number(prefix);
  const valid = family !== 0 && extra === undefined && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && bits! <= (family === 4 ? 32 : 128)));
  if (!valid) throw new BadRequest('Invalid IP Address or CIDR');
  return prefix === undefined ? address!.toLowerCase() : `${address!.toLowerCase()}/${bits}`;
}

export async function readAllowlist(accountId: string): Promise<Allowlist> {
  const item = await getItem<AllowlistItem>(allowlistKeys.ipAllowlist(accountId), { consistent: true });
  return { addresses: item?.addresses ?? [], version: item?.version ?? 0 };
}

export async function allowlistOf(accountId: string): Promise<AllowedAddress[]> {
  return (await readAllowlist(accountId)).addresses;
}

/** Writes a changed list if nobody changed it since `read`; a lost race is a 409 to try again. */
export async function saveAllowlist(accountId: string, read: Allowlist, addresses: AllowedAddress[]): Promise<AllowedAddress[]> {
  if (addresses.length > MAX_ALLOWLIST_ENTRIES) throw new BadRequest(`At most ${MAX_ALLOWLIST_ENTRIES} addresses may be allowed`);
  const item: AllowlistItem = { addresses, version: read.version + 1 };
  const saved = read.version === 0 ? await putItem(allowlistKeys.ipAllowlist(accountId), item, { ifAbsent: true }) : await updateItemIf(allowlistKeys.ipAllowlist(accountId), { version: read.version }, { ...item });
  if (!saved) throw new Conflict('The allowlist changed meanwhile: read it and try again');
  return addresses;
}

function compile(addresses: readonly AllowedAddress[]): BlockList {
  const list = new BlockList();
  for (const { ip_address: entry } of addresses) {
    const [address, prefix] = entry.split('/');
    const entryFamily = isIP(address!) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address!, entryFamily);
    else list.addSubnet(address!, Number(prefix), entryFamily);
  }
  return list;
}

/** Compiled lists by account and version: a version never changes content, so one compile serves every check of it. */
const compiled = new Map<string, BlockList>();

/** Whether `source` may use the account's keys and logins: always while the list is empty. */
function sourceAllowed(addresses: readonly AllowedAddress[], source: string | undefined, cacheKey?: string): boolean {
  if (!addresses.length) return true;
  if (!source) return false;
  const ip = source.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  const family = isIP(ip);
  if (!family) return false;
  let list = cacheKey ? compiled.get(cacheKey) : undefined;
  if (!list) {
    list = compile(addresses);
    if (cacheKey) {
      if (compiled.size > 1000) compiled.clear();
      compiled.set(cacheKey, list);
    }
  }
  return list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The account's allowlist check for a key or login used from `source` (one read of the list).
 * `undefined` means the caller cannot know the client's address (SMTP behind AWS's load balancer),
 * and the list is not applied; an API request always has one.
 */
export async function accountAllowsSource(accountId: string, source: string | undefined): Promise<boolean> {
  if (source === undefined) return true;
  const { addresses, version } = await readAllowlist(accountId);
  return sourceAllowed(addresses, source, `${accountId}#${version}`);
}
