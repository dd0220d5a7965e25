import { bucketsBetween } from '../../analytics/buckets';
import { getCounters, queryCounters } from '../../analytics/counter-store';
import type { Counts } from '../../analytics/counts';
import { operatorTrapList } from './trap-list';
import { TRAP_TYPES, trapCount, type TrapType } from './trap-types';

/** The longest range asked in one request: a day counter is read per day (and per domain or tag). */
export const MAX_TRAP_DAYS = 400;

/** Hits of each kind and their total. */
export type TrapTotals = Record<TrapType | 'total', number>;

export const trapTotals = (counts: Counts): TrapTotals => {
  const out = Object.fromEntries(TRAP_TYPES.map((type) => [type, counts[trapCount(type)] ?? 0])) as TrapTotals;
  out.total = TRAP_TYPES.reduce((sum, type) => sum + out[type], 0);
  return out;
};

/**
 * Where the counts come from (the honesty rule): the operator's list when one is configured, and
 * the two heuristics, which always run. Pristine and harvested hits exist only through the list.
 */
export function dataSources(): string[] {
  return [...(operatorTrapList() ? ['operator_trap_list'] : []), 'typo_heuristic', 'recycled_heuristic'];
}

/** One day's trap counts of an account, under a group value (a domain, a tag) or none. */
export interface TrapRow {
  accountId: string;
  day: number;
  group?: string;
  counts: Counts;
}

/**
 * The day counters of an account between two instants, whole or per domain or tag, narrowed to
 * some domains. Only days and groups with a trap count come back.
 */
export async function trapRows(accountId: string, from: number, to: number, by: 'domain' | 'tag' | undefined, domains: readonly string[]): Promise<TrapRow[]> {
  const buckets = bucketsBetween(from, to, 'day', MAX_TRAP_DAYS);
  const wanted = new Set(domains.map((d) => d.toLowerCase()));
  let rows: TrapRow[];
  if (by === 'tag' && wanted.size) {
    rows = (await queryCounters(accountId, ['domain', 'tag'], 'day', buckets))
      .filter((r) => wanted.has(r.values[0]!.toLowerCase()))
      .map((r) => ({ accountId, day: r.bucket, group: r.values[1], counts: r.counts }));
  } else if (by === 'tag') {
    rows = (await queryCounters(accountId, ['tag'], 'day', buckets)).map((r) => ({ accountId, day: r.bucket, group: r.values[0], counts: r.counts }));
  } else if (by === 'domain' || wanted.size) {
    rows = (await queryCounters(accountId, ['domain'], 'day', buckets))
      .filter((r) => !wanted.size || wanted.has(r.values[0]!.toLowerCase()))
      .map((r) => ({ accountId, day: r.bucket, group: by === 'domain' ? r.values[0] : undefined, counts: r.counts }));
  } else {
    rows = (await getCounters(accountId, [], 'day', buckets, [[]])).map((r) => ({ accountId, day: r.bucket, counts: r.counts }));
  }
  return rows.filter((r) => trapTotals(r.counts).total > 0);
}
