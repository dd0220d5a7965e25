import type { RecordedEvent } from '../events/event-store';
import { env } from '../platform/env';
import { BadRequest } from '../platform/errors';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { eventSelection, type EventSelection } from './event-selection';
import { compileFilter, matchesFilter } from './filter';
import { readLogs, type LogRead } from './log-reader';
import { accountsCovered } from '../accounts/subaccount-list';
import { logItem } from './present';
import { decodeToken, encodeToken, logsInput, rfc2822, timeRange, type LogsToken } from './query';
import { logRoutes } from './routes';
import { findAccount } from '../accounts/account-store';

/** Items one page may examine: a selective filter over a busy range stops there and resumes on `next`. */
const PAGE_BUDGET = 5_000;
/** Items `include_totals` may count; past it the request is refused rather than answered with a guess. */
const COUNT_BUDGET = 100_000;

/**
 * The four tokens of a page. At either end the position stays, so following `next` from the last
 * page (or `previous` from the first) yields an empty page, as Mailgun's do. A page cut short by
 * the budget resumes from where it stopped, not from its last item.
 */
function pageTokens(token: LogsToken, read: LogRead) {
  const base = { ascending: token.ascending };
  const first = read.found[0]?.sk;
  const last = read.found.at(-1)?.sk;
  const next = token.backward ? (last ?? read.stoppedAt) : (read.stoppedAt ?? last ?? token.position);
  const previous = token.backward ? (read.stoppedAt ?? first ?? token.position) : (first ?? token.position);
  return {
    previous: encodeToken({ ...base, backward: true, position: previous }),
    next: encodeToken({ ...base, position: next }),
    first: encodeToken(base),
    last: encodeToken({ ...base, backward: true }),
  };
}

/** Counts the whole range (for include_totals), with each requested metric event alongside. */
async function totals(accountIds: readonly string[], from: number, to: number, keep: (event: RecordedEvent) => boolean, selection: EventSelection) {
  let all = 0;
  const metrics: Record<string, number> = Object.fromEntries(selection.metrics.map(([name]) => [name, 0]));
  const read = await readLogs(accountIds, {
    from,
    to,
    ascending: true,
    limit: Number.POSITIVE_INFINITY,
    budget: COUNT_BUDGET,
    // Tallies and keeps nothing: counting never holds the range in memory.
    keep: (event) => {
      if (!keep(event)) return false;
      all++;
      for (const [name, test] of selection.metrics) if (test(event.data)) metrics[name]!++;
      return false;
    },
  });
  if (read.stoppedAt) throw new BadRequest(`include_totals counts at most ${COUNT_BUDGET} events: narrow the time range or the filter`);
  return { all, metrics };
}

export const handler = areaHandler(logRoutes, {
  /**
   * The acting account's events (X-Mailgun-On-Behalf-Of selects a subaccount's); with
   * include_subaccounts, its subaccounts' too, merged in time order (readLogs).
   */
  listLogs: operation(logsInput, async (req, input) => {
    const now = Date.now();
    const { start, end } = timeRange(input, now);
    const ascending = (input.pagination.sort ?? 'timestamp:desc') === 'timestamp:asc';
    const token: LogsToken = input.pagination.token ? decodeToken(input.pagination.token) : { ascending };
    if (token.ascending !== ascending) throw new BadRequest("Invalid parameter 'pagination.token': it belongs to a listing in the other order");
    const selection = eventSelection(input.events, input.metric_events);
    const predicates = compileFilter(input.filter);
    const keep = (event: RecordedEvent) => selection.wants(event.data) && matchesFilter(predicates, event);
    // Nothing older than the event retention exists, and nothing newer than now (a minute's slack
    // for clocks): the walk over hour partitions stays between, whatever window was asked for.
    const from = Math.max(start, now - env().EVENT_TTL_DAYS * 86_400_000);
    const to = Math.min(end, now + 60_000);
    const accountIds = await accountsCovered(req.accountId, input.include_subaccounts);
    const [read, account, counted] = await Promise.all([
      from > to
        ? Promise.resolve<LogRead>({ found: [], examined: 0 })
        : readLogs(accountIds, { from, to, ascending: token.backward ? !ascending : ascending, after: token.position, limit: input.pagination.limit, keep, budget: PAGE_BUDGET }, now),
      findAccount(req.accountId),
      input.include_totals && from <= to ? totals(accountIds, from, to, keep, selection) : undefined,
    ]);
    // A backward page is read nearest-first; it is shown in the listing's order.
    if (token.backward) read.found.reverse();
    const total = input.include_totals ? (counted ?? { all: 0, metrics: {} }) : undefined;
    return {
      start: rfc2822(start),
      end: rfc2822(end),
      // A subaccount's event names the acting account as its parent.
      items: read.found.map(({ event }) => logItem(event, req.baseUrl, event.accountId === req.accountId ? account?.parentId : req.accountId)),
      pagination: { ...pageTokens(token, read), ...(total ? { total: total.all } : {}) },
      aggregates: total ?? {},
    };
  }),
}, { onBehalfOf });
