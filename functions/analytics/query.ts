import { normaliseTag } from '../tags/tag-store';
import { BadRequest } from '../platform/errors';
import { bucketsBetween, type Resolution } from './buckets';
import { getCounters, queryCounters, type CounterRow } from './counter-store';
import { addCounts, type Counts } from './counts';
import { cartesian, smallestKindWith, type Attribute } from './slices';

/**
 * Reads counters for a question asked by metrics, stats or aggregates: which buckets, grouped by
 * which attributes, filtered how. It picks the smallest kept slice kind that has every attribute
 * the question names, then reads one counter per bucket (BatchGet) when the filters pin every value,
 * or one Query per bucket otherwise: cost grows with buckets and distinct values, never with events.
 */

/** An attribute as a question sees it: the stored value, or a label derived from it (a provider from a recipient domain). */
export interface Field {
  attribute: Attribute;
  label?: (value: string) => string;
}

export type Comparator = '=' | '!=' | 'contains' | 'not contains';

export interface Predicate {
  field: Field;
  comparator: Comparator;
  values: string[];
}

export interface CounterQuery {
  accountId: string;
  /** Other accounts whose counters add to the same groups (a parent's subaccounts, `include_subaccounts`). */
  alsoAccounts?: readonly string[];
  resolution: Resolution;
  /** Buckets overlapping [from, to) in milliseconds. */
  from: number;
  to: number;
  byTime: boolean;
  groupBy: Field[];
  filters: Predicate[];
}

export interface Group {
  /** Bucket start, when grouped by time. */
  bucket?: number;
  /** The labels of `groupBy`, in its order. */
  labels: string[];
  counts: Counts;
}

const labelOf = (field: Field, value: string) => (field.label ? field.label(value) : value);

/** Every attribute compares in any case (Mailgun's tags are case-insensitive too). */
function matches(p: Predicate, value: string): boolean {
  const fold = (s: string) => s.toLowerCase();
  const v = fold(labelOf(p.field, value));
  const wanted = p.values.map(fold);
  switch (p.comparator) {
    case '=':
      return wanted.includes(v);
    case '!=':
      return !wanted.includes(v);
    case 'contains':
      return wanted.some((w) => v.includes(w));
    case 'not contains':
      return !wanted.some((w) => v.includes(w));
  }
}

/** Exact stored values an '=' predicate pins (only for fields shown as stored, compared exactly). */
function pinned(p: Predicate | undefined): string[] | undefined {
  if (!p || p.comparator !== '=' || p.field.label) return undefined;
  // Stored as: domains, recipient domains and devices in lower case, countries in upper case, tags
  // as the tag registry names them (case-folded ASCII).
  switch (p.field.attribute) {
    case 'tag':
      return p.values.map((v) => normaliseTag(v)?.tagKey ?? v.toLowerCase());
    case 'country':
      return p.values.map((v) => (v.length === 2 ? v.toUpperCase() : v));
    default:
      return p.values.map((v) => v.toLowerCase());
  }
}

/** The counters a question covers, before grouping. */
async function rowsFor(q: CounterQuery, buckets: number[]): Promise<{ kind: readonly Attribute[]; rows: CounterRow[] }> {
  const named = [...q.groupBy.map((f) => f.attribute), ...q.filters.map((p) => p.field.attribute)];
  const kind = smallestKindWith(named);
  if (!kind) {
    const distinct = [...new Set(named)];
    throw new BadRequest(`These dimensions and filters cannot be combined: ${distinct.join(', ')} (counters are kept by domain and tag, with at most one of recipient domain/provider, device or country)`);
  }
  const pinnedValues = kind.map((attribute) => pinned(q.filters.find((p) => p.field.attribute === attribute)));
  const accounts = [q.accountId, ...(q.alsoAccounts ?? [])];
  if (pinnedValues.every((v) => v !== undefined)) {
    const keys = cartesian(pinnedValues);
    return { kind, rows: (await Promise.all(accounts.map((id) => getCounters(id, kind, q.resolution, buckets, keys)))).flat() };
  }
  // Narrow the Query by the leading values that are pinned to one each.
  const prefix: string[] = [];
  for (const values of pinnedValues) {
    if (values?.length !== 1) break;
    prefix.push(values[0]!);
  }
  return { kind, rows: (await Promise.all(accounts.map((id) => queryCounters(id, kind, q.resolution, buckets, prefix)))).flat() };
}

/** Mailgun's largest time series page; also bounds what one request may read. */
const MAX_BUCKETS = 1500;

export async function runCounterQuery(q: CounterQuery): Promise<Group[]> {
  const buckets = bucketsBetween(q.from, q.to, q.resolution, MAX_BUCKETS);
  if (!buckets.length) return [];
  if (buckets.length > MAX_BUCKETS) throw new BadRequest(`The window covers more than ${MAX_BUCKETS} ${q.resolution}s, which one query cannot answer: use a coarser resolution or a shorter window`);
  const { kind, rows } = await rowsFor(q, buckets);
  const index = (field: Field) => kind.indexOf(field.attribute);
  const groups = new Map<string, Group>();
  for (const row of rows) {
    if (!q.filters.every((p) => matches(p, row.values[index(p.field)]!))) continue;
    const labels = q.groupBy.map((field) => labelOf(field, row.values[index(field)]!));
    const bucket = q.byTime ? row.bucket : undefined;
    const key = JSON.stringify([bucket, labels]);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { bucket, labels, counts: {} }));
    addCounts(group.counts, row.counts);
  }
  // A time series shows every bucket, empty ones as zeros, so charts have no gaps.
  if (q.byTime && !q.groupBy.length) {
    for (const bucket of buckets) {
      const key = JSON.stringify([bucket, []]);
      if (!groups.has(key)) groups.set(key, { bucket, labels: [], counts: {} });
    }
  }
  return [...groups.values()];
}
