import { getEntry, listPage } from './suppression-store';

/** Tells whether an address may not be added to the bounce list. */
export type AllowlistTest = (address: string) => Promise<boolean>;

/** An address is covered by an entry for itself or for its domain. */
function allowlistValues(address: string): string[] {
  const value = address.trim().toLowerCase();
  const at = value.lastIndexOf('@');
  return at < 0 ? [value] : [value, value.slice(at + 1)];
}

/** Whether the address, or its domain, is on the domain's allowlist: two GetItems, side by side. */
export async function isAllowlisted(accountId: string, domain: string, address: string): Promise<boolean> {
  const owner = domain.toLowerCase();
  const entries = await Promise.all(allowlistValues(address).map((value) => getEntry(accountId, owner, 'whitelists', value)));
  return entries.some((entry) => entry !== undefined);
}

/** Entries read once for bulk work; beyond this the test falls back to lookups per address. */
const SNAPSHOT_LIMIT = 1000;

/**
 * A test for many addresses (JSON batches, CSV imports). Allowlists are short, hand-kept lists,
 * so one Query usually holds the whole list and each test is a set lookup instead of two reads.
 */
export async function allowlistTest(accountId: string, domain: string): Promise<AllowlistTest> {
  const entries = await listPage(accountId, domain, 'whitelists', { page: 'first', limit: SNAPSHOT_LIMIT + 1 });
  if (entries.length > SNAPSHOT_LIMIT) return (address) => isAllowlisted(accountId, domain, address);
  const values = new Set(entries.map((entry) => entry.address));
  return async (address) => allowlistValues(address).some((value) => values.has(value));
}
