import { allowlistTest, type AllowlistTest } from './allowlist';
import { mapLimit } from '../platform/concurrency';
import { putEntries, toItem, WRITE_CONCURRENCY, type EntryRecord, type SuppressionItem } from './suppression-store';

async function withoutAllowlisted(items: SuppressionItem[], allowlisted: AllowlistTest): Promise<SuppressionItem[]> {
  const refused = new Set<string>();
  await mapLimit(items, WRITE_CONCURRENCY, async (item) => {
    if (await allowlisted(item.address)) refused.add(item.address);
  });
  return items.filter((item) => !refused.has(item.address));
}

/**
 * Adds or replaces many entries of one list (a JSON batch, a CSV import). A later
 * record for the same address wins, and the allowlist keeps addresses off the bounce list.
 * Answers how many entries were written.
 */
export async function addEntries(accountId: string, domain: string, records: readonly EntryRecord[]): Promise<number> {
  const latest = new Map(records.map((record) => [record.address, toItem(accountId, domain, record)]));
  let items = [...latest.values()];
  if (items.some((item) => item.list === 'bounces')) items = await withoutAllowlisted(items, await allowlistTest(accountId, domain));
  await putEntries(items);
  return items.length;
}
