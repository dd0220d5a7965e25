import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { credentials, useAppState } from '../session';
import { loadStoredMessage } from '../stored-message';
import { DomainOptions, listDomains } from '../ui/domain-picker';
import { errorText, useLoad } from '../ui/load';
import { MessageView, type MessageParts } from '../ui/message-view';
import { ErrorText, fieldsOf, formatDate, Json, Loading, Page, Head } from '../ui/widgets';

export const EVENT_TYPES = ['accepted', 'delivered', 'failed', 'opened', 'clicked', 'unsubscribed', 'complained', 'stored', 'rejected'] as const;
const PAGE_SIZE = 25;

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

interface LogsReply {
  items: LogItem[];
  pagination: { next?: string; previous?: string; first?: string };
}

interface Filters {
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

export function logsQuery(filters: Filters, token?: string, limit = PAGE_SIZE, sort = 'timestamp:desc') {
  const and: Predicate[] = [];
  const is = (attribute: string, value: string | undefined, comparator = '=') => value && and.push({ attribute, comparator, values: [{ value }] });
  is('domain', filters.domain);
  is('recipient', filters.recipient?.trim());
  is('tag', filters.tag?.trim());
  const end = filters.to ? new Date(filters.to) : new Date();
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

function summary(item: LogItem): string {
  return item.message?.headers?.subject ?? '';
}

/** The window a message's events fall in: from an hour before this one to three days after (or now). */
export function aroundEvent(item: { '@timestamp': string }): Filters {
  const at = Date.parse(item['@timestamp']);
  return { from: new Date(at - 3_600_000).toISOString(), to: new Date(Math.min(Date.now(), at + 3 * 86_400_000)).toISOString() };
}

/** The message's other events, oldest first: what happened to it, step by step. */
function Timeline({ item }: { item: LogItem }) {
  const messageId = item.message?.headers?.['message-id'];
  const events = useLoad(
    (signal) => (messageId ? fetchLogs({ ...logsQuery(aroundEvent(item), undefined, 100, 'timestamp:asc'), filter: { AND: [{ attribute: 'message_id', comparator: '=', values: [{ value: messageId }] }] } }, signal) : Promise.resolve(undefined)),
    [messageId],
  );
  if (!messageId) return null;
  return (
    <section aria-labelledby="timeline-h">
      <h3 id="timeline-h">Timeline</h3>
      <ErrorText error={events.error} />
      <ol class="timeline">
        {events.data?.items.map((e) => (
          <li key={e.id}>
            <time dateTime={e['@timestamp']}>{formatDate(e['@timestamp'])}</time> · <strong>{e.event}</strong> {e.recipient ? `· ${e.recipient}` : ''}
            {e['delivery-status']?.message ? ` · ${e['delivery-status'].message}` : ''}
          </li>
        ))}
      </ol>
    </section>
  );
}

function EventDetails({ item, onClose }: { item: LogItem; onClose: () => void }) {
  const [message, setMessage] = useState<MessageParts>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  useEffect(() => {
    setMessage(undefined);
    setError(undefined);
  }, [item.id]);
  const key = item.storage?.key;
  return (
    <section class="panel" aria-labelledby="details-h">
      <div class="page-head">
        <h2 id="details-h">Event details</h2>
        <div class="actions">
          {key ? (
            <button
              type="button"
              class="primary"
              disabled={loading}
              onClick={() => {
                setLoading(true);
                loadStoredMessage(credentials(), item.domain.name, key).then(
                  (m) => (setMessage(m), setLoading(false)),
                  (e: unknown) => (setError(errorText(e)), setLoading(false)),
                );
              }}
            >
              View message
            </button>
          ) : null}
          <button type="button" onClick={onClose}>
            Close details
          </button>
        </div>
      </div>
      <ErrorText error={error} />
      {message ? <MessageView message={message} /> : null}
      <div class="split">
        <div>
          <h3>Event JSON</h3>
          <Json value={item} label="Event JSON" />
        </div>
        <Timeline item={item} />
      </div>
    </section>
  );
}

export default function Logs() {
  const { region } = useAppState();
  const [filters, setFilters] = useState<Filters>({});
  const [token, setToken] = useState<string>();
  const [selected, setSelected] = useState<LogItem>();
  const page = useLoad((signal) => fetchLogs(logsQuery(filters, token), signal), [filters, token, region]);
  // The domain filter's choices are asked for once the first page has come: the events are what the
  // page is opened for, and the API answers them sooner without a second request beside them.
  const settled = Boolean(page.data || page.error);
  const domains = useLoad((signal) => (settled ? listDomains(signal) : Promise.resolve(undefined)), [region, settled]);
  return (
    <Page title="Logs">
      <form
        class="panel row"
        aria-label="Filter events"
        onSubmit={(e) => {
          e.preventDefault();
          const f = fieldsOf(e.currentTarget);
          setToken(undefined);
          setSelected(undefined);
          setFilters({ event: f.event || undefined, domain: f.domain || undefined, recipient: f.recipient || undefined, tag: f.tag || undefined, from: f.from || undefined, to: f.to || undefined });
        }}
      >
        <div class="field">
          <label for="f-event">Event type</label>
          <select id="f-event" name="event">
            <option value="">Any</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-domain">Domain</label>
          <select id="f-domain" name="domain">
            <option value="">All domains</option>
            <DomainOptions domains={domains.data} />
          </select>
        </div>
        <div class="field grow">
          <label for="f-recipient">Recipient</label>
          <input id="f-recipient" name="recipient" type="search" autocomplete="off" />
        </div>
        <div class="field">
          <label for="f-tag">Tag</label>
          <input id="f-tag" name="tag" type="search" autocomplete="off" />
        </div>
        <div class="field">
          <label for="f-from">From date</label>
          <input id="f-from" name="from" type="datetime-local" />
        </div>
        <div class="field">
          <label for="f-to">To date</label>
          <input id="f-to" name="to" type="datetime-local" />
        </div>
        <button type="submit" class="primary">
          Apply filters
        </button>
      </form>
      {selected ? <EventDetails item={selected} onClose={() => setSelected(undefined)} /> : null}
      <ErrorText error={page.error} />
      {page.loading && !page.data ? <Loading what="events" /> : null}
      {page.data ? (
        <>
          <div class="table-wrap" tabIndex={0}>
            <table aria-busy={page.loading}>
              <caption class="muted">{filters.from ? 'Events, newest first' : 'Events of the last 24 hours, newest first (give dates for older ones)'}</caption>
              <Head columns={['Time', 'Event', 'Recipient', 'Subject', 'Domain', 'Details']} />
              <tbody>
                {page.data.items.map((item) => (
                  <tr key={item.id} class={selected?.id === item.id ? 'selected' : ''}>
                    <td>
                      <time dateTime={item['@timestamp']}>{formatDate(item['@timestamp'])}</time>
                    </td>
                    <td>
                      {item.event}
                      {item.severity ? ` (${item.severity})` : ''}
                    </td>
                    <td class="break">{item.recipient ?? ''}</td>
                    <td class="break">{summary(item)}</td>
                    <td class="break">{item.domain.name}</td>
                    <td>
                      <button type="button" class="small" aria-label={`Details of ${item.event} event for ${item.recipient ?? 'message'}`} onClick={() => setSelected(item)}>
                        Details
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {!page.data.items.length ? <p class="muted">No events match.</p> : null}
          </div>
          <div class="pager">
            <button type="button" disabled={!token} onClick={() => setToken(undefined)}>
              Newest
            </button>
            <button type="button" disabled={!token || !page.data.items.length} onClick={() => setToken(page.data!.pagination.previous)}>
              Newer
            </button>
            <button type="button" disabled={page.data.items.length < PAGE_SIZE} onClick={() => setToken(page.data!.pagination.next)}>
              Older
            </button>
          </div>
        </>
      ) : null}
    </Page>
  );
}
