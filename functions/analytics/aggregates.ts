import { derivedCounts } from './counts';
import { runCounterQuery, type Predicate } from './query';
import type { Attribute } from './slices';

/**
 * The legacy aggregates (contract §7.4): a domain's (or a domain's tag's) all-time counts by
 * recipient provider, device or country, e.g. {"providers":{"gmail.com":{"opened":1,...}}}.
 * "All time" is read from month counters (kept forever) from the domain's creation to now: one
 * Query per month, whatever the number of events.
 */
export const AGGREGATE_TYPES = {
  providers: { attribute: 'rdomain', singular: 'provider' },
  devices: { attribute: 'device', singular: 'device' },
  countries: { attribute: 'country', singular: 'country' },
} as const satisfies Record<string, { attribute: Attribute; singular: string }>;
export type AggregateType = keyof typeof AGGREGATE_TYPES;

/** The query-style `type` (country, device, provider) to its plural. */
export const TYPE_BY_SINGULAR: Record<string, AggregateType> = Object.fromEntries(
  Object.entries(AGGREGATE_TYPES).map(([type, { singular }]) => [singular, type as AggregateType]),
);
/** The query-style types, in order. */
export const AGGREGATE_SINGULARS = Object.keys(TYPE_BY_SINGULAR).sort() as [string, ...string[]];

const ENGAGEMENT = ['clicked', 'complained', 'opened', 'unique_clicked', 'unique_opened', 'unsubscribed'] as const;
// Providers (recipient domains) are known for every event, so they also carry sending counts.
const SENDING = ['accepted', 'delivered'] as const;

export async function aggregates(accountId: string, domain: string, since: number, type: AggregateType, tag?: string, now = Date.now()) {
  const { attribute } = AGGREGATE_TYPES[type];
  const filters: Predicate[] = [{ field: { attribute: 'domain' }, comparator: '=', values: [domain] }];
  if (tag !== undefined) filters.push({ field: { attribute: 'tag' }, comparator: '=', values: [tag] });
  const groups = await runCounterQuery({ accountId, resolution: 'month', from: since, to: now + 1, byTime: false, groupBy: [{ attribute }], filters });
  const names = type === 'providers' ? [...SENDING, ...ENGAGEMENT].sort() : ENGAGEMENT;
  groups.sort((a, b) => a.labels[0]!.localeCompare(b.labels[0]!));
  const byValue: Record<string, Record<string, number>> = {};
  for (const g of groups) {
    const counts = derivedCounts(g.counts);
    // Mailgun keys countries in lower case ("us").
    const key = type === 'countries' && g.labels[0]!.length === 2 ? g.labels[0]!.toLowerCase() : g.labels[0]!;
    byValue[key] = Object.fromEntries(names.map((name) => [name, counts[name]!]));
  }
  return byValue;
}
