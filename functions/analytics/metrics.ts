import { z } from 'zod/v3';
import { BadRequest } from '../platform/errors';
import { flag, schema } from '../platform/http/params';
import { RESOLUTIONS, type Resolution } from './buckets';
import { COUNT_METRICS, derivedCounts, addCounts, type Counts } from './counts';
import { providerOf } from './providers';
import { runCounterQuery, type Comparator, type Field, type Predicate } from './query';
import { RATE_METRICS, RATES } from './rates';
import { rfc2822, timeRange } from './time-range';

/**
 * POST /v1/analytics/metrics and /v1/analytics/usage/metrics (contract §7.2): a JSON query answered
 * from the counters.
 */

/** The metric API's dimensions and filter attributes this platform's counters can answer. */
const FIELDS: Record<string, Field> = {
  domain: { attribute: 'domain' },
  tag: { attribute: 'tag' },
  recipient_domain: { attribute: 'rdomain' },
  recipient_provider: { attribute: 'rdomain', label: providerOf },
  provider: { attribute: 'rdomain', label: providerOf },
  device: { attribute: 'device' },
  country: { attribute: 'country' },
};

/** Named by Mailgun, but nothing here records them: refused with a reason rather than answered empty. */
const UNAVAILABLE: Record<string, string> = {
  ip: 'sending IPs are chosen by SES and not recorded per event',
  ip_pool: 'this platform has no IP pools',
  subaccount: 'counters are kept per account; query a subaccount with X-Mailgun-On-Behalf-Of',
  bot: 'bot opens are not classified',
};

/** The field behind a dimension or filter attribute this endpoint offers, or a 400 saying why not. */
function fieldOf(name: string, what: 'dimension' | 'filter attribute', offered: readonly string[]): Field {
  const field = FIELDS[name];
  if (field && offered.includes(name)) return field;
  const why = UNAVAILABLE[name];
  if (why) throw new BadRequest(`The ${what} '${name}' is not available: ${why}`);
  const choices = what === 'dimension' ? offered : offered.filter((d) => d !== 'time');
  throw new BadRequest(`Unknown ${what} '${name}'${choices.length ? `: use one of ${choices.join(', ')}` : ': this endpoint takes no filters'}`);
}

const COMPARATORS = ['=', '!=', 'contains', 'not contains'] as const;

const filterSchema = () => z
  .object({
    AND: z
      .array(
        z.object({
          attribute: z.string(),
          comparator: z.enum(COMPARATORS, { errorMap: () => ({ message: `must be one of ${COMPARATORS.join(', ')}` }) }),
          values: z.array(z.object({ label: z.string().optional(), value: z.string() })).min(1, 'must name at least one value'),
        }),
      )
      .min(1, 'must hold at least one condition'),
  })
  .strict();

const paginationSchema = () => z
  .object({
    sort: z.string().optional(),
    skip: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).optional(),
    include_total: z.boolean().optional(),
  })
  .optional();

const baseQuery = () => ({
  start: z.string().optional(),
  end: z.string().optional(),
  duration: z.string().optional(),
  resolution: z.enum(RESOLUTIONS, { errorMap: () => ({ message: 'must be one of hour, day, month' }) }).optional(),
  dimensions: z.array(z.string()).optional(),
  metrics: z.array(z.string()).optional(),
  filter: filterSchema().optional(),
  include_subaccounts: flag().optional(),
  include_aggregates: flag().optional(),
  pagination: paginationSchema(),
});

export const metricsQuery = schema(() => z.object(baseQuery()));
export type MetricsQuery = z.infer<ReturnType<typeof metricsQuery>>;

/** What a metrics endpoint offers: its metric names, their values from counts, and its dimensions. */
export interface MetricSet {
  names: readonly string[];
  dimensions: readonly string[];
  valuesOf(counts: Counts, wanted: readonly string[]): Record<string, number | string>;
}

export const SENDING_METRICS: MetricSet = {
  names: [...COUNT_METRICS, ...RATE_METRICS],
  dimensions: ['time', ...Object.keys(FIELDS)],
  valuesOf(counts, wanted) {
    const all = derivedCounts(counts);
    const out: Record<string, number | string> = {};
    for (const name of wanted) out[name] = name.endsWith('_rate') ? RATES[name]!(all) : all[name.slice(0, -'_count'.length)]!;
    return out;
  },
};

/** The usage counts inspection tests add (functions/inspect/common/usage.ts), as Mailgun names them. */
const INSPECTION_USAGE = ['link_validation', 'link_validation_failed', 'image_validation', 'image_validation_failed', 'accessibility', 'accessibility_failed', 'email_preview', 'email_preview_failed'] as const;

/**
 * Usage metrics: only what this platform meters. Messages processed, inspection tests and preview
 * renders exist; email validation, seed tests, blocklist monitoring and archiving do not (yet), and a
 * count of zero for them would read as "used none" rather than "not offered".
 */
export const USAGE_METRICS: MetricSet = {
  names: ['processed_count', ...INSPECTION_USAGE.map((name) => `${name}_count`)],
  dimensions: ['time'],
  valuesOf(counts, wanted) {
    const out: Record<string, number | string> = {};
    for (const name of wanted) {
      const stored = name.slice(0, -'_count'.length) as (typeof INSPECTION_USAGE)[number];
      out[name] = name === 'processed_count' ? (SENDING_METRICS.valuesOf(counts, [name])[name] as number) : (counts[stored] ?? 0);
    }
    return out;
  },
};

interface Row {
  dimensions: Array<{ dimension: string; value: string; display_value: string }>;
  counts: Counts;
  /** The value of the sort key: a bucket start or a metric as a number, a dimension's label. */
  sortValue: string | number;
}

function compareRows(descending: boolean) {
  return (a: Row, b: Row) => {
    const x = a.sortValue;
    const y = b.sortValue;
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return descending ? -order : order;
  };
}

/** A metrics query over `accounts` (the first is the acting one; the others' counters add to the same groups). */
export async function queryMetrics(accounts: readonly string[], query: MetricsQuery, set: MetricSet, now = Date.now()) {
  const range = timeRange(query, now);
  const resolution: Resolution = query.resolution ?? 'day';
  const dimensions = query.dimensions ?? [];
  if (new Set(dimensions).size !== dimensions.length) throw new BadRequest('Each dimension may be named once');
  const metrics = query.metrics ?? [];
  if (!metrics.length) throw new BadRequest(`Missing parameter 'metrics': name at least one, such as ${set.names[0]}`);
  for (const m of metrics) if (!set.names.includes(m)) throw new BadRequest(`Unknown metric '${m}': use any of ${set.names.join(', ')}`);

  const groupDims = dimensions.filter((d) => d !== 'time');
  const groupBy = groupDims.map((d) => fieldOf(d, 'dimension', set.dimensions));
  const filterable = set.dimensions.filter((d) => d !== 'time');
  const filters: Predicate[] = (query.filter?.AND ?? []).map((p) => ({
    field: fieldOf(p.attribute, 'filter attribute', filterable),
    comparator: p.comparator as Comparator,
    values: p.values.map((v) => v.value),
  }));
  const byTime = dimensions.includes('time');
  const groups = await runCounterQuery({ accountId: accounts[0]!, alsoAccounts: accounts.slice(1), resolution, from: range.from, to: range.to, byTime, groupBy, filters });

  const [sortKey, direction] = (query.pagination?.sort ?? '').split(':');
  const sortBy = sortKey || dimensions[0] || '';
  if (sortBy && !dimensions.includes(sortBy) && !set.names.includes(sortBy)) throw new BadRequest(`Cannot sort by '${sortBy}': sort by a requested dimension or metric`);
  if (direction !== undefined && direction !== 'asc' && direction !== 'desc') throw new BadRequest(`Invalid sort direction '${direction}': use asc or desc`);

  const rows: Row[] = groups.map((group) => {
    const labelOf = (d: string) => (d === 'time' ? rfc2822(group.bucket!) : group.labels[groupDims.indexOf(d)]!);
    const dims = dimensions.map((d) => ({ dimension: d, value: labelOf(d), display_value: labelOf(d) }));
    // Only the sort key is worked out per row; the page's metrics come below. Rates are strings on
    // the wire and numbers here, so "100.00" sorts above "75.00".
    const sortValue = !sortBy ? '' : sortBy === 'time' ? group.bucket! : dimensions.includes(sortBy) ? labelOf(sortBy) : Number(set.valuesOf(group.counts, [sortBy])[sortBy]);
    return { dimensions: dims, counts: group.counts, sortValue };
  });
  if (sortBy) rows.sort(compareRows(direction === 'desc'));

  // Mailgun's defaults and caps: 1500 rows of a time series, 10 (at most 1000) of anything else.
  const maxLimit = byTime ? 1500 : 1000;
  const limit = query.pagination?.limit ?? (byTime ? 1500 : 10);
  if (limit > maxLimit) throw new BadRequest(`Invalid parameter 'pagination.limit': at most ${maxLimit}`);
  const skip = query.pagination?.skip ?? 0;
  const page = rows.slice(skip, skip + limit);

  const total = rows.reduce<Counts>((sum, row) => addCounts(sum, row.counts), {});
  return {
    start: rfc2822(range.from),
    end: rfc2822(range.to),
    resolution,
    ...(query.duration !== undefined ? { duration: query.duration } : {}),
    dimensions,
    items: page.map((row) => ({ dimensions: row.dimensions, metrics: set.valuesOf(row.counts, metrics) })),
    aggregates: { metrics: query.include_aggregates ? set.valuesOf(total, metrics) : {} },
    pagination: { sort: sortBy ? `${sortBy}:${direction ?? 'asc'}` : '', skip, limit, total: rows.length },
  };
}
