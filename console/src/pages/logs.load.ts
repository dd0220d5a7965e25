import { call } from '../api';
import { openingTime } from '../opening-time';
import { credentials } from '../session';

export const EVENT_TYPES = ['accepted', 'delivered', 'failed', 'opened', 'clicked', 'unsubscribed', 'complained', 'stored', 'rejected'] as const;
export const PAGE_SIZE = 25;

export interface LogItem {
  id: string;
  event: string;
  '@timestamp': string;
  recipient?: string;
  domain: { name: string };
  tags?: string[];
  severity?: string;
  reason?: string;
  message?: { headers?: { 'message-id'?: string; subject?: string; from?: string; to?: string } };
  storage?: { key?: string };
  'delivery-status'?: { message?: string; description?: string; code?: number };
}

export interface LogsReply {
  items: LogItem[];
  pagination: { next?: string; previous?: string; first?: string };
}

export interface Filters {
  event?: string;
  domain?: string;
  recipient?: string;
  tag?: string;
  from?: string;
  to?: string;
}

/** RFC 2822, as the logs API takes dates. */
function rfc2822(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000');
}

type Predicate = { attribute: string; comparator: string; values: Array<{ value: string }> };

export function logsQuery(filters: Filters, token?: string, limit = PAGE_SIZE, sort = 'timestamp:desc', now = new Date()) {
  const and: Predicate[] = [];
  const is = (attribute: string, value: string | undefined, comparator = '=') => value && and.push({ attribute, comparator, values: [{ value }] });
  is('domain', filters.domain);
  is('recipient', filters.recipient?.trim());
  is('tag', filters.tag?.trim());
  const end = filters.to ? new Date(filters.to) : now;
  // Without a start, the API's own default, the last day: a wider window costs the API a read of
  // every hour in it when events are few, so it is asked for only when the user gives dates.
  const start = filters.from ? new Date(filters.from) : new Date(end.getTime() - 86_400_000);
  return {
    start: rfc2822(start),
    end: rfc2822(end),
    ...(filters.event ? { events: [filters.event] } : {}),
    ...(and.length ? { filter: { AND: and } } : {}),
    pagination: { sort, limit, ...(token ? { token } : {}) },
  };
}

export function fetchLogs(body: unknown, signal?: AbortSignal) {
  return call<LogsReply>(credentials(), 'POST', '/v1/analytics/logs', { json: body, signal });
}

/** The window a message's events fall in: from an hour before this one to three days after (or now). */
export function aroundEvent(item: { '@timestamp': string }): Filters {
  const at = Date.parse(item['@timestamp']);
  return { from: new Date(at - 3_600_000).toISOString(), to: new Date(Math.min(Date.now(), at + 3 * 86_400_000)).toISOString() };
}

/** When the page's "last day" ends as it opens. */
export const logsOpening = openingTime();

/** What the Logs page asks for as it opens: the events of the last day. */
export function loadLogs(): void {
  void fetchLogs(logsQuery({}, undefined, PAGE_SIZE, 'timestamp:desc', logsOpening.start()));
}
