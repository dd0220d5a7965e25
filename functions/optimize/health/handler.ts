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
      const accounts = await accountsCovered(req.accountId, input.include_subaccounts);
      const groups = new Map<string, { accountId: string; counts: Counts }>();
      const into = (key: string, accountId: string, counts: Counts) => {
        const group = groups.get(key) ?? { accountId, counts: {} };
        addCounts(group.counts, counts);
        groups.set(key, group);
      };
      for (const accountId of accounts) {
        if (input.group === 'domain') {
          for (const row of await queryCounters(accountId, ['domain'], 'day', windowBuckets())) into(row.values[0]!, accountId, row.counts);
        } else {
          for (const row of await getCounters(accountId, [], 'day', windowBuckets(), [[]])) {
            into(input.group === 'subaccount' ? accountId : new Date(row.bucket).toISOString().slice(0, 10), accountId, row.counts);
          }
        }
      }
      const terms = [...(input.term ?? []), ...(input['term[]'] ?? [])].map((t) => t.replace(/^[a-z]+:/, '').toLowerCase());
      const query = input.query?.toLowerCase();
      const items = [...groups.entries()]
        .filter(([key]) => (!terms.length || terms.includes(key.toLowerCase())) && (!query || key.toLowerCase().includes(query)))
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
