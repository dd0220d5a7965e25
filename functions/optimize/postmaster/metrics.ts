import type { DomainStat, GoogleDate, MetricDefinition, StatisticValue } from './google-types';

/**
 * What the fetch asks Postmaster Tools v2 for, and how each answer becomes a field of Mailgun's
 * GPT record (optimize contract 2.6). v2 has no domain or IP reputation: those fields are not
 * fetched and are answered with their neutral values by present.ts.
 */

/** Google's delivery error types and reasons (MetricDefinition reference), with Mailgun's error class for each type. */
export const DELIVERY_ERROR_REASONS = {
  reject: ['bad_attachment', 'bad_or_missing_ptr_record', 'ip_in_rbls', 'low_domain_reputation', 'low_ip_reputation', 'spammy_content', 'stamp_policy_error', 'other'],
  temp_fail: ['anomalous_traffic_pattern', 'other'],
} as const;
export type DeliveryErrorType = keyof typeof DELIVERY_ERROR_REASONS;
const ERROR_CLASS: Record<DeliveryErrorType, 'PERMANENT_ERROR' | 'TEMPORARY_ERROR'> = { reject: 'PERMANENT_ERROR', temp_fail: 'TEMPORARY_ERROR' };

const metric = (name: string, standardMetric: string, filter?: string): MetricDefinition => ({ name, baseMetric: { standardMetric }, ...(filter ? { filter } : {}) });
const errorMetricName = (type: string, reason: string) => `delivery_error__${type}__${reason}`;

/** A filter value in Google's filter syntax: a double-quoted string. */
const quoted = (value: string) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** The day's figures, one query (with its pages) per domain. */
export const DAILY_METRICS: readonly MetricDefinition[] = [
  metric('spam_rate', 'SPAM_RATE'),
  metric('auth_spf', 'AUTH_SUCCESS_RATE', 'auth_type = "spf"'),
  metric('auth_dkim', 'AUTH_SUCCESS_RATE', 'auth_type = "dkim"'),
  metric('auth_dmarc', 'AUTH_SUCCESS_RATE', 'auth_type = "dmarc"'),
  metric('tls_inbound', 'TLS_ENCRYPTION_RATE', 'traffic_direction = "inbound"'),
  metric('delivery_error', 'DELIVERY_ERROR_RATE'),
  ...Object.entries(DELIVERY_ERROR_REASONS).flatMap(([type, reasons]) =>
    reasons.map((reason) => metric(errorMetricName(type, reason), 'DELIVERY_ERROR_RATE', `error_type = ${quoted(type)} AND error_reason = ${quoted(reason)}`)),
  ),
  metric('feedback_loop_ids', 'FEEDBACK_LOOP_ID'),
];

/**
 * A feedback loop's spam rate needs its id in the filter, so it is a second query once the ids
 * are known. Ids are the sender's own header values: named by position, not by id, in the query.
 */
export function feedbackLoopMetrics(ids: readonly string[]): MetricDefinition[] {
  return ids.map((id, i) => metric(`feedback_loop__${i}`, 'FEEDBACK_LOOP_SPAM_RATE', `feedback_loop_id = ${quoted(id)}`));
}

export interface DeliveryErrorFigure {
  errorClass: 'PERMANENT_ERROR' | 'TEMPORARY_ERROR';
  /** Google's reason, upper-cased as Mailgun's (v1-era) error types are: `IP_IN_RBLS`. */
  errorType: string;
  ratio: number;
}

/** One UTC day of one domain as Google reported it; a figure Google did not give is absent, never 0. */
export interface PostmasterDay {
  /** `2026-11-24` */
  day: string;
  spamRate?: number;
  spfRate?: number;
  dkimRate?: number;
  dmarcRate?: number;
  inboundTlsRate?: number;
  deliveryErrorRate?: number;
  deliveryErrors: DeliveryErrorFigure[];
  feedbackLoops: Array<{ id: string; spamRatio: number }>;
}

const dayOf = (date: GoogleDate) => `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;

export function googleDate(day: string): GoogleDate {
  const [year, month, date] = day.split('-').map(Number);
  return { year: year!, month: month!, day: date! };
}

function numberOf(value: StatisticValue | undefined): number | undefined {
  const n = value?.doubleValue ?? value?.floatValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined);
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

function stringsOf(value: StatisticValue | undefined): string[] {
  if (value?.stringList?.values) return value.stringList.values;
  return value?.stringValue ? [value.stringValue] : [];
}

const SIMPLE_FIELDS: Record<string, keyof Omit<PostmasterDay, 'day' | 'deliveryErrors' | 'feedbackLoops'>> = {
  spam_rate: 'spamRate',
  auth_spf: 'spfRate',
  auth_dkim: 'dkimRate',
  auth_dmarc: 'dmarcRate',
  tls_inbound: 'inboundTlsRate',
  delivery_error: 'deliveryErrorRate',
};

export interface CollectedDays {
  days: Map<string, PostmasterDay>;
  /** Feedback loop ids per day, whose rates the second query asks for. */
  feedbackLoopIds: Map<string, string[]>;
}

/** Google's DomainStats (DAILY) as days; stats without a date or of metrics not asked for are ignored. */
export function collectDays(stats: readonly DomainStat[]): CollectedDays {
  const days = new Map<string, PostmasterDay>();
  const feedbackLoopIds = new Map<string, string[]>();
  const dayFor = (key: string) => days.get(key) ?? days.set(key, { day: key, deliveryErrors: [], feedbackLoops: [] }).get(key)!;
  for (const stat of stats) {
    if (!stat.date || !stat.metric) continue;
    const key = dayOf(stat.date);
    const simple = SIMPLE_FIELDS[stat.metric];
    if (simple) {
      const n = numberOf(stat.value);
      if (n !== undefined) dayFor(key)[simple] = n;
      continue;
    }
    const error = /^delivery_error__(reject|temp_fail)__([a-z_]+)$/.exec(stat.metric);
    if (error) {
      const n = numberOf(stat.value);
      if (n !== undefined) dayFor(key).deliveryErrors.push({ errorClass: ERROR_CLASS[error[1] as DeliveryErrorType], errorType: error[2]!.toUpperCase(), ratio: n });
      continue;
    }
    if (stat.metric === 'feedback_loop_ids') {
      const ids = stringsOf(stat.value);
      if (ids.length) {
        dayFor(key);
        feedbackLoopIds.set(key, [...new Set([...(feedbackLoopIds.get(key) ?? []), ...ids])]);
      }
    }
  }
  return { days, feedbackLoopIds };
}

/** The second query's answers (metrics named by feedbackLoopMetrics over `ids`) into the days they belong to. */
export function addFeedbackLoopRates(days: Map<string, PostmasterDay>, ids: readonly string[], stats: readonly DomainStat[]): void {
  for (const stat of stats) {
    const match = stat.date && stat.metric ? /^feedback_loop__(\d+)$/.exec(stat.metric) : null;
    const id = match ? ids[Number(match[1])] : undefined;
    const n = numberOf(stat.value);
    const day = stat.date ? days.get(dayOf(stat.date)) : undefined;
    if (id === undefined || n === undefined || !day) continue;
    day.feedbackLoops.push({ id, spamRatio: n });
  }
}
