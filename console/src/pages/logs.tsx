import { useEffect, useState } from 'preact/hooks';
import { credentials, useAppState } from '../session';
import { loadStoredMessage } from '../stored-message';
import { DomainOptions, listDomains } from '../ui/domain-picker';
import { errorText, useLoad } from '../ui/load';
import { MessageView, type MessageParts } from '../ui/message-view';
import { ErrorText, fieldsOf, formatDate, Head, Json, Loading, Options, Page } from '../ui/widgets';
import { aroundEvent, EVENT_TYPES, fetchLogs, logsQuery, PAGE_SIZE, logsOpening, type Filters, type LogItem } from './logs.load';

function summary(item: LogItem): string {
  return item.message?.headers?.subject ?? '';
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
  // Where "the last day" ends: when the page opened (the loader's call), then when filters are applied.
  const [now, setNow] = useState(logsOpening.take);
  const page = useLoad((signal) => fetchLogs(logsQuery(filters, token, PAGE_SIZE, 'timestamp:desc', now), signal), [filters, token, region, now]);
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
          setNow(new Date());
          setFilters({ event: f.event || undefined, domain: f.domain || undefined, recipient: f.recipient || undefined, tag: f.tag || undefined, from: f.from || undefined, to: f.to || undefined });
        }}
      >
        <div class="field">
          <label for="f-event">Event type</label>
          <select id="f-event" name="event">
            <option value="">Any</option>
            <Options values={EVENT_TYPES} />
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
