import { accountsCovered } from '../accounts/subaccount-list';
import { z } from 'zod/v3';
import { requireDomain } from '../domains/domain-store';
import { parseDateInput } from '../platform/dates';
import { BadRequest, NotFound } from '../platform/errors';
import { oneOfValues, schema, text, validate } from '../platform/http/params';
import { areaHandler, operation, type ApiRequest } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { AGGREGATE_SINGULARS, aggregates, AGGREGATE_TYPES, TYPE_BY_SINGULAR, type AggregateType } from './aggregates';
import { metricsQuery, queryMetrics, SENDING_METRICS, USAGE_METRICS, type MetricSet } from './metrics';
import { analyticsRoutes } from './routes';
import { filteredStats, STATS_FIELDS, statsFilterInput, statsRange, statsSeries, totalDomainsInput, totalsByDomain } from './stats';
import type { Predicate } from './query';

/** When the domain was created (a 404 for an unknown domain): aggregates count from there. */
async function domainSince(accountId: string, name: string): Promise<number> {
  return Date.parse((await requireDomain(accountId, name)).createdAt);
}

const domainInput = () => ({ domain: z.string().transform((d) => d.toLowerCase()) });
const statsInput = schema(() => z.object({ ...statsRange(), ...domainInput() }));
const tagStatsInput = schema(() => z.object({
  ...statsRange(),
  ...domainInput(),
  tag: text(),
  provider: text().optional(),
  device: text().optional(),
  country: text().optional(),
}));
const aggregateInput = schema(() => z.object({ ...domainInput(), type: z.string() }));
const tagAggregateQueryInput = schema(() => z.object({ ...domainInput(), tag: text(), type: oneOfValues(AGGREGATE_SINGULARS) }));

function aggregateType(type: string): AggregateType {
  if (!Object.hasOwn(AGGREGATE_TYPES, type)) throw new NotFound('Not Found');
  return type as AggregateType;
}

const domainIs = (domain: string): Predicate => ({ field: STATS_FIELDS['domain']!, comparator: '=', values: [domain] });

async function tagStats(req: ApiRequest, input: z.infer<ReturnType<typeof tagStatsInput>>) {
  await domainSince(req.accountId, input.domain);
  const filters = [domainIs(input.domain), { field: STATS_FIELDS['tag']!, comparator: '=' as const, values: [input.tag] }];
  for (const name of ['provider', 'device', 'country'] as const) {
    const value = input[name];
    if (value !== undefined) filters.push({ field: STATS_FIELDS[name]!, comparator: '=', values: [value] });
  }
  return { tag: input.tag, ...(await statsSeries({ accountId: req.accountId, ...input, filters })) };
}

async function tagAggregates(req: ApiRequest, domain: string, tag: string, type: AggregateType) {
  const since = await domainSince(req.accountId, domain);
  return { tag, [AGGREGATE_TYPES[type].singular]: await aggregates(req.accountId, domain, since, type, tag) };
}

/** The JSON query document: metrics bodies are JSON objects, never form fields. */
function metricsInput(req: ApiRequest) {
  if (req.json === undefined || req.json === null || typeof req.json !== 'object' || Array.isArray(req.json)) {
    throw new BadRequest('The query must be a JSON object (Content-Type: application/json)');
  }
  return validate(metricsQuery(), req.json);
}

const parseTimestamp = (value: string) => {
  const date = parseDateInput(value);
  if (!date) throw new BadRequest(`Invalid timestamp '${value}': use an RFC 2822 date or epoch seconds`);
  return date.getTime();
};

/** A metrics query over the acting account, and with include_subaccounts its subaccounts' counters in the same groups. */
async function metricsOf(req: ApiRequest, set: MetricSet) {
  const input = metricsInput(req);
  return queryMetrics(await accountsCovered(req.accountId, input.include_subaccounts), input, set);
}

export const handler = areaHandler(analyticsRoutes, {
  metrics: operation(() => z.object({}).passthrough(), (req) => metricsOf(req, SENDING_METRICS)),
  usageMetrics: operation(() => z.object({}).passthrough(), (req) => metricsOf(req, USAGE_METRICS)),
  accountStats: operation(() => z.object(statsRange()), async (req, input) => statsSeries({ accountId: req.accountId, ...input })),
  domainTotals: operation(totalDomainsInput, async (req, input) => totalsByDomain(req.accountId, input, parseTimestamp)),
  filteredStats: operation(statsFilterInput, async (req, input) => filteredStats(req.accountId, input)),
  domainStats: operation(statsInput, async (req, input) => {
    await domainSince(req.accountId, input.domain);
    return statsSeries({ accountId: req.accountId, ...input, filters: [domainIs(input.domain)] });
  }),
  domainAggregates: operation(aggregateInput, async (req, input) => {
    const type = aggregateType(input.type);
    const since = await domainSince(req.accountId, input.domain);
    return { [type]: await aggregates(req.accountId, input.domain, since, type) };
  }),
  tagStatsByQuery: operation(tagStatsInput, tagStats),
  tagStats: operation(tagStatsInput, tagStats),
  tagAggregatesByQuery: operation(tagAggregateQueryInput, async (req, input) => tagAggregates(req, input.domain, input.tag, TYPE_BY_SINGULAR[input.type]!)),
  tagAggregates: operation(() => aggregateInput().extend({ tag: text() }), async (req, input) => tagAggregates(req, input.domain, input.tag, aggregateType(input.type))),
}, { onBehalfOf });
