import { BlocklistEventsTable, loadBlocklistEvents } from './blocklist-events';
import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { useAction, useLoad } from '../ui/load';
import { fetchAlertEvents, fetchAlertSettings, HISTORY_DOMAIN_EVENTS } from './alerts.load';
import { ConfirmButton, CopyButton, ErrorText, fieldsOf, formatDate, Head, Loading, Page } from '../ui/widgets';
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
  settings: { emails?: string[]; url?: string; channel_ids?: string[]; disabled_channel_ids?: Record<string, { disabled_at: string; reason: string }> };
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

/** Where a setting delivers, as text. */
function target(setting: EventSetting): string {
  if (setting.channel === 'email') return (setting.settings.emails ?? []).join(', ');
  if (setting.channel === 'webhook') return setting.settings.url ?? '';
  return (setting.settings.channel_ids ?? []).join(', ');
}

/** The test send of a setting, to the same place it delivers. */
function testOf(setting: EventSetting): [string, unknown] {
  if (setting.channel === 'email') return ['/v1/alerts/email/test', { event_type: setting.event_type, emails: setting.settings.emails ?? [] }];
  if (setting.channel === 'webhook') return ['/v1/alerts/webhooks/test', { event_type: setting.event_type, url: setting.settings.url ?? '' }];
  return ['/v1/alerts/slack/test', { event_type: setting.event_type }];
}

function SettingCell({ setting, onChange, act, setDone }: { setting?: EventSetting; onChange: () => void; act: ReturnType<typeof useAction>; setDone: (text: string) => void }) {
  if (!setting) return <td class="muted">off</td>;
  const label = `${setting.event_type} by ${setting.channel}`;
  const disabledChannels = Object.entries(setting.settings.disabled_channel_ids ?? {});
  return (
    <td class="break">
      <div>{target(setting)}</div>
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
          Channel {id} disabled: {why.reason}
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
          <ConfirmButton
            class="small danger"
            label={`Delete alert ${label}`}
            question={`Stop alerting ${setting.event_type} by ${setting.channel}?`}
            confirmLabel="Delete"
            onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', p`/v1/alerts/settings/events/${setting.id}`), onChange()))}
          />
        </div>
      ) : null}
    </td>
  );
}

function AddSetting({ events, slackConnected, onDone }: { events: string[]; slackConnected: boolean; onDone: () => void }) {
  const act = useAction();
  const [channel, setChannel] = useState<Channel>('email');
  const targetLabel = channel === 'email' ? 'Email addresses (comma-separated)' : channel === 'webhook' ? 'Webhook URL' : 'Slack channel IDs (comma-separated)';
  return (
    <form
      class="panel row"
      aria-label="Add an alert"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const f = fieldsOf(form);
        const value = f['target'] ?? '';
        const settings = channel === 'email' ? { emails: split(value) } : channel === 'webhook' ? { url: value.trim() } : { channel_ids: split(value) };
        void act.run(async () => {
          await call(credentials(), 'POST', '/v1/alerts/settings/events', { json: { event_type: f['event_type'], channel, settings } });
          form.reset();
          setChannel('email');
          onDone();
        });
      }}
    >
      <div class="field">
        <label for="al-event">Event</label>
        <select id="al-event" name="event_type">
          {events.map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="al-channel">Channel</label>
        <select id="al-channel" name="channel" value={channel} onChange={(e) => setChannel((e.target as HTMLSelectElement).value as Channel)}>
          {CHANNELS.map(([value, label]) => (
            <option key={value} value={value} disabled={value === 'slack' && !slackConnected}>
              {label}
              {value === 'slack' && !slackConnected ? ' (connect Slack first)' : ''}
            </option>
          ))}
        </select>
      </div>
      <div class="field grow">
        <label for="al-target">{targetLabel}</label>
        <input id="al-target" name="target" required autocomplete="off" type={channel === 'webhook' ? 'url' : 'text'} />
      </div>
      <button type="submit" class="primary" disabled={act.busy}>
        Add alert
      </button>
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
              await call(credentials(), 'PUT', '/v1/alerts/settings/slack', { json: { token } });
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

/** The transitions that raise blocklist alerts, newest first: what alerts were about. */
function History() {
  const { region } = useAppState();
  const history = useLoad((signal) => loadBlocklistEvents(signal, HISTORY_DOMAIN_EVENTS),
    [region],
  );
  return (
    <section aria-labelledby="history-h">
      <h2 id="history-h">Alert history</h2>
      <p class="muted">The blocklist changes that raise alerts (each is alerted once, to every alert of its event that is on). The API keeps no list of reputation alerts or of each delivery: a disabled alert above says why its deliveries stopped.</p>
      <ErrorText error={history.error} />
      {history.data ? (
        <BlocklistEventsTable events={history.data} caption="Alerted events, newest first" empty="No alerted event yet." />
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
            {can('write') ? <AddSetting events={events.data.events} slackConnected={slackConnected} onDone={settings.reload} /> : null}
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
                      <th scope="row">{event}</th>
                      {CHANNELS.map(([channel]) => (
                        <SettingCell key={channel} setting={s.events.find((x) => x.event_type === event && x.channel === channel)} onChange={settings.reload} act={act} setDone={setDone} />
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
      <History />
    </Page>
  );
}
