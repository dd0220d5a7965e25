import { call } from '../api';
import { credentials } from '../session';
import { listDomains } from '../ui/domain-picker';

export const COUNTS = [
  ['accepted_count', 'Accepted', '#1f5fbf'],
  ['delivered_count', 'Delivered', '#1e7b34'],
  ['failed_count', 'Failed', '#b3261e'],
  ['opened_count', 'Opened', '#7a3fb0'],
  ['clicked_count', 'Clicked', '#b06a00'],
  ['complained_count', 'Complained', '#5b6270'],
  ['unsubscribed_count', 'Unsubscribed', '#0d7c86'],
] as const;
export const RATES = [
  ['delivered_rate', 'Delivery rate'],
  ['fail_rate', 'Failure rate'],
  ['opened_rate', 'Open rate'],
  ['clicked_rate', 'Click rate'],
  ['complained_rate', 'Complaint rate'],
  ['unsubscribed_rate', 'Unsubscribe rate'],
] as const;

/** The period the page opens on, in days. */
export const FIRST_DAYS = 7;

export interface MetricsReply {
  items: Array<{ dimensions: Array<{ dimension: string; value: string }>; metrics: Record<string, number | string> }>;
  aggregates: { metrics: Record<string, number | string> };
}

function metricsQuery(days: number, domain: string) {
  return {
    duration: `${days}d`,
    resolution: 'day',
    dimensions: ['time'],
    metrics: [...COUNTS.map(([name]) => name), ...RATES.map(([name]) => name)],
    include_aggregates: true,
    pagination: { sort: 'time:asc' },
    ...(domain ? { filter: { AND: [{ attribute: 'domain', comparator: '=', values: [{ label: domain, value: domain }] }] } } : {}),
  };
}

/** Sending per day over `days`, of one domain or (empty) all. */
export function fetchDailyMetrics(days: number, domain: string, signal?: AbortSignal): Promise<MetricsReply> {
  return call<MetricsReply>(credentials(), 'POST', '/v1/analytics/metrics', { json: metricsQuery(days, domain), signal });
}

/** What the Overview asks for as it opens. */
export function loadOverview(): void {
  void listDomains();
  void fetchDailyMetrics(FIRST_DAYS, '');
}
