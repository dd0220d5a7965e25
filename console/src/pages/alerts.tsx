import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { useAction, useLoad } from '../ui/load';
import { alertEventName } from '../ui/alert-event-names';
import { pivotOf } from '../ui/paging';
import { fetchAlertEvents, fetchAlertHistory, fetchAlertSettings, HISTORY_LIMIT } from './alerts.load';
import { ConfirmButton, CopyButton, ErrorText, fieldsOf, formatDate, Head, Loading, Options, Page } from '../ui/widgets';
import { RefreshHead, SubmitOrCancel } from '../ui/form-parts';
import './optimize.css';

const CHANNELS = [
  ['email', 'Email'],
  ['webhook', 'Webhook'],
  ['slack', 'Slack'],
] as const;
type Channel = (typeof CHANNELS)[number][0];

interface EventSetting {
  id: string;
  event_type: string;
  channel: Channel;
  settings: {
    emails?: string[];
    url?: string;
    channel_ids?: string[];
    disabled_channel_ids?: Record<string, { disabled_at: string; reason: string }>;
  };
  disabled_at: string | null;
  disabled_reason?: string;
}

interface Settings {
  events: EventSetting[];
  slack: { team_id: string; team_name: string; scope: string };
  webhooks: { signing_key: string };
}

const split = (value: string) =>
  value
    .split(/[\s,]+/)
    .map((v) => v.trim())
    .filter(Boolean);

interface SlackChannel {
  id: string;
  name: string;
  is_archived: boolean;
}

/** A Slack channel by its name, asked of Slack (GET /v1/alerts/slack/channels/{id}); its id until then, or when Slack cannot say. */
function SlackChannelName({ id }: { id: string }) {
  const { region } = useAppState();
  const channel = useLoad((signal) => call<SlackChannel>(credentials(), 'GET', p`/v1/alerts/slack/channels/${id}`, { signal }), [region, id]);
  return <span title={id}>{channel.data ? `#${channel.data.name}` : id}</span>;
}

/** Where a setting delivers. */
function Target({ setting }: { setting: EventSetting }) {
  if (setting.channel === 'email') return <>{(setting.settings.emails ?? []).join(', ')}</>;
  if (setting.channel === 'webhook') return <>{setting.settings.url ?? ''}</>;
  return (
    <>
      {(setting.settings.channel_ids ?? []).map((id, i) => (
        <span key={id}>
          {i ? ', ' : ''}
          <SlackChannelName id={id} />
        </span>
      ))}
    </>
  );
}

/** The test send of a setting, to the same place it delivers. */
function testOf(setting: EventSetting): [string, unknown] {
  if (setting.channel === 'email') return ['/v1/alerts/email/test', { event_type: setting.event_type, emails: setting.settings.emails ?? [] }];
  if (setting.channel === 'webhook') return ['/v1/alerts/webhooks/test', { event_type: setting.event_type, url: setting.settings.url ?? '' }];
  return ['/v1/alerts/slack/test', { event_type: setting.event_type }];
}

function SettingCell({
  setting,
  onChange,
  onEdit,
  act,
  setDone,
}: {
  setting?: EventSetting;
  onChange: () => void;
  onEdit: (setting: EventSetting) => void;
  act: ReturnType<typeof useAction>;
  setDone: (text: string) => void;
}) {
  if (!setting) return <td class="muted">off</td>;
  const label = `${alertEventName(setting.event_type)} by ${setting.channel}`;
  const disabledChannels = Object.entries(setting.settings.disabled_channel_ids ?? {});
  return (
    <td class="break">
      <div>
        <Target setting={setting} />
      </div>
      {setting.disabled_at ? (
        <div>
          <span class="badge bad">disabled</span>{' '}
          <span class="muted">
            since {formatDate(setting.disabled_at)}
            {setting.disabled_reason ? `: ${setting.disabled_reason}` : ''}
          </span>
        </div>
      ) : (
        <span class="badge ok">on</span>
      )}
      {disabledChannels.map(([id, why]) => (
        <div key={id} class="muted">
          Channel <SlackChannelName id={id} /> disabled: {why.reason}
        </div>
      ))}
      {can('write') ? (
        <div class="actions">
          <button
            type="button"
            class="small"
            aria-label={`Send a test alert for ${label}`}
            disabled={act.busy}
            onClick={() => {
              const [path, body] = testOf(setting);
              void act.run(async () => {
                await call(credentials(), 'POST', path, { json: body });
                setDone(`A test alert for ${label} was sent.`);
              });
            }}
          >
            Test
          </button>
          <button type="button" class="small" aria-label={`Edit alert ${label}`} disabled={act.busy} onClick={() => onEdit(setting)}>
            Edit
          </button>
          <ConfirmButton
            class="small danger"
            label={`Delete alert ${label}`}
            question={`Stop alerting ${alertEventName(setting.event_type)} by ${setting.channel}?`}
            confirmLabel="Delete"
            onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', p`/v1/alerts/settings/events/${setting.id}`), onChange()))}
          />
        </div>
      ) : null}
    </td>
  );
}

interface ChannelPage {
  items: SlackChannel[];
  paging: { next: string };
}

/** Channels asked of Slack a page at a time. */
const CHANNEL_PAGE = 100;

/** Slack's cursor for the page after this one, or none past the end (the API's `next` then leads to page `end`). */
function nextCursor(page: ChannelPage): string | undefined {
  const cursor = new URL(page.paging.next).searchParams.get('page');
  return cursor && cursor !== 'end' && page.items.length ? cursor : undefined;
}

/** The workspace's channels as checkboxes, a page at a time; channels chosen before stay listed even when not on a page read. */
function SlackChannelPicker({ connected, chosen }: { connected: boolean; chosen: string[] }) {
  const { region } = useAppState();
  const first = useLoad(
    (signal) =>
      connected
        ? call<ChannelPage>(credentials(), 'GET', '/v1/alerts/slack/channels', {
            query: { limit: CHANNEL_PAGE },
            signal,
          })
        : Promise.resolve(undefined),
    [region, connected],
  );
  const [more, setMore] = useState<ChannelPage[]>([]);
  const act = useAction();
  if (!connected) return <p class="muted">Slack is not connected: connect it under Slack below, then pick its channels here.</p>;
  const pages = first.data ? [first.data, ...more] : [];
  const channels = pages.flatMap((page) => page.items);
  const cursor = pages.length ? nextCursor(pages[pages.length - 1]!) : undefined;
  const unlisted = chosen.filter((id) => !channels.some((c) => c.id === id));
  return (
    <fieldset class="checks grow">
      <legend>Slack channels</legend>
      <ErrorText error={first.error ?? act.error} />
      {first.loading && !first.data ? <Loading what="Slack channels" /> : null}
      {first.data && !channels.length ? <p class="muted">The workspace has no channel the bot can see.</p> : null}
      {channels.map((c) => (
        <label key={c.id} class="check">
          <input type="checkbox" name="channel_ids" value={c.id} defaultChecked={chosen.includes(c.id)} disabled={c.is_archived && !chosen.includes(c.id)} /> #{c.name}
          {c.is_archived ? ' (archived)' : ''}
        </label>
      ))}
      {unlisted.map((id) => (
        <label key={id} class="check">
          <input type="checkbox" name="channel_ids" value={id} defaultChecked /> {id}
        </label>
      ))}
      {cursor ? (
        <button
          type="button"
          class="small"
          disabled={act.busy}
          onClick={() =>
            void act.run(async () => {
              const page = await call<ChannelPage>(credentials(), 'GET', '/v1/alerts/slack/channels', { query: { limit: CHANNEL_PAGE, page: cursor } });
              setMore((pages) => [...pages, page]);
            })
          }
        >
          More channels
        </button>
      ) : null}
    </fieldset>
  );
}

/** Adds an alert, or (given `setting`) replaces one in place: PUT is a full replace. */
function SettingForm({ events, slackConnected, setting, onDone, onCancel }: { events: string[]; slackConnected: boolean; setting?: EventSetting; onDone: () => void; onCancel?: () => void }) {
  const act = useAction();
  const [channel, setChannel] = useState<Channel>(setting?.channel ?? 'email');
  const id = setting ? 'al-edit' : 'al';
  const label = setting ? `Edit alert ${alertEventName(setting.event_type)} by ${setting.channel}` : 'Add an alert';
  const targetLabel = channel === 'email' ? 'Email addresses (comma-separated)' : 'Webhook URL';
  const initial = setting?.channel !== channel ? '' : channel === 'email' ? (setting.settings.emails ?? []).join(', ') : (setting.settings.url ?? '');
  return (
    <form
      class="panel row"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const f = fieldsOf(form);
        const value = f['target'] ?? '';
        const channelIds = new FormData(form).getAll('channel_ids').map(String);
        const settings = channel === 'email' ? { emails: split(value) } : channel === 'webhook' ? { url: value.trim() } : { channel_ids: channelIds };
        const json = { event_type: f['event_type'], channel, settings };
        void act.run(async () => {
          if (setting) await call(credentials(), 'PUT', p`/v1/alerts/settings/events/${setting.id}`, { json });
          else
            await call(credentials(), 'POST', '/v1/alerts/settings/events', {
              json,
            });
          form.reset();
          setChannel('email');
          onDone();
        });
      }}
    >
      <div class="field">
        <label for={`${id}-event`}>Event</label>
        <select id={`${id}-event`} name="event_type" defaultValue={setting?.event_type}>
          <Options values={events} label={alertEventName} />
        </select>
      </div>
      <div class="field">
        <label for={`${id}-channel`}>Channel</label>
        <select id={`${id}-channel`} name="channel" value={channel} onChange={(e) => setChannel((e.target as HTMLSelectElement).value as Channel)}>
          {CHANNELS.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
      {channel === 'slack' ? (
        <SlackChannelPicker connected={slackConnected} chosen={setting?.channel === 'slack' ? (setting.settings.channel_ids ?? []) : []} />
      ) : (
        <div class="field grow">
          <label for={`${id}-target`}>{targetLabel}</label>
          <input key={`${id}-${channel}`} id={`${id}-target`} name="target" required autocomplete="off" type={channel === 'webhook' ? 'url' : 'text'} defaultValue={initial} />
        </div>
      )}
      <SubmitOrCancel label={setting ? 'Save alert' : 'Add alert'} busy={act.busy} disabled={channel === 'slack' && !slackConnected} onCancel={onCancel} />
      <ErrorText error={act.error} />
    </form>
  );
}

function SlackConnection({ slack, onChange }: { slack: Settings['slack']; onChange: () => void }) {
  const act = useAction();
  const connected = Boolean(slack.team_id || slack.team_name);
  return (
    <section class="panel" aria-labelledby="slack-h">
      <h2 id="slack-h">Slack</h2>
      {connected ? (
        <p>
          Connected to <strong class="break">{slack.team_name || slack.team_id}</strong>.{' '}
          {can('write') ? (
            <ConfirmButton
              class="small danger"
              label="Disconnect Slack"
              question="Forget the Slack connection and delete the Slack alerts?"
              confirmLabel="Disconnect"
              onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', '/v1/alerts/settings/slack'), onChange()))}
            />
          ) : null}
        </p>
      ) : (
        <p class="muted">Not connected.</p>
      )}
      {!connected && can('write') ? (
        <form
          class="row"
          aria-label="Connect Slack"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const token = fieldsOf(form)['token'] ?? '';
            void act.run(async () => {
              await call(credentials(), 'PUT', '/v1/alerts/settings/slack', {
                json: { token },
              });
              form.reset();
              onChange();
            });
          }}
        >
          <div class="field grow">
            <label for="slack-token">Slack bot token</label>
            <input id="slack-token" name="token" type="password" required autocomplete="off" spellcheck={false} />
          </div>
          <button type="submit">Connect Slack</button>
        </form>
      ) : null}
      <ErrorText error={act.error} />
    </section>
  );
}

interface Delivery {
  setting_id: string;
  channel: Channel;
  state: 'queued' | 'retrying' | 'delivered' | 'partial' | 'failed' | 'skipped';
  attempts: number;
  last_error?: string;
  next_attempt_at?: string;
  updated_at: string;
}
interface RaisedAlert {
  id: string;
  event: string;
  subject: string;
  list_name: string;
  message: string;
  timestamp: string;
  suppressed?: string;
  deliveries: Delivery[];
}

const STATE_BADGE: Record<Delivery['state'], string> = {
  delivered: 'ok',
  partial: 'wait',
  queued: 'wait',
  retrying: 'wait',
  failed: 'bad',
  skipped: 'wait',
};
const channelName = (channel: Channel) => CHANNELS.find(([value]) => value === channel)?.[1] ?? channel;

interface HistoryPage {
  items: RaisedAlert[];
  paging: { next: string; previous: string };
}

/**
 * The alerts raised, newest first, and where each delivery stands (GET /v1/alerts/history): the
 * latest page, then earlier ones through the API's paging links; of every event or of one.
 */
function History({ events }: { events: string[] }) {
  const { region } = useAppState();
  const [event, setEvent] = useState('');
  /** The page shown: the latest (undefined), or the one a paging link's pivot points at. */
  const [pivot, setPivot] = useState<Record<string, string>>();
  const history = useLoad((signal) => fetchAlertHistory<HistoryPage>(signal, { pivot, event }), [region, pivot, event]);
  const alerts = history.data ? [...history.data.items].reverse() : undefined;
  // A short page read forwards is the newest; one read backwards, the oldest.
  const fullPage = (history.data?.items.length ?? 0) >= HISTORY_LIMIT;
  const laterExists = Boolean(pivot) && (pivot?.['page'] !== 'next' || fullPage);
  const earlierExists = fullPage || pivot?.['page'] === 'next';
  return (
    <section aria-labelledby="history-h">
      <RefreshHead id="history-h" title="Alert history" refreshLabel="Refresh history" onRefresh={history.reload} loading={history.loading} />
      <p class="muted">
        Every alert raised (blocklist and reputation changes) and, for each alert it went to, whether that channel delivered it. An alert raised while none of its event was on went to no one.
      </p>
      <div class="row">
        <div class="field">
          <label for="history-event">Show alerts of</label>
          <select
            id="history-event"
            value={event}
            onChange={(e) => {
              setEvent((e.target as HTMLSelectElement).value);
              setPivot(undefined);
            }}
          >
            <option value="">All events</option>
            <Options values={events} label={alertEventName} />
          </select>
        </div>
      </div>
      <ErrorText error={history.error} />
      {history.loading && !alerts ? <Loading what="the alert history" /> : null}
      {alerts ? (
        <div class="table-wrap" tabIndex={0}>
          <table aria-busy={history.loading}>
            <caption class="muted">{pivot ? `Alerts raised, newest first (${HISTORY_LIMIT} a page)` : `Alerts raised, newest first (the latest ${HISTORY_LIMIT})`}</caption>
            <Head columns={['Time', 'Event', 'IP, domain or account', 'List', 'Message', 'Deliveries']} />
            <tbody>
              {alerts.map((a) => (
                <tr key={a.id}>
                  <td>{formatDate(a.timestamp)}</td>
                  <td title={a.event}>{alertEventName(a.event)}</td>
                  <td class="break">{a.subject}</td>
                  <td>{a.list_name}</td>
                  <td class="break">{a.message}</td>
                  <td class="break">
                    {a.suppressed ? <span class="muted">Held back: {a.suppressed}</span> : null}
                    {!a.suppressed && !a.deliveries.length ? <span class="muted">no alert was on</span> : null}
                    <ul class="plain">
                      {a.deliveries.map((d) => (
                        <li key={d.setting_id}>
                          {channelName(d.channel)}: <span class={`badge ${STATE_BADGE[d.state]}`}>{d.state}</span>
                          {d.attempts > 1 ? ` after ${d.attempts} attempts` : ''}
                          {d.last_error ? <span class="muted"> ({d.last_error})</span> : null}
                          {d.next_attempt_at ? <span class="muted"> next attempt {formatDate(d.next_attempt_at)}</span> : null}
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {!alerts.length ? <p class="muted">{pivot ? 'No alert on this page.' : event ? `No ${alertEventName(event)} alert raised yet.` : 'No alert raised yet.'}</p> : null}
        </div>
      ) : null}
      {history.data ? (
        <div class="pager">
          <button type="button" disabled={!pivot} onClick={() => setPivot(undefined)}>
            Latest
          </button>
          <button type="button" disabled={!laterExists} onClick={() => setPivot(pivotOf(history.data!.paging.next, 'pivot'))}>
            Later
          </button>
          <button type="button" disabled={!earlierExists} onClick={() => setPivot(pivotOf(history.data!.paging.previous, 'pivot'))}>
            Earlier
          </button>
        </div>
      ) : null}
    </section>
  );
}

export default function Alerts() {
  const { region } = useAppState();
  const events = useLoad((signal) => fetchAlertEvents<{ events: string[] }>(signal), [region]);
  const settings = useLoad((signal) => fetchAlertSettings<Settings>(signal), [region]);
  const act = useAction();
  const [done, setDone] = useState<string>();
  const [editing, setEditing] = useState<EventSetting>();
  const s = settings.data;
  const slackConnected = Boolean(s && (s.slack.team_id || s.slack.team_name));
  return (
    <Page title="Alerts">
      <ErrorText error={events.error ?? settings.error} />
      {settings.loading && !s ? <Loading what="alert settings" /> : null}
      {s && events.data ? (
        <>
          <section aria-labelledby="settings-h">
            <h2 id="settings-h">Alerts per event and channel</h2>
            {can('write') ? <SettingForm events={events.data.events} slackConnected={slackConnected} onDone={settings.reload} /> : null}
            {editing ? (
              <SettingForm
                key={editing.id}
                events={events.data.events}
                slackConnected={slackConnected}
                setting={editing}
                onDone={() => (setEditing(undefined), settings.reload())}
                onCancel={() => setEditing(undefined)}
              />
            ) : null}
            {done ? (
              <p role="status" class="notice">
                {done}
              </p>
            ) : null}
            <ErrorText error={act.error} />
            <div class="table-wrap" tabIndex={0}>
              <table>
                <caption class="muted">Each event's alert on each channel</caption>
                <Head columns={['Event', ...CHANNELS.map(([, label]) => label)]} />
                <tbody>
                  {events.data.events.map((event) => (
                    <tr key={event}>
                      <th scope="row" title={event}>
                        {alertEventName(event)}
                      </th>
                      {CHANNELS.map(([channel]) => (
                        <SettingCell
                          key={channel}
                          setting={s.events.find((x) => x.event_type === event && x.channel === channel)}
                          onChange={settings.reload}
                          onEdit={setEditing}
                          act={act}
                          setDone={setDone}
                        />
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <section class="panel" aria-labelledby="key-h">
            <h2 id="key-h">Webhook signing key</h2>
            <p class="muted">Webhook alerts carry X-Sign: the hex HMAC-SHA256 of the body with this key (apart from the sending webhooks' key).</p>
            <p class="secret-line">
              <code>{s.webhooks.signing_key}</code> <CopyButton value={s.webhooks.signing_key} label="Copy the alerts signing key" />
              {can('write') ? (
                <ConfirmButton
                  class="small danger"
                  label="Rotate signing key"
                  question="Make a new signing key? The current one stops signing at once."
                  confirmLabel="Rotate"
                  onConfirm={() => void act.run(async () => (await call(credentials(), 'PUT', '/v1/alerts/settings/webhooks/signing_key'), settings.reload()))}
                />
              ) : null}
            </p>
          </section>
          <SlackConnection slack={s.slack} onChange={settings.reload} />
        </>
      ) : null}
      <History events={events.data?.events ?? []} />
    </Page>
  );
}
