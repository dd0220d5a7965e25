import type { RouteSpec } from '../platform/http/route';

/**
 * Metrics, stats and aggregates: every route only reads counters (written by countEvents from the
 * event stream, not by this Lambda). The tag registry and its CRUD routes (`/v3/{domain}/tags`,
 * `/v3/{domain}/tags/{tag}`, `/v3/{domain}/tag`) belong to functions/tags; here are only the paths
 * that end in `/stats` or `/aggregates`.
 */
const area = 'analytics';
const access = 'read';
const domainParam = 'domain';

export const analyticsRoutes = [
  { method: 'POST', path: '/v1/analytics/metrics', area, operation: 'metrics', access },
  { method: 'POST', path: '/v1/analytics/usage/metrics', area, operation: 'usageMetrics', access },
  { method: 'GET', path: '/v3/stats/total', area, operation: 'accountStats', access },
  { method: 'GET', path: '/v3/stats/total/domains', area, operation: 'domainTotals', access },
  { method: 'GET', path: '/v3/stats/filter', area, operation: 'filteredStats', access },
  { method: 'GET', path: '/v3/{domain}/stats/total', area, operation: 'domainStats', access, domainParam },
  { method: 'GET', path: '/v3/{domain}/aggregates/{type}', area, operation: 'domainAggregates', access, domainParam },
  { method: 'GET', path: '/v3/{domain}/tag/stats', area, operation: 'tagStatsByQuery', access, domainParam },
  { method: 'GET', path: '/v3/{domain}/tag/stats/aggregates', area, operation: 'tagAggregatesByQuery', access, domainParam },
  { method: 'GET', path: '/v3/{domain}/tags/{tag}/stats', area, operation: 'tagStats', access, domainParam },
  { method: 'GET', path: '/v3/{domain}/tags/{tag}/stats/aggregates/{type}', area, operation: 'tagAggregates', access, domainParam },
] as const satisfies readonly RouteSpec[];
