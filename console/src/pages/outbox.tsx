import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call, download, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { errorText, useAction } from '../ui/load';
import { fetchOutbox, OUTBOX } from './outbox.load';
import { MessageView, type MessageParts } from '../ui/message-view';
import { ConfirmButton, ErrorText, formatDate, Json, Page, Head } from '../ui/widgets';
import { aroundEvent, fetchLogs, logsQuery, type LogItem } from './logs.load';

/** Local mode's outbox (lib/local/outbox-api.ts): what the SES stand-in was handed. */
/** How often the page asks for mail that arrived since it last looked. */
const POLL_MS = 2000;

interface Entry {
  id: string;
  seq: number;
  timestamp: string;
  status: string;
  recipients: Array<{ address: string; outcome: string }>;
  from: string;
  to: string;
  subject: string;
  messageId: string;
  size: number;
  storageKey?: string;
  reason?: string;
}

interface Detail extends Entry {
  headers: Array<[string, string]>;
  text: string | null;
  html: string | null;
  attachments: Array<{ index: number; filename: string | null; contentType: string; size: number }>;
}

interface ListReply {
  messages: Entry[];
  total: number;
}

function toParts(detail: Detail): MessageParts {
  return {
    subject: detail.subject,
    from: detail.from,
    to: detail.recipients.map((r) => r.address).join(', '),
    html: detail.html ?? undefined,
    text: detail.text ?? undefined,
    headers: detail.headers,
    attachments: detail.attachments.map((a) => ({
      name: a.filename ?? `attachment-${a.index + 1}`,
      contentType: a.contentType,
      size: a.size,
      download: () => download(credentials(), OUTBOX + p`/${detail.id}/attachments/${a.index}`, { accept: '*/*' }),
    })),
    raw: async () => (await download(credentials(), OUTBOX + p`/${detail.id}/raw`, { accept: 'message/rfc822' })).text(),
  };
}

/** The message's events from the API (the logs, by its Message-Id). */
function ApiEvents({ messageId, timestamp }: { messageId: string; timestamp: string }) {
  const [events, setEvents] = useState<LogItem[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!messageId) return;
    const controller = new AbortController();
    fetchLogs({ ...logsQuery(aroundEvent({ '@timestamp': timestamp }), undefined, 100, 'timestamp:asc'), filter: { AND: [{ attribute: 'message_id', comparator: '=', values: [{ value: messageId }] }] } }, controller.signal).then(
      (reply) => setEvents(reply.items),
      (e: unknown) => !controller.signal.aborted && setError(errorText(e)),
    );
    return () => controller.abort();
  }, [messageId, timestamp]);
  return (
    <section aria-labelledby="api-events-h">
      <h3 id="api-events-h">Events from the API</h3>
      <ErrorText error={error} />
      {events ? (
        events.length ? (
          <ol class="timeline">
            {events.map((e) => (
              <li key={e.id}>
                <time dateTime={e['@timestamp']}>{formatDate(e['@timestamp'])}</time> · <strong>{e.event}</strong> · {e.recipient ?? ''}
              </li>
            ))}
          </ol>
        ) : (
          <p class="muted">No events for this message.</p>
        )
      ) : null}
    </section>
  );
}

function OutboxMessage({ id, onClose }: { id: string; onClose: () => void }) {
  const [detail, setDetail] = useState<Detail>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    const controller = new AbortController();
    setDetail(undefined);
    call<Detail>(credentials(), 'GET', OUTBOX + p`/${id}`, { signal: controller.signal }).then(setDetail, (e: unknown) => !controller.signal.aborted && setError(errorText(e)));
    return () => controller.abort();
  }, [id]);
  return (
    <section class="panel" aria-labelledby="outbox-message-h">
      <div class="page-head">
        <h2 id="outbox-message-h">Message</h2>
        <div class="actions">
          <button type="button" onClick={onClose}>
            Close message
          </button>
        </div>
      </div>
      <ErrorText error={error} />
      {detail ? (
        <>
          <p>
            {detail.status}
            {detail.reason ? `: ${detail.reason}` : ''} · {formatDate(detail.timestamp)} · {detail.recipients.map((r) => `${r.address} (${r.outcome})`).join(', ')}
          </p>
          <MessageView message={toParts(detail)} />
          <div class="split">
            <ApiEvents messageId={detail.messageId} timestamp={detail.timestamp} />
            <div>
              <h3>Outbox entry</h3>
              <Json value={{ id: detail.id, status: detail.status, recipients: detail.recipients, messageId: detail.messageId, storageKey: detail.storageKey, size: detail.size }} label="Outbox entry JSON" />
            </div>
          </div>
        </>
      ) : null}
    </section>
  );
}

export default function Outbox() {
  const { region } = useAppState();
  const [search, setSearch] = useState('');
  const [entries, setEntries] = useState<Entry[]>([]);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string>();
  const [selected, setSelected] = useState<string>();
  const [loaded, setLoaded] = useState(false);
  const clear = useAction();
  const newest = useRef(0);

  // The first page (asked for as the page renders, as useLoad does), then every POLL_MS what
  // arrived since: the list updates as mail is sent.
  useLayoutEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    newest.current = 0;
    setEntries([]);
    setLoaded(false);
    const look = async () => {
      try {
        const first = newest.current === 0;
        const reply = await fetchOutbox<ListReply>({ search: search || undefined, since: first ? undefined : newest.current });
        if (stopped) return;
        if (reply.messages.length) {
          newest.current = Math.max(newest.current, ...reply.messages.map((m) => m.seq));
          setEntries((current) => (first ? reply.messages : [...reply.messages, ...current]));
        }
        if (first) setTotal(reply.total);
        else setTotal((t) => t + reply.messages.length);
        setError(undefined);
        setLoaded(true);
      } catch (e) {
        if (!stopped) setError(errorText(e));
      }
      if (!stopped) timer = setTimeout(() => void look(), POLL_MS);
    };
    void look();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [search, region]);

  const older = async () => {
    const oldest = entries.at(-1)?.seq;
    const reply = await fetchOutbox<ListReply>({ search: search || undefined, before: oldest });
    setEntries((current) => [...current, ...reply.messages]);
  };

  return (
    <Page
      title="Outbox"
      actions={
        can('write') ? (
          <ConfirmButton
            label="Clear"
            question="Forget every message in this region's outbox for your account? Their .eml files are deleted."
            confirmLabel="Clear outbox"
            onConfirm={() =>
              void clear.run(async () => {
                await call(credentials(), 'DELETE', OUTBOX);
                setSelected(undefined);
                newest.current = 0;
                setEntries([]);
                setTotal(0);
              })
            }
          />
        ) : null
      }
    >
      <p class="muted">
        Local mode only: every message the SES stand-in was handed, newest first, updated as mail arrives. The same list is JSON at <code>{OUTBOX}</code> (sign in with an API key, as with the API).
      </p>
      <form
        class="panel row"
        role="search"
        aria-label="Search the outbox"
        onSubmit={(e) => {
          e.preventDefault();
          setSelected(undefined);
          setSearch(((e.currentTarget.elements.namedItem('search') as HTMLInputElement).value ?? '').trim());
        }}
      >
        <div class="field grow">
          <label for="outbox-search">Search</label>
          <input id="outbox-search" name="search" type="search" placeholder="Sender, recipient or subject" />
        </div>
        <button type="submit">Search</button>
      </form>
      <ErrorText error={error ?? clear.error} />
      {selected ? <OutboxMessage id={selected} onClose={() => setSelected(undefined)} /> : null}
      <div class="table-wrap" tabIndex={0}>
        <table aria-live="polite">
          <caption class="muted">{loaded ? `${total} ${total === 1 ? 'message' : 'messages'}` : 'Loading…'}</caption>
          <Head columns={['Time', 'Status', 'From', 'To', 'Subject', 'Open']} />
          <tbody>
            {entries.map((m) => (
              <tr key={m.id} class={m.id === selected ? 'selected' : ''}>
                <td>
                  <time dateTime={m.timestamp}>{formatDate(m.timestamp)}</time>
                </td>
                <td>{m.status}</td>
                <td class="break">{m.from}</td>
                <td class="break">{m.recipients.map((r) => r.address).join(', ')}</td>
                <td class="break">{m.subject}</td>
                <td>
                  <button type="button" class="small" aria-label={`Open message ${m.subject || m.id}`} onClick={() => setSelected(m.id)}>
                    Open
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {loaded && !entries.length ? <p class="muted">No messages yet.</p> : null}
      </div>
      {entries.length < total ? (
        <div class="pager">
          <button type="button" onClick={() => void older().catch((e: unknown) => setError(errorText(e)))}>
            Older messages
          </button>
        </div>
      ) : null}
    </Page>
  );
}
