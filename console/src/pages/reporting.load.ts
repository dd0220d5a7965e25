import { call } from '../api';
import { credentials } from '../session';
import { listDomains } from '../ui/domain-picker';

export const COMPARATORS = ['=', '!=', 'contains', 'not contains'] as const;

export interface FilterRow {
  attribute: string;
  comparator: (typeof COMPARATORS)[number];
  value: string;
}

export interface Explorer {
  metrics: string[];
  overTime: boolean;
  breakdown: string;
  range: string;
  from: string;
  to: string;
  resolution: 'hour' | 'day' | 'month';
  filters: FilterRow[];
}

/** RFC 2822, as the metrics API takes dates. */
function rfc2822(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000');
}

/** The API query the explorer's choices make: exactly what the page sends (and what a script would). */
export function metricsBody(e: Explorer) {
  const dimensions = [...(e.overTime ? ['time'] : []), ...(e.breakdown ? [e.breakdown] : [])];
  const filters = e.filters.filter((f) => f.attribute && f.value.trim());
  const range = e.range === 'custom' ? { ...(e.from ? { start: rfc2822(new Date(e.from)) } : {}), ...(e.to ? { end: rfc2822(new Date(e.to)) } : {}) } : { duration: e.range };
  return {
    ...range,
    resolution: e.resolution,
    dimensions,
    metrics: e.metrics,
    include_aggregates: true,
    ...(filters.length
      ? {
          filter: {
            AND: filters.map((f) => ({ attribute: f.attribute, comparator: f.comparator, values: f.value.split(',').map((v) => v.trim()).filter(Boolean).map((v) => ({ label: v, value: v })) })),
          },
        }
      : {}),
    pagination: { sort: e.overTime ? 'time:asc' : `${e.metrics[0] ?? 'accepted_count'}:desc`, limit: e.overTime ? 1500 : 1000 },
  };
}

/** The explorer's choices as the page opens. */
export const INITIAL: Explorer = { metrics: ['accepted_count', 'delivered_count', 'failed_count'], overTime: true, breakdown: '', range: '7d', from: '', to: '', resolution: 'day', filters: [] };

/** The metrics API's answer to `body` (what metricsBody makes). */
export function fetchMetrics<T>(body: unknown, signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'POST', '/v1/analytics/metrics', { json: body, signal });
}

/** What the Reporting page asks for as it opens: the domains for its filters, and the figures of its first choices. */
export function loadReporting(): void {
  void listDomains();
  void fetchMetrics(metricsBody(INITIAL));
}
