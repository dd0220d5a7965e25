import { putItem, queryPage, type Key } from '../../data/store';
import { boundsWithin } from '../../platform/http/paging';
import type { AlertEventType } from '../alerts/alert-event';
import type { SubjectKind } from './catalogue';
import { defineEntity } from '../../data/key-registry';

const blocklistEventKeys = defineEntity(
  'blocklist events',
  {
    blocklistEvent: {
      what: "a blocklist transition (listed, delisted) of one of the account's subjects",
      pk: 'ACCT#<account>#BLOCKLISTEVENTS',
      sk: '<time>#<kind>#<subject>#<list>',
      key: (accountId: string, event?: Pick<BlocklistEventItem, 'timestamp' | 'kind' | 'subject' | 'list'>): Key => ({ pk: `ACCT#${accountId}#BLOCKLISTEVENTS`, sk: event ? sortKeyOf(event) : '' }),
    },
  },
  [{ what: "an account's blocklist events, newest first (pages)", pk: 'ACCT#<account>#BLOCKLISTEVENTS' }],
);

/** A transition of one subject on one list, as the events routes list it. */
export interface BlocklistEventItem {
  accountId: string;
  kind: SubjectKind;
  subject: string;
  ipPool?: string;
  event: AlertEventType;
  list: string;
  listName: string;
  /** When the listing began: with the rest, which transition this is. */
  firstSeen: string;
  timestamp: string;
}

const sortKeyOf = (e: Pick<BlocklistEventItem, 'timestamp' | 'kind' | 'subject' | 'list'>) => `${e.timestamp}#${e.kind}#${e.subject}#${e.list}`;

/** Records a transition once (a retried check that already recorded it writes nothing). */
export async function recordEvent(event: BlocklistEventItem): Promise<void> {
  await putItem(blocklistEventKeys.blocklistEvent(event.accountId, event), event, { ifAbsent: true });
}

export interface EventQuery {
  kind: SubjectKind;
  /** ISO bounds, inclusive start and exclusive end. */
  from?: string;
  to?: string;
  subject?: string;
  list?: string;
  event?: string;
  limit: number;
  /** Pivot paging over the events' sort keys (time first). */
  ascending: boolean;
  after?: string;
  before?: string;
}

/**
 * One page of the account's events of a kind, filtered, each with its sort key (the page pivot).
 * The time range bounds the key range itself (keys start with the time), so a page costs its
 * own size; `after` being exclusive, a key `<from>#...` still counts from `from` on.
 */
export async function eventsPage(accountId: string, q: EventQuery): Promise<Array<BlocklistEventItem & { sk: string }>> {
  return queryPage<BlocklistEventItem & { sk: string }>(blocklistEventKeys.blocklistEvent(accountId).pk, {
    prefix: '',
    ascending: q.ascending,
    ...boundsWithin(q, q.from, q.to),
    limit: q.limit,
    withSortKey: true,
    keep: (item) =>
      item['kind'] === q.kind &&
      (q.subject === undefined || item['subject'] === q.subject) &&
      (q.list === undefined || item['list'] === q.list || item['listName'] === q.list) &&
      (q.event === undefined || item['event'] === q.event),
  });
}
