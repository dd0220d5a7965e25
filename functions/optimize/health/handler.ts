import { z } from 'zod/v3';
import { accountsCovered } from '../../accounts/subaccount-list';
import { bucketsBetween } from '../../analytics/buckets';
import { getCounters, queryCounters, type CounterRow } from '../../analytics/counter-store';
import { addCounts, type Counts } from '../../analytics/counts';
import { env } from '../../platform/env';
import { ApiError, BadRequest } from '../../platform/errors';
import { flag, integer, list, schema, text } from '../../platform/http/params';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { healthRoutes } from './routes';
import { inputsOf, SCORE_WINDOW_DAYS, scoreOf, SOURCES } from './score';

const windowBuckets = (now = Date.now()) => bucketsBetween(now - SCORE_WINDOW_DAYS * 86_400_000, now + 1, 'day');

const summed = (rows: CounterRow[]) => rows.reduce((total, row) => addCounts(total, row.counts), {} as Counts);

/** Too little mail for a score to mean anything: Mailgun answers 422 with a Reason. */
const notEnough = () => new ApiError(422, `not enough data: a score needs at least ${env().HEALTH_SCORE_MIN_VOLUME} processed messages in ${SCORE_WINDOW_DAYS} days`);

const TERM_FIELDS = ['domain', 'subaccount', 'timestamp'] as const;
type TermField = (typeof TERM_FIELDS)[number];

/**
 * Mailgun's exact filters, `term[]=domain:example.com`: the values wanted per field. A term without
 * a field names the grouping's own key, as before fields were read.
 */
function termsOf(terms: string[], group: string): Partial<Record<TermField, string[]>> {
  const wanted: Partial<Record<TermField, string[]>> = {};
  for (const term of terms) {
    const [, named, value] = /^([a-z_]+):(.*)$/i.exec(term) ?? [undefined, group, term];
    const field = named!.toLowerCase();
    if (field === 'ip') throw new BadRequest("Invalid parameter 'term': ip is not available, the counters are not kept per sending IP");
    if (!(TERM_FIELDS as readonly string[]).includes(field)) throw new BadRequest(`Invalid parameter 'term': ${field} is not a field; one of ${TERM_FIELDS.join(', ')}, as field:value`);
    (wanted[field as TermField] ??= []).push(value!.trim().toLowerCase());
  }
  return wanted;
}

const SORTS = ['domain', 'ip', 'subaccount', 'timestamp', 'score', 'bounce_rate', 'complaint_rate', 'trap_rate', 'full_mailbox_rate', 'bad_failure_rate', 'delivered'] as const;

export const handler = areaHandler(healthRoutes, {
  healthScoreTotal: operation(schema(() => z.object({ include_subaccounts: flag().optional() })), async (req, input) => {
    const accounts = await accountsCovered(req.accountId, input.include_subaccounts);
    const rows = (await Promise.all(accounts.map((id) => getCounters(id, [], 'day', windowBuckets(), [[]])))).flat();
    const inputs = inputsOf(summed(rows));
    if (inputs.base < env().HEALTH_SCORE_MIN_VOLUME) throw notEnough();
    return { ...scoreOf(inputs), window_days: SCORE_WINDOW_DAYS, sources: SOURCES };
  }),

  healthScoreGrouped: operation(
    schema(() =>
      z.object({
        include_subaccounts: flag().optional(),
        skip: integer().refine((n) => n >= 0, { message: 'must not be negative' }).default(0),
        limit: integer().refine((n) => n >= 1 && n <= 100, { message: 'must be between 1 and 100' }).default(10),
        group: z.enum(['domain', 'ip', 'subaccount', 'timestamp']).default('domain'),
        term: list().optional(),
        'term[]': list().optional(),
        query: text().optional(),
        sort: text().optional(),
      }),
    ),
    async (req, input) => {
      // The counters are kept per account, domain and day, not per sending IP.
      if (input.group === 'ip') throw new BadRequest('group=ip is not available: the counters are not kept per sending IP');
      const [sortField, sortOrder = 'desc'] = (input.sort ?? 'score:desc').split(':');
      if (!(SORTS as readonly string[]).includes(sortField!) || !['asc', 'desc'].includes(sortOrder)) throw new BadRequest(`Invalid parameter 'sort': one of ${SORTS.join(', ')}, then :asc or :desc`);
      const terms = termsOf([...(input.term ?? []), ...(input['term[]'] ?? [])], input.group);
      const accounts = (await accountsCovered(req.accountId, input.include_subaccounts)).filter((id) => !terms.subaccount || terms.subaccount.includes(id.toLowerCase()));
      const groups = new Map<string, { accountId: string; counts: Counts }>();
      const into = (key: string, accountId: string, counts: Counts) => {
        const group = groups.get(key) ?? { accountId, counts: {} };
        addCounts(group.counts, counts);
        groups.set(key, group);
      };
      // Per domain when grouped by domain or filtered to some: the counters keep each domain's days.
      const perDomain = input.group === 'domain' || terms.domain !== undefined;
      for (const accountId of accounts) {
        const rows = perDomain ? await queryCounters(accountId, ['domain'], 'day', windowBuckets()) : await getCounters(accountId, [], 'day', windowBuckets(), [[]]);
        for (const row of rows) {
          const day = new Date(row.bucket).toISOString().slice(0, 10);
          const domain = perDomain ? row.values[0]! : '';
          if ((terms.domain && !terms.domain.includes(domain.toLowerCase())) || (terms.timestamp && !terms.timestamp.includes(day))) continue;
          into(input.group === 'domain' ? domain : input.group === 'subaccount' ? accountId : day, accountId, row.counts);
        }
      }
      const query = input.query?.toLowerCase();
      const items = [...groups.entries()]
        .filter(([key]) => !query || key.toLowerCase().includes(query))
        .map(([key, group]) => ({ key, group, inputs: inputsOf(group.counts) }))
        // Only groups with enough mail are scored (Mailgun: >10,000 messages; here HEALTH_SCORE_MIN_VOLUME).
        .filter(({ inputs }) => inputs.base >= env().HEALTH_SCORE_MIN_VOLUME && inputs.delivered > 0)
        .map(({ key, group, inputs }) => ({ group_key: key, account_id: group.accountId, ...scoreOf(inputs) }));
      const valueOf = (item: (typeof items)[number]): string | number =>
        sortField === 'score' ? item.score : sortField === 'delivered' ? item.counters.delivered : sortField!.endsWith('_rate') ? item.rates[sortField as keyof typeof item.rates] : item.group_key;
      items.sort((a, b) => {
        const [x, y] = [valueOf(a), valueOf(b)];
        return (x < y ? -1 : x > y ? 1 : 0) * (sortOrder === 'asc' ? 1 : -1);
      });
      return { items: items.slice(input.skip, input.skip + input.limit), total: items.length };
    },
  ),
}, { onBehalfOf });
