import { z } from 'zod/v3';
import { accountsCovered } from '../../accounts/subaccount-list';
import { addCounts, type Counts } from '../../analytics/counts';
import { BadRequest } from '../../platform/errors';
import { flag, instant, integer, list, oneOfValues, schema, text } from '../../platform/http/params';
import { offsetOfPage, offsetPaging } from '../../platform/http/offset-pages';
import { absoluteUrl } from '../../platform/http/paging';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { spamtrapRoutes } from './routes';
import { dataSources, MAX_TRAP_DAYS, trapRows, trapTotals, type TrapRow } from './trap-counts';

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Dimensions Mailgun names that the counters do not keep: refused, never answered with made-up zeros. */
const NOT_KEPT = 'is not available: trap hits are counted per account, sending domain, tag and day, not per sending IP, sender or From';

const notKept = (name: string) => new BadRequest(`${name} ${NOT_KEPT}`);

/** Values of a repeatable filter given as `name` or `name[]`. */
const repeated = (input: Record<string, unknown>, name: string) => [...((input[name] as string[] | undefined) ?? []), ...((input[`${name}[]`] as string[] | undefined) ?? [])];

function refuseUnkeptFilters(input: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) if (repeated(input, name).length) throw notKept(`filtering by ${name}`);
}

/** Sums rows into groups by a key. */
function sumBy(rows: readonly TrapRow[], keyOf: (row: TrapRow) => string): Map<string, Counts> {
  const groups = new Map<string, Counts>();
  for (const row of rows) {
    const key = keyOf(row);
    groups.set(key, addCounts(groups.get(key) ?? {}, row.counts));
  }
  return groups;
}

async function rowsOf(accountId: string, includeSubaccounts: boolean | undefined, from: number, to: number, by: 'domain' | 'tag' | undefined, domains: string[]) {
  if (to - from > MAX_TRAP_DAYS * DAY_MS) throw new BadRequest(`The range is too long: at most ${MAX_TRAP_DAYS} days a request`);
  const accounts = await accountsCovered(accountId, includeSubaccounts);
  return (await Promise.all(accounts.map((id) => trapRows(id, from, to, by, domains)))).flat();
}

const V2_DIMENSIONS = ['timestamp', 'domain_name', 'ip', 'sender', 'from', 'tags', 'subaccount'] as const;
const V2_METRICS = ['pristine_count', 'recycled_count', 'typo_count', 'harvested_count', 'total_count'] as const;

const rfc3339 = () => instant('must be an RFC 3339 time');

const isoDay = () =>
  text().transform((value, ctx) => {
    const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a UTC date, YYYY-MM-DD' });
      return z.NEVER;
    }
    return ms;
  });

const filterLists = (names: readonly string[]) => Object.fromEntries(names.flatMap((name) => [[name, list().optional()], [`${name}[]`, list().optional()]]));

export const handler = areaHandler(spamtrapRoutes, {
  spamtrapsV2: operation(
    schema(() =>
      z
        .object({
          start: rfc3339().optional(),
          end: rfc3339().optional(),
          dimension: oneOfValues(V2_DIMENSIONS).default('timestamp'),
          sort: text().optional(),
          limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }),
          skip: integer().refine((n) => n >= 0, { message: 'must not be negative' }).default(0),
          include_subaccounts: flag().optional(),
          ...filterLists(['ip', 'domain', 'sender', 'from']),
        })
        .passthrough(),
    ),
    async (req, input) => {
      const end = input.end ?? Date.now();
      const start = input.start ?? end - 7 * DAY_MS;
      if (start >= end) throw new BadRequest("Invalid parameter 'start': must be before 'end'");
      if (input.dimension === 'ip' || input.dimension === 'sender' || input.dimension === 'from') throw notKept(`dimension=${input.dimension}`);
      refuseUnkeptFilters(input, ['ip', 'sender', 'from']);
      const [sortField = input.dimension, sortOrder = 'asc'] = (input.sort ?? input.dimension).split(':');
      if (!([input.dimension, ...V2_METRICS] as string[]).includes(sortField) || !['asc', 'desc'].includes(sortOrder)) {
        throw new BadRequest(`Invalid parameter 'sort': ${input.dimension} or one of ${V2_METRICS.join(', ')}, then :asc or :desc`);
      }
      const by = input.dimension === 'domain_name' ? 'domain' : input.dimension === 'tags' ? 'tag' : undefined;
      const rows = await rowsOf(req.accountId, input.include_subaccounts, start, end, by, repeated(input, 'domain'));
      const keyOf = (row: TrapRow) => (input.dimension === 'timestamp' ? day(row.day) : input.dimension === 'subaccount' ? row.accountId : row.group!);
      const items = [...sumBy(rows, keyOf).entries()].map(([value, counts]) => {
        const t = trapTotals(counts);
        return {
          dimensions: [{ dimension: input.dimension, value, display_value: value }],
          metrics: { pristine_count: t.pristine, recycled_count: t.recycled, typo_count: t.typo, harvested_count: t.harvested, total_count: t.total },
        };
      });
      const valueOf = (item: (typeof items)[number]) => (sortField === input.dimension ? item.dimensions[0]!.value : item.metrics[sortField as (typeof V2_METRICS)[number]]);
      items.sort((a, b) => {
        const [x, y] = [valueOf(a), valueOf(b)];
        return (x < y ? -1 : x > y ? 1 : 0) * (sortOrder === 'asc' ? 1 : -1);
      });
      return {
        items: items.slice(input.skip, input.skip + input.limit),
        pagination: { sort: `${sortField}:${sortOrder}`, skip: input.skip, limit: input.limit, total: items.length },
        start: new Date(start).toISOString(),
        end: new Date(end).toISOString(),
        dimension: input.dimension,
        data_sources: dataSources(),
      };
    },
  ),

  spamtrapsV1: operation(
    schema(() =>
      z
        .object({
          start: isoDay(),
          end: isoDay(),
          limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }),
          sortby: oneOfValues(['date', 'totals', 'domain', 'subject', 'ip', 'from']).default('date'),
          groupby: oneOfValues(['domain', 'subject', 'ip', 'from']).optional(),
          page: text().optional(),
          ...filterLists(['subject', 'domain', 'ip', 'from']),
        })
        .passthrough(),
    ),
    async (req, input) => {
      if (input.start > input.end) throw new BadRequest("Invalid parameter 'start': must not be after 'end'");
      if (input.groupby && input.groupby !== 'domain') throw notKept(`groupby=${input.groupby}`);
      if (['subject', 'ip', 'from'].includes(input.sortby)) throw notKept(`sortby=${input.sortby}`);
      if (input.sortby === 'domain' && !input.groupby) throw new BadRequest("Invalid parameter 'sortby': domain needs groupby=domain");
      refuseUnkeptFilters(input, ['subject', 'ip', 'from']);
      // `end` is a whole day, included.
      const rows = await rowsOf(req.accountId, false, input.start, input.end + DAY_MS, input.groupby, repeated(input, 'domain'));
      const datedTotals = (group: readonly TrapRow[]) => {
        const perDay = sumBy(group, (row) => day(row.day));
        const days = [...perDay.keys()].sort();
        // Every day between the first and the last with hits: Mailgun leaves out the boundary days without any.
        const out: Array<{ date: string } & ReturnType<typeof trapTotals>> = [];
        if (!days.length) return out;
        for (let t = Date.parse(`${days[0]}T00:00:00Z`); t <= Date.parse(`${days.at(-1)}T00:00:00Z`); t += DAY_MS) out.push({ date: day(t), ...trapTotals(perDay.get(day(t)) ?? {}) });
        if (input.sortby === 'totals') out.sort((a, b) => b.total - a.total || a.date.localeCompare(b.date));
        return out;
      };
      let items: unknown[];
      if (input.groupby === 'domain') {
        const byDomain = new Map<string, TrapRow[]>();
        for (const row of rows) {
          const group = byDomain.get(row.group!);
          if (group) group.push(row);
          else byDomain.set(row.group!, [row]);
        }
        const groups = [...byDomain.entries()].map(([domain, group]) => ({ domain, dated: datedTotals(group) }));
        const total = (g: (typeof groups)[number]) => g.dated.reduce((n, d) => n + d.total, 0);
        groups.sort((a, b) => (input.sortby === 'totals' ? total(b) - total(a) : 0) || a.domain.localeCompare(b.domain));
        items = groups.map((g) => ({ [g.domain]: g.dated }));
      } else {
        items = datedTotals(rows);
      }
      const offset = offsetOfPage(input.page, items.length, input.limit);
      const query = { start: day(input.start), end: day(input.end), limit: input.limit, sortby: input.sortby, groupby: input.groupby };
      const link = (page: string) => absoluteUrl(req.baseUrl, '/v1/spamtraps', { ...query, page });
      return { items: items.slice(offset, offset + input.limit), paging: offsetPaging(link, offset, input.limit), data_sources: dataSources() };
    },
  ),
}, { onBehalfOf });
