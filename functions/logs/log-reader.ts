import { accountLogPartition, mergeShards, eventShards, eventSortKey, hourOf, maxKey, minKey, type EventItem, type RecordedEvent } from '../events/event-store';
import { isLive, queryPage } from '../data/store';

/**
 * Reads an account's events across all its domains through the account-wide index (gsi1, one
 * partition per UTC hour, sorted by `<ms>#<id>`): a Query per hour the range covers, never a
 * Scan. Filters apply to what the queries return, so a selective filter reads more than it
 * returns; `budget` caps the items one request may examine, and a page cut short by it says where
 * it stopped so the next page carries on from there.
 *
 * With EVENT_SHARDS above 1 each hour is several partitions: they are read side by side and merged
 * by sort key, so items are examined (and the budget spent) in the same order as from one.
 */

const HOUR_MS = 3_600_000;
/** Items per Query: large enough to amortise round trips, small enough not to over-read a page. */
const CHUNK = 100;
/** Hour partitions queried at once. */
const LOOKAHEAD = 8;

export interface LogRange {
  accountId: string;
  /** Inclusive bounds in ms. */
  from: number;
  to: number;
  ascending: boolean;
  /** Exclusive sort key to resume after, in reading order. */
  after?: string;
  limit: number;
  keep: (event: RecordedEvent) => boolean;
  /** Most items to examine before stopping short. */
  budget: number;
}

export interface LogRead {
  found: Array<{ sk: string; event: RecordedEvent }>;
  /** Set when the budget ran out first: the last examined key, to resume after. */
  stoppedAt?: string;
  /** Items examined, kept or not. */
  examined: number;
}

type Row = EventItem & { sk: string };

/** The hour partitions of the range, in reading order, from the resume position's hour on. */
function hoursOf(range: LogRange): string[] {
  const resumeHour = range.after ? Math.floor(Number(range.after.slice(0, 13)) / HOUR_MS) : undefined;
  let first = Math.floor(range.from / HOUR_MS);
  let last = Math.floor(range.to / HOUR_MS);
  if (resumeHour !== undefined) {
    if (range.ascending) first = Math.max(first, resumeHour);
    else last = Math.min(last, resumeHour);
  }
  const hours: string[] = [];
  for (let h = first; h <= last; h++) hours.push(hourOf(h * HOUR_MS));
  return range.ascending ? hours : hours.reverse();
}

/**
 * Several accounts' logs as one (include_subaccounts), merged in reading order. Sort keys
 * (`<ms>#<id>`) order events across accounts, so one position resumes them all. The budget is
 * shared: each account first gets an equal part, and what quiet accounts leave unused goes, round
 * by round, to the busy ones that stopped short, so one busy subaccount among many quiet ones is
 * read as far as the whole budget allows rather than cutting the page at its small part. If some
 * read still stopped short, the page ends at the earliest such stop, before which every account
 * has been read whole.
 */
export async function readLogs(accountIds: readonly string[], range: Omit<LogRange, 'accountId'>, now = Date.now()): Promise<LogRead> {
  if (accountIds.length === 1) return readLog({ ...range, accountId: accountIds[0]! }, now);
  const reads = accountIds.map((accountId) => ({ accountId, found: [] as LogRead['found'], after: range.after, stoppedAt: undefined as string | undefined }));
  let remaining = range.budget;
  let short = reads;
  while (short.length && remaining > 0) {
    const share = Math.max(1, Math.floor(remaining / short.length));
    const results = await Promise.all(short.map((read) => readLog({ ...range, accountId: read.accountId, after: read.after, limit: range.limit - read.found.length, budget: share }, now)));
    for (const [i, result] of results.entries()) {
      const read = short[i]!;
      read.found.push(...result.found);
      read.stoppedAt = result.stoppedAt;
      if (result.stoppedAt) read.after = result.stoppedAt;
      remaining -= result.examined;
    }
    short = short.filter((read) => read.stoppedAt !== undefined);
  }
  const before = (a: string, b: string) => (range.ascending ? a < b : a > b);
  const stops = reads.flatMap((read) => (read.stoppedAt ? [read.stoppedAt] : []));
  const stoppedAt = stops.reduce<string | undefined>((earliest, stop) => (earliest === undefined || before(stop, earliest) ? stop : earliest), undefined);
  const found = mergeShards(
    reads.map((read) => read.found.filter((item) => stoppedAt === undefined || !before(stoppedAt, item.sk))),
    range.ascending,
    range.limit,
  );
  return found.length === range.limit || stoppedAt === undefined ? { found, examined: range.budget - remaining } : { found, stoppedAt, examined: range.budget - remaining };
}

export async function readLog(range: LogRange, now = Date.now()): Promise<LogRead> {
  const found: LogRead['found'] = [];
  const low = eventSortKey(range.from, '');
  const high = eventSortKey(range.to, '\uffff');
  const shards = eventShards();
  let examined = 0;
  let position = range.after;
  // Bounds in the reading direction, from a position reached so far (it only narrows the hour it
  // lies in: every later hour is wholly beyond it).
  const query = (hour: string, shard: number, limit: number, from: string | undefined) =>
    queryPage<Row>(accountLogPartition(range.accountId, hour, shard), {
      prefix: '',
      ascending: range.ascending,
      after: range.ascending ? maxKey(low, from) : low,
      before: range.ascending ? high : minKey(high, from),
      limit,
      withSortKey: true,
      onIndex: true,
    });
  const first = (a: string, b: string) => (range.ascending ? a < b : a > b);
  const hours = hoursOf(range);
  for (let g = 0; g < hours.length; g += LOOKAHEAD) {
    const group = hours.slice(g, g + LOOKAHEAD);
    // Mostly-empty hours cost a round trip each: ask several at once, each for no more than the
    // page still needs, so a long range is not a long chain of waits and a page over-reads little.
    const size = Math.min(CHUNK, Math.max(1, range.limit - found.length));
    const from = position;
    const firsts = await Promise.all(group.map((hour) => Promise.all(shards.map((shard) => query(hour, shard, size, from)))));
    for (const [i, hour] of group.entries()) {
      // One lane per shard: its rows fetched, how far through them, and whether a full page (so
      // maybe more) came back. A row is examined only once every lane that may hold more has a row
      // in hand, so the earliest of their heads is the earliest left in the hour.
      const lanes = shards.map((shard) => ({ shard, rows: firsts[i]![shard]!, at: 0, asked: size, last: from }));
      for (;;) {
        await Promise.all(
          lanes
            .filter((lane) => lane.at === lane.rows.length && lane.rows.length === lane.asked)
            .map(async (lane) => {
              lane.rows = await query(hour, lane.shard, CHUNK, lane.last);
              lane.at = 0;
              lane.asked = CHUNK;
            }),
        );
        let next: (typeof lanes)[number] | undefined;
        for (const lane of lanes) if (lane.at < lane.rows.length && (!next || first(lane.rows[lane.at]!.sk, next.rows[next.at]!.sk))) next = lane;
        if (!next) break;
        const row = next.rows[next.at++]!;
        next.last = row.sk;
        examined++;
        position = row.sk;
        // Expired items linger until DynamoDB removes them (dynalite never does): they are gone.
        const live = isLive(row, now);
        const event: RecordedEvent = { accountId: row.accountId, domain: row.domain, data: row.data };
        if (live && range.keep(event)) {
          found.push({ sk: row.sk, event });
          if (found.length === range.limit) return { found, examined };
        }
        if (examined >= range.budget) return { found, stoppedAt: row.sk, examined };
      }
    }
  }
  return { found, examined };
}
