import { z } from 'zod/v3';
import { BadRequest } from '../platform/errors';
import { integer, list, oneOfValues, schema, text } from '../platform/http/params';
import { bucketStart, nextBucket, RESOLUTIONS, type Resolution } from './buckets';
import { derivedCounts, type Counts } from './counts';
import { runCounterQuery, type Field, type Predicate } from './query';
import { statsDate, timeRange } from './time-range';

/**
 * The deprecated stats API (contract §7.3): `/v3/stats/total`, `/v3/{domain}/stats/total`,
 * `/v3/stats/total/domains`, `/v3/stats/filter` and the tag stats, all from the counters.
 */
const STATS_EVENTS = ['accepted', 'delivered', 'failed', 'opened', 'clicked', 'unsubscribed', 'complained', 'stored', 'email_preview', 'email_preview_failed', 'link_validation', 'link_validation_failed', 'ip_blocklist_monitoring', 'domain_blocklist_monitoring', 'seed_test'] as const;
export type StatsEvent = (typeof STATS_EVENTS)[number];

const events = () =>
  z.preprocess(
    (value) => value ?? [],
    list()
      .pipe(z.array(oneOfValues(STATS_EVENTS, `must be one or more of ${STATS_EVENTS.join(', ')}`)))
      .refine((names) => names.length > 0, { message: `name one or more of ${STATS_EVENTS.join(', ')}` }),
  );

export const statsRange = () => ({
  event: events(),
  start: text().optional(),
  end: text().optional(),
  duration: text().optional(),
  resolution: oneOfValues(RESOLUTIONS).optional(),
});

/** One stats item: the requested events' objects, in Mailgun's nesting. */
function statsItem(time: number, counts: Counts, wanted: readonly StatsEvent[]): Record<string, unknown> {
  const c = derivedCounts(counts);
  const objects: Record<StatsEvent, () => unknown> = {
    accepted: () => ({ incoming: c['accepted_incoming'], outgoing: c['accepted_outgoing'], total: c['accepted'] }),
    delivered: () => ({ smtp: c['delivered_smtp'], http: c['delivered_http'], optimized: c['delivered_optimized'], total: c['delivered'] }),
    failed: () => ({
      temporary: { espblock: c['temporary_failed_esp_block'], total: c['temporary_failed'] },
      permanent: {
        'suppress-bounce': c['suppressed_bounces'],
        'suppress-unsubscribe': c['suppressed_unsubscribed'],
        'suppress-complaint': c['suppressed_complaints'],
        bounce: c['bounced'],
        'delayed-bounce': c['delayed_bounce'],
        webhook: c['webhook'],
        optimized: c['permanent_failed_optimized'],
        total: c['permanent_failed'],
      },
    }),
    stored: () => ({ total: c['stored'] }),
    opened: () => ({ total: c['opened'], unique: c['unique_opened'] }),
    clicked: () => ({ total: c['clicked'], unique: c['unique_clicked'] }),
    unsubscribed: () => ({ total: c['unsubscribed'] }),
    complained: () => ({ total: c['complained'] }),
    // Inspection's usage (functions/inspect/common/usage.ts): account-wide, so a domain's stats count none.
    email_preview: () => ({ total: counts.email_preview ?? 0 }),
    email_preview_failed: () => ({ total: counts.email_preview_failed ?? 0 }),
    link_validation: () => ({ total: counts.link_validation ?? 0 }),
    link_validation_failed: () => ({ total: counts.link_validation_failed ?? 0 }),
    // Blocklist monitoring's checks (functions/optimize/blocklists/check-subject.ts), account-wide too.
    ip_blocklist_monitoring: () => ({ total: counts.ip_blocklist_monitoring ?? 0 }),
    domain_blocklist_monitoring: () => ({ total: counts.domain_blocklist_monitoring ?? 0 }),
    seed_test: () => ({ total: counts.seed_test ?? 0 }),
  };
  return { time: statsDate(time), ...Object.fromEntries(wanted.map((name) => [name, objects[name]()])) };
}

export interface StatsQuestion {
  accountId: string;
  event: StatsEvent[];
  start?: string;
  end?: string;
  duration?: string;
  resolution?: Resolution;
  filters?: Predicate[];
}

/** A time series of the slice the filters name, one item per bucket (empty buckets as zeros). */
export async function statsSeries(q: StatsQuestion, now = Date.now()) {
  const range = timeRange(q, now);
  const resolution = q.resolution ?? 'day';
  const groups = await runCounterQuery({ accountId: q.accountId, resolution, from: range.from, to: range.to, byTime: true, groupBy: [], filters: q.filters ?? [] });
  groups.sort((a, b) => a.bucket! - b.bucket!);
  return {
    start: statsDate(bucketStart(range.from, resolution)),
    end: statsDate(range.to),
    resolution,
    stats: groups.map((g) => statsItem(g.bucket!, g.counts, q.event)),
  };
}

/*
 * /v3/stats/filter: `filter=domain:example.com` (repeatable) narrows, `group` splits. Groups by
 * time (or day/month, which set the resolution) make a series; by domain, tag, provider
 * (recipient domain) or country, one item per value over the whole window, named by its key.
 */
const GROUPS = ['total', 'time', 'day', 'month', 'domain', 'ip', 'provider', 'tag', 'country'] as const;

export const STATS_FIELDS: Record<string, Field> = {
  domain: { attribute: 'domain' },
  tag: { attribute: 'tag' },
  provider: { attribute: 'rdomain' },
  device: { attribute: 'device' },
  country: { attribute: 'country' },
};

export const statsFilterInput = schema(() => z.object({
  ...statsRange(),
  filter: list().optional(),
  group: oneOfValues(GROUPS).optional(),
}));

function parseFilters(filters: string[] | undefined): Predicate[] {
  return (filters ?? []).map((filter) => {
    const at = filter.indexOf(':');
    const name = filter.slice(0, at).trim();
    const field = STATS_FIELDS[name];
    if (at < 1 || !field) throw new BadRequest(`Invalid filter '${filter}': use <${Object.keys(STATS_FIELDS).join('|')}>:<value>, such as domain:example.com`);
    return { field, comparator: '=', values: [filter.slice(at + 1).trim()] };
  });
}

export async function filteredStats(accountId: string, input: z.infer<ReturnType<typeof statsFilterInput>>, now = Date.now()) {
  const filters = parseFilters(input.filter);
  const group = input.group ?? 'total';
  if (group === 'ip') throw new BadRequest("Cannot group by 'ip': sending IPs are chosen by SES and not recorded per event");
  if (group === 'time' || group === 'day' || group === 'month') {
    const resolution = group === 'time' ? input.resolution : group;
    return statsSeries({ accountId, ...input, resolution, filters }, now);
  }
  const range = timeRange(input, now);
  const resolution = input.resolution ?? 'day';
  const groupBy = group === 'total' ? [] : [STATS_FIELDS[group]!];
  const groups = await runCounterQuery({ accountId, resolution, from: range.from, to: range.to, byTime: false, groupBy, filters });
  const start = bucketStart(range.from, resolution);
  if (group === 'total' && !groups.length) groups.push({ labels: [], counts: {} });
  groups.sort((a, b) => (a.labels[0] ?? '').localeCompare(b.labels[0] ?? ''));
  return {
    start: statsDate(start),
    end: statsDate(range.to),
    resolution,
    stats: groups.map((g) => ({ ...statsItem(start, g.counts, input.event), ...(group === 'total' ? {} : { [group]: g.labels[0] }) })),
  };
}

/** /v3/stats/total/domains: every domain's totals in the one bucket holding `timestamp`. */
export const totalDomainsInput = schema(() => z.object({
  event: events(),
  timestamp: text(),
  resolution: oneOfValues(RESOLUTIONS).optional(),
  limit: integer().pipe(z.number().min(1).max(1000)).optional(),
  skip: integer().pipe(z.number().min(0)).optional(),
}));

export async function totalsByDomain(accountId: string, input: z.infer<ReturnType<typeof totalDomainsInput>>, parse: (value: string) => number) {
  const resolution = input.resolution ?? 'day';
  const at = bucketStart(parse(input.timestamp), resolution);
  const groups = await runCounterQuery({ accountId, resolution, from: at, to: at + 1, byTime: false, groupBy: [STATS_FIELDS['domain']!], filters: [] });
  groups.sort((a, b) => a.labels[0]!.localeCompare(b.labels[0]!));
  const skip = input.skip ?? 0;
  const page = groups.slice(skip, skip + (input.limit ?? 100));
  return {
    start: statsDate(at),
    end: statsDate(nextBucket(at, resolution)),
    resolution,
    total: groups.length,
    stats: page.map((g) => ({ ...statsItem(at, g.counts, input.event), domain: g.labels[0] })),
  };
}
