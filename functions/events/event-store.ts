import { isLive, putItems, queryPage, type IndexKey, type ItemWrite, type Key } from '../data/store';
import { defineEntity } from '../data/key-registry';
import { env } from '../platform/env';
import { eventId } from '../platform/ids';

/**
 * Events, partitioned by account, domain and UTC day so writes spread over partitions and a time
 * range is read as a Query per day (never a Scan); within a day they sort by time.
 *
 * The account-wide index is sharded by hour rather than day so a busy account's writes spread over
 * 24 index partitions a day; a logs query walks the hours it covers.
 *
 * A busy domain's day (and account's hour) is one partition, about 1,000 writes a second: with
 * EVENT_SHARDS = N above 1, an event goes to shard `hash(id) mod N` of both, shard 0 keeping the
 * unsharded key and shards 1 to N-1 adding `#s<k>`, and readers query every shard and merge by
 * sort key (docs/capacity.md). N = 1 writes exactly the keys it always did.
 *
 * Every event item carries `kind: 'event'`, its account and domain, so the table's stream can hand
 * new events to analytics and webhooks (functions/event-stream) without parsing keys.
 * Items expire with `ttl` (EVENT_TTL_DAYS).
 */
export type EventName = 'accepted' | 'rejected' | 'delivered' | 'failed' | 'opened' | 'clicked' | 'unsubscribed' | 'complained' | 'stored';

/** The event as the events API and webhooks show it (contract §6.2-6.3). */
export type EventData = Record<string, unknown> & { event: EventName; id: string; timestamp: number };

/** An event of the platform's own mail for the account (an alert, a confirmation): not the account's usage nor its tags. */
export const isPlatformMailEvent = (data: Record<string, unknown>): boolean => (data['flags'] as { 'is-system-test'?: unknown } | undefined)?.['is-system-test'] === true;

/** An event as it was recorded: what the stream consumers (analytics, tags, webhooks) receive. */
export interface RecordedEvent {
  accountId: string;
  domain: string;
  data: EventData;
}

/** What marks an item as an event: the stream's filter selects on it (lib/constructs/event-stream.ts). */
export const EVENT_ITEM_KIND = 'event';

/** The stored item. */
export interface EventItem extends RecordedEvent {
  kind: typeof EVENT_ITEM_KIND;
  ttl: number;
}

defineEntity(
  'events',
  {
    event: {
      what: 'an event (built by eventWrite: a partition per domain and UTC day, on gsi1 a partition per account and UTC hour): its shard 0, all of them unless EVENT_SHARDS is set',
      pk: 'ACCT#<account>#EVT#<domain>#<yyyymmdd>',
      sk: '<13-digit ms>#<event id>',
      gsi1pk: 'ACCT#<account>#LOG#<yyyymmddhh>',
      gsi1sk: '<13-digit ms>#<event id>',
    },
    eventShard: {
      what: "an event in shard 1 to EVENT_SHARDS - 1 (hash of its id): one busy domain's day and account's hour spread over partitions",
      pk: 'ACCT#<account>#EVT#<domain>#<yyyymmdd>#s<shard>',
      sk: '<13-digit ms>#<event id>',
      gsi1pk: 'ACCT#<account>#LOG#<yyyymmddhh>#s<shard>',
      gsi1sk: '<13-digit ms>#<event id>',
    },
  },
  [
    { what: "a domain's events between two instants (sk BETWEEN t1, t2), a Query per day", pk: 'ACCT#<account>#EVT#<domain>#<yyyymmdd>' },
    { what: "a domain's events between two instants in shard 1 to EVENT_SHARDS - 1, a Query per day and shard, merged by sort key", pk: 'ACCT#<account>#EVT#<domain>#<yyyymmdd>#s<shard>' },
    { what: "an account's events (all domains) between two instants, a Query per hour", index: 'gsi1', pk: 'ACCT#<account>#LOG#<yyyymmddhh>' },
    { what: "an account's events between two instants in shard 1 to EVENT_SHARDS - 1, a Query per hour and shard, merged by sort key", index: 'gsi1', pk: 'ACCT#<account>#LOG#<yyyymmddhh>#s<shard>' },
  ],
);

const DAY_MS = 86_400_000;

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10).replace(/-/g, '');
}

/** The partitions' suffix of shard k: none for shard 0, so one shard is the unsharded layout. */
const shardSuffix = (shard: number) => (shard === 0 ? '' : `#s${shard}`);

export function eventPartition(accountId: string, domain: string, day: string, shard = 0): string {
  return `ACCT#${accountId}#EVT#${domain}#${day}${shardSuffix(shard)}`;
}

/** The shard of an event among `shards`: FNV-1a of its id, so every writer agrees. */
export function eventShard(id: string, shards: number): number {
  if (shards <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** The shards a reader queries: 0 to EVENT_SHARDS - 1 (shard 0 is the unsharded partition). */
export function eventShards(): number[] {
  return Array.from({ length: env().EVENT_SHARDS }, (_, k) => k);
}

/**
 * Pages of several shards (or accounts) merged by sort key (`<ms>#<id>`, one order across them):
 * the first `limit` of the union, in reading order. Each page must hold its own first `limit` in
 * range.
 */
export function mergeShards<T extends { sk: string }>(pages: T[][], ascending: boolean, limit: number): T[] {
  if (pages.length === 1) return pages[0]!.slice(0, limit);
  return pages
    .flat()
    .sort((a, b) => (a.sk === b.sk ? 0 : (a.sk < b.sk) === ascending ? -1 : 1))
    .slice(0, limit);
}

/** Sort key: milliseconds (13 digits until 2286) then the id, so equal instants keep a total order. */
export function eventSortKey(ms: number, id: string): string {
  return `${String(Math.floor(ms)).padStart(13, '0')}#${id}`;
}

export function hourOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 13).replace(/[-T]/g, '');
}

/** The account-wide index partition of one UTC hour (yyyymmddhh). */
export function accountLogPartition(accountId: string, hour: string, shard = 0): string {
  return `ACCT#${accountId}#LOG#${hour}${shardSuffix(shard)}`;
}

export function newEvent(name: EventName, fields: Record<string, unknown>, at = Date.now()): EventData {
  return { event: name, id: eventId(), timestamp: at / 1000, 'log-level': name === 'failed' ? 'error' : 'info', ...fields };
}

export async function recordEvent(accountId: string, domain: string, data: EventData): Promise<void> {
  await recordEvents(accountId, domain, [data]);
}

/** Records several events of one domain in as few writes as the table allows (25 a call). */
export async function recordEvents(accountId: string, domain: string, events: EventData[]): Promise<void> {
  await putItems(eventWrites(accountId, domain, events));
}

/** The items recordEvents writes, for a caller that writes them in its own batch. */
export function eventWrites(accountId: string, domain: string, events: EventData[]): ItemWrite[] {
  return events.map((data) => eventWrite(accountId, domain, data));
}

function eventWrite(accountId: string, domain: string, data: EventData): { key: Key & IndexKey; item: EventItem } {
  const ms = Math.round(data.timestamp * 1000);
  const sk = eventSortKey(ms, data.id);
  const shard = eventShard(data.id, env().EVENT_SHARDS);
  return {
    key: { pk: eventPartition(accountId, domain, dayOf(ms), shard), sk, gsi1pk: accountLogPartition(accountId, hourOf(ms), shard), gsi1sk: sk },
    item: { kind: EVENT_ITEM_KIND, accountId, domain, data, ttl: Math.ceil(ms / 1000) + env().EVENT_TTL_DAYS * 86_400 },
  };
}

export interface EventRange {
  /** Inclusive bounds in milliseconds. */
  from: number;
  to: number;
  ascending: boolean;
  /** Exclusive position to resume after (an sk), in the reading direction. */
  after?: string;
  limit: number;
  keep?: (data: EventData) => boolean;
}

/**
 * Up to `limit` events in the range, in order, walking one day partition at a time: each of the
 * day's shards is asked for the page's rest at once, and their answers merged by sort key.
 */
export async function readEvents(accountId: string, domain: string, range: EventRange, now = Date.now()): Promise<Array<{ sk: string; data: EventData }>> {
  const found: Array<{ sk: string; data: EventData }> = [];
  // Only days within the retention period (and not past tomorrow) can hold a live event: reading
  // just those bounds the work of any range, even `begin` in 1970 or a forged page token's.
  const from = Math.max(range.from, now - (env().EVENT_TTL_DAYS + 1) * DAY_MS);
  const to = Math.min(range.to, now + DAY_MS);
  if (!(from <= to)) return found;
  const first = Math.floor(from / DAY_MS);
  const last = Math.floor(to / DAY_MS);
  const days = [];
  for (let d = first; d <= last; d++) days.push(dayOf(d * DAY_MS));
  if (!range.ascending) days.reverse();
  const low = eventSortKey(from, '');
  const high = eventSortKey(to, '\uffff');
  const afterDay = range.after ? dayOf(Number(range.after.slice(0, 13))) : undefined;
  const shards = eventShards();
  for (const day of days) {
    // Days before (or, descending, after) the resume position hold nothing left to read.
    if (afterDay && (range.ascending ? day < afterDay : day > afterDay)) continue;
    const need = range.limit - found.length;
    const pages = await Promise.all(
      shards.map((shard) =>
        queryPage<{ data: EventData; ttl: number; sk: string }>(eventPartition(accountId, domain, day, shard), {
          prefix: '',
          ascending: range.ascending,
          after: range.ascending ? maxKey(low, range.after) : low,
          before: range.ascending ? high : minKey(high, range.after),
          limit: need,
          keep: (item) => isLive(item as { ttl?: number }, now) && (!range.keep || range.keep(item['data'] as EventData)),
          withSortKey: true,
        }),
      ),
    );
    for (const item of mergeShards(pages, range.ascending, need)) found.push({ sk: item.sk, data: item.data });
    if (found.length >= range.limit) break;
  }
  return found;
}

/** The later (or earlier) of a range's end and a resume position, if there is one. */
export const maxKey = (a: string, b: string | undefined) => (b !== undefined && b > a ? b : a);
export const minKey = (a: string, b: string | undefined) => (b !== undefined && b < a ? b : a);
