import { BadRequest } from '../../platform/errors';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { complianceJson, dayDate, domainDayJson, meanOf, ratiosSummary, UNKNOWN_REPUTATION } from './present';
import { postmasterRoutes } from './routes';
import { addressRangeInput, complianceInput, domainRangeInput, rangeInput, summaryInput } from './schemas';
import { daysInScope, domainInScope, domainsInScope, domainState } from './scope';
import { accountSource, addressSource, domainSource } from './source-status';

const page = <T>(items: readonly T[], input: { offset: number; limit: number }) => items.slice(input.offset, input.offset + input.limit);

/** Sorts summary items by one of their own fields; an unknown field is a 400 naming the ones there are. */
function sorted<T extends Record<string, unknown>>(items: T[], fields: readonly string[], sortBy: string | undefined, orderBy: 'asc' | 'desc' | undefined): T[] {
  const field = sortBy ?? fields[0]!;
  if (!fields.includes(field)) throw new BadRequest(`Invalid parameter 'sortBy': one of ${fields.join(', ')}`);
  const sign = orderBy === 'desc' ? -1 : 1;
  return [...items].sort((a, b) => {
    const [x, y] = [a[field], b[field]];
    // Figures Google did not give sort last either way.
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return (x! < y! ? -1 : x! > y! ? 1 : 0) * sign;
  });
}

const matches = (search: string | undefined) => (name: string) => !search || name.toLowerCase().includes(search.trim().toLowerCase());

const DOMAIN_SUMMARY_FIELDS = ['name', 'user_reported_spam_ratio', 'spf_success_ratio', 'dkim_success_ratio', 'dmarc_success_ratio', 'inbound_encryption_ratio', 'reputation'] as const;
const ERROR_SUMMARY_FIELDS = ['name', 'delivery_error_ratio'] as const;
const ADDRESS_SUMMARY_FIELDS = ['domain_name', 'address', 'reputation'] as const;

export const handler = areaHandler(postmasterRoutes, {
  gptDomains: operation(rangeInput, async (req, input) => {
    const source = accountSource();
    if (source.source_status !== 'ok') return { domain: '', data: [], total: 0, ...source };
    const days = await daysInScope(await domainsInScope(req.accountId, input.include_subaccounts), input);
    return { domain: '', data: page(days, input).map(domainDayJson), total: days.length, ...source };
  }),

  gptDomain: operation(domainRangeInput, async (req, input) => {
    const domain = await domainInScope(req.accountId, input.include_subaccounts, input.domain);
    const source = domainSource(await domainState(domain));
    if (source.source_status === 'not_configured') return { domain: domain.name, data: [], total: 0, ...source };
    const days = await daysInScope([domain], input);
    return { domain: domain.name, data: page(days, input).map(domainDayJson), total: days.length, ...source };
  }),

  gptDomainsList: operation(rangeInput, async (req, input) => {
    const source = accountSource();
    if (source.source_status !== 'ok') return { data: [], total: 0, ...source };
    const latest = new Map<string, string>();
    for (const day of await daysInScope(await domainsInScope(req.accountId, input.include_subaccounts), input)) latest.set(day.domain, day.day);
    const list = [...latest.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, day]) => ({ name, date: dayDate(day) }));
    return { data: page(list, input), total: list.length, ...source };
  }),

  gptFeedbackLoops: operation(rangeInput, async (req, input) => {
    const source = accountSource();
    if (source.source_status !== 'ok') return { data: [], total: 0, ...source };
    const days = await daysInScope(await domainsInScope(req.accountId, input.include_subaccounts), input);
    const loops = days.flatMap((d) => d.feedbackLoops.map((f) => ({ name: d.domain, id: f.id, ratio: f.spamRatio, date: dayDate(d.day) })));
    return { data: page(loops, input), total: loops.length, ...source };
  }),

  gptDomainFeedbackLoops: operation(domainRangeInput, async (req, input) => {
    const domain = await domainInScope(req.accountId, input.include_subaccounts, input.domain);
    const source = domainSource(await domainState(domain));
    if (source.source_status === 'not_configured') return { data: [], total: 0, ...source };
    const days = await daysInScope([domain], input);
    const loops = days.flatMap((d) => d.feedbackLoops.map((f) => ({ name: d.domain, id: f.id, ratio: f.spamRatio, date: dayDate(d.day) })));
    return { data: page(loops, input), total: loops.length, ...source };
  }),

  gptDomainCompliance: operation(complianceInput, async (req, input) => {
    const domain = await domainInScope(req.accountId, input.include_subaccounts, input.domain);
    const state = await domainState(domain);
    const source = domainSource(state);
    if (source.source_status === 'not_configured' || !state?.compliance) return { domain: domain.name, compliance: null, ...source };
    return { domain: domain.name, ...complianceJson(state.compliance), ...source };
  }),

  // Postmaster Tools v2 has no IP data: the address routes check their input and answer empty lists.
  gptAddresses: operation(rangeInput, async () => ({ data: [], total: 0, ...addressSource() })),
  gptAddress: operation(addressRangeInput, async (_req, input) => ({ address: input.address, data: [], total: 0, ...addressSource() })),
  gptAddressesList: operation(rangeInput, async () => ({ data: [], total: 0, ...addressSource() })),
  gptDomainAddresses: operation(domainRangeInput, async (req, input) => {
    const domain = await domainInScope(req.accountId, input.include_subaccounts, input.domain);
    return { domain: domain.name, data: [], total: 0, ...addressSource() };
  }),

  gptSummary: operation(summaryInput, async (req, input) => {
    const source = accountSource();
    const days = source.source_status === 'ok' ? (await daysInScope(await domainsInScope(req.accountId, input.include_subaccounts), input)).filter((d) => matches(input.searchField)(d.domain)) : [];
    const summary = { ...ratiosSummary(days), delivery_error_ratio: meanOf(days, (d) => d.deliveryErrorRate), reputation: UNKNOWN_REPUTATION };
    return { summary, total: days.length, ...source };
  }),

  gptSummaryDomains: operation(summaryInput, async (req, input) => {
    const source = accountSource();
    if (source.source_status !== 'ok') return { summary: [], total: 0, ...source };
    const items = await perDomain(req.accountId, input, (name, days) => ({ name, ...ratiosSummary(days), reputation: UNKNOWN_REPUTATION }));
    const ordered = sorted(items, DOMAIN_SUMMARY_FIELDS, input.sortBy, input.orderBy);
    return { summary: page(ordered, input), total: ordered.length, ...source };
  }),

  gptSummaryErrors: operation(summaryInput, async (req, input) => {
    const source = accountSource();
    if (source.source_status !== 'ok') return { summary: [], total: 0, ...source };
    const items = await perDomain(req.accountId, input, (name, days) => ({ name, delivery_error_ratio: meanOf(days, (d) => d.deliveryErrorRate) }));
    const ordered = sorted(items, ERROR_SUMMARY_FIELDS, input.sortBy, input.orderBy);
    return { summary: page(ordered, input), total: ordered.length, ...source };
  }),

  gptSummaryAddresses: operation(summaryInput, async (_req, input) => {
    sorted([], ADDRESS_SUMMARY_FIELDS, input.sortBy, input.orderBy);
    return { summary: [], ip_counts: {}, total: 0, ...addressSource() };
  }),
}, { onBehalfOf });

/** The days in range grouped by domain (domains with none left out), matching `searchField`, one summary item each. */
async function perDomain<T>(
  accountId: string,
  input: { timeRangeStart: number; timeRangeEnd: number; include_subaccounts?: boolean; searchField?: string },
  summarize: (name: string, days: Awaited<ReturnType<typeof daysInScope>>) => T,
): Promise<T[]> {
  const days = await daysInScope(await domainsInScope(accountId, input.include_subaccounts), input);
  const byDomain = new Map<string, typeof days>();
  for (const day of days.filter((d) => matches(input.searchField)(d.domain))) byDomain.set(day.domain, [...(byDomain.get(day.domain) ?? []), day]);
  return [...byDomain.entries()].map(([name, group]) => summarize(name, group));
}
