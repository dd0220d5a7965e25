import { useState } from 'preact/hooks';
import { ApiError, call, p } from '../api';
import { can, credentials, currentActing, useAppState } from '../session';
import { FieldError, invalidProps, placeError, type PlacedError } from '../ui/field-errors';
import { useAction, useLoad } from '../ui/load';
import { fetchAllowlist, fetchAuthorizedRecipients, fetchMonthlyLimit, fetchUsers } from './account.load';
import { ErrorText, fieldsOf, Head, Loading, Notice, Page } from '../ui/widgets';

interface MonthlyLimit {
  limit: number;
  current: number;
  period: string;
  enabled?: boolean;
}

interface User {
  id: string;
  name: string;
  email: string;
  role: string;
  activated: boolean;
  is_disabled: boolean;
  is_master: boolean;
}

/** A form whose API error is shown beside the field it names (`limit`, `address`, `email`, …). */
function useFieldAction(place: (message: string) => string | undefined = () => undefined) {
  const [error, setError] = useState<PlacedError>();
  const [busy, setBusy] = useState(false);
  const run = (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    return work().then(
      () => (setBusy(false), true),
      (e: unknown) => (setBusy(false), setError(placeError(e, place)), false),
    );
  };
  return { error, busy, run };
}

function MonthlyLimitSection() {
  const { region } = useAppState();
  const limit = useLoad(
    (signal) =>
      fetchMonthlyLimit<MonthlyLimit>(signal).catch((error: unknown) => {
        // No limit set is the API's 404 ("No threshold for account"): a state, not a failure.
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }),
    [region],
  );
  const set = useFieldAction((m) => (/limit/i.test(m) ? 'limit' : undefined));
  const other = useAction();
  const data = limit.data;
  return (
    <section aria-labelledby="limit-h" class="panel">
      <h2 id="limit-h">Monthly sending limit</h2>
      <p class="muted">A hard cap on the messages the account accepts in a calendar month.</p>
      <ErrorText error={limit.error ?? other.error} />
      {limit.loading && !limit.data ? <Loading what="the limit" /> : null}
      {!limit.loading && !limit.error && !data ? <p>No monthly limit is set.</p> : null}
      {data ? (
        <div>
          <p>
            <strong>{data.current.toLocaleString('en-US')}</strong> of <strong>{data.limit.toLocaleString('en-US')}</strong> messages this month ({Math.round((data.current / data.limit) * 100)}%)
            {data.enabled === false ? <span class="badge bad"> limit reached: sending stopped</span> : null}
          </p>
          <progress class="meter" max={data.limit} value={Math.min(data.current, data.limit)} aria-label="Messages this month against the monthly limit" />
        </div>
      ) : null}
      {can('admin') ? (
        <form
          class="row"
          aria-label="Set monthly limit"
          onSubmit={(e) => {
            e.preventDefault();
            const value = fieldsOf(e.currentTarget).limit;
            void set.run(() => call(credentials(), 'PUT', '/v5/accounts/limit/custom/monthly', { query: { limit: value } })).then((ok) => ok && limit.reload());
          }}
        >
          <div class="field">
            <label for="limit-value">Monthly limit (messages)</label>
            <input id="limit-value" name="limit" type="number" min={1} required defaultValue={data ? String(data.limit) : ''} {...invalidProps(set.error, 'limit', 'limit-value')} />
            <FieldError error={set.error} field="limit" id="limit-value" />
          </div>
          <button type="submit" class="primary" disabled={set.busy}>
            Set limit
          </button>
          {data ? (
            <>
              {data.enabled === false ? (
                <button type="button" onClick={() => void other.run(() => call(credentials(), 'PUT', '/v5/accounts/limit/custom/enable')).then(() => limit.reload())}>
                  Resume sending
                </button>
              ) : null}
              <button type="button" class="danger" onClick={() => void other.run(() => call(credentials(), 'DELETE', '/v5/accounts/limit/custom/monthly')).then(() => limit.reload())}>
                Remove limit
              </button>
            </>
          ) : null}
          {set.error?.field === 'form' ? <ErrorText error={set.error.message} /> : null}
        </form>
      ) : null}
    </section>
  );
}

function AllowlistSection() {
  const { region } = useAppState();
  const list = useLoad((signal) => fetchAllowlist<{ addresses: Array<{ ip_address: string; description: string }> }>(signal), [region]);
  const add = useFieldAction((m) => (/IP Address|CIDR|address/i.test(m) ? 'address' : undefined));
  const remove = useAction();
  return (
    <section aria-labelledby="allow-h" class="panel">
      <h2 id="allow-h">IP allowlist</h2>
      <p class="muted">When the list has entries, the account's API keys (other than the console's web keys) and SMTP logins work only from these addresses and ranges.</p>
      <ErrorText error={list.error ?? remove.error} />
      {list.data ? (
        list.data.addresses.length ? (
          <div class="table-wrap" tabIndex={0}>
            <table>
              <Head columns={['Address or range', 'Description', can('admin') && 'Actions']} />
              <tbody>
                {list.data.addresses.map((a) => (
                  <tr key={a.ip_address}>
                    <td class="mono">{a.ip_address}</td>
                    <td class="break">{a.description}</td>
                    {can('admin') ? (
                      <td>
                        <button type="button" class="small danger" aria-label={`Remove ${a.ip_address}`} onClick={() => void remove.run(() => call(credentials(), 'DELETE', '/v2/ip_whitelist', { query: { address: a.ip_address } })).then(() => list.reload())}>
                          Remove
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>The allowlist is empty: keys work from any address.</p>
        )
      ) : null}
      {can('admin') ? (
        <form
          class="row"
          aria-label="Add to the IP allowlist"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const f = fieldsOf(form);
            void add.run(() => call(credentials(), 'POST', '/v2/ip_whitelist', { form: { address: f.address, description: f.description } })).then((ok) => ok && (form.reset(), list.reload()));
          }}
        >
          <div class="field">
            <label for="allow-address">IP address or CIDR</label>
            <input id="allow-address" name="address" required autocomplete="off" {...invalidProps(add.error, 'address', 'allow-address')} />
            <FieldError error={add.error} field="address" id="allow-address" />
          </div>
          <div class="field grow">
            <label for="allow-description">Description</label>
            <input id="allow-description" name="description" autocomplete="off" />
          </div>
          <button type="submit" class="primary" disabled={add.busy}>
            Add address
          </button>
          {add.error?.field === 'form' ? <ErrorText error={add.error.message} /> : null}
        </form>
      ) : null}
    </section>
  );
}

function UsersSection() {
  const { region } = useAppState();
  const users = useLoad((signal) => fetchUsers<{ users: User[]; total: number }>(signal), [region]);
  return (
    <section aria-labelledby="users-h" class="panel">
      <h2 id="users-h">Users</h2>
      <ErrorText error={users.error} />
      {users.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <caption class="muted">{users.data.total} users</caption>
            <Head columns={['Name', 'Email', 'Role', 'State']} />
            <tbody>
              {users.data.users.map((u) => (
                <tr key={u.id}>
                  <td class="break">
                    {u.name}
                    {u.is_master ? ' (owner)' : ''}
                  </td>
                  <td class="break">{u.email}</td>
                  <td>{u.role}</td>
                  <td>{u.is_disabled ? <span class="badge bad">disabled</span> : u.activated ? <span class="badge ok">active</span> : <span class="badge wait">not activated</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function SandboxSection() {
  const { region } = useAppState();
  const list = useLoad((signal) => fetchAuthorizedRecipients<{ recipients: Array<{ email: string; activated: boolean }> }>(signal), [region]);
  const add = useFieldAction((m) => (/email|recipient/i.test(m) ? 'email' : undefined));
  const remove = useAction();
  return (
    <section aria-labelledby="sandbox-h" class="panel">
      <h2 id="sandbox-h">Sandbox authorized recipients</h2>
      <p class="muted">The sandbox domain delivers only to these addresses, each once it has confirmed from the email it was sent.</p>
      <ErrorText error={list.error ?? remove.error} />
      {list.data ? (
        list.data.recipients.length ? (
          <div class="table-wrap" tabIndex={0}>
            <table>
              <Head columns={['Address', 'State', can('admin') && 'Actions']} />
              <tbody>
                {list.data.recipients.map((r) => (
                  <tr key={r.email}>
                    <td class="break">{r.email}</td>
                    <td>{r.activated ? <span class="badge ok">activated</span> : <span class="badge wait">awaiting confirmation</span>}</td>
                    {can('admin') ? (
                      <td>
                        <button type="button" class="small danger" aria-label={`Remove ${r.email}`} onClick={() => void remove.run(() => call(credentials(), 'DELETE', p`/v5/sandbox/auth_recipients/${r.email}`)).then(() => list.reload())}>
                          Remove
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>No authorized recipients yet.</p>
        )
      ) : null}
      {can('admin') ? (
        <form
          class="row"
          aria-label="Add authorized recipient"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const email = fieldsOf(form).email;
            void add.run(() => call(credentials(), 'POST', '/v5/sandbox/auth_recipients', { query: { email } })).then((ok) => ok && (form.reset(), list.reload()));
          }}
        >
          <div class="field grow">
            <label for="sandbox-email">Recipient address</label>
            <input id="sandbox-email" name="email" type="email" required autocomplete="off" {...invalidProps(add.error, 'email', 'sandbox-email')} />
            <FieldError error={add.error} field="email" id="sandbox-email" />
          </div>
          <button type="submit" class="primary" disabled={add.busy}>
            Add recipient
          </button>
          {add.error?.field === 'form' ? <ErrorText error={add.error.message} /> : null}
        </form>
      ) : null}
    </section>
  );
}

function SettingsSection() {
  const save = useFieldAction((m) => /'(name|inactive_session_timeout|absolute_session_timeout|logout_redirect_url)'/.exec(m)?.[1]);
  const features = useAction();
  const [saved, setSaved] = useState<string>();
  if (!can('admin')) return null;
  const field = (name: string, label: string, extra: Record<string, unknown> = {}) => (
    <div class="field">
      <label for={`acct-${name}`}>{label}</label>
      <input id={`acct-${name}`} name={name} autocomplete="off" {...extra} {...invalidProps(save.error, name, `acct-${name}`)} />
      <FieldError error={save.error} field={name} id={`acct-${name}`} />
    </div>
  );
  return (
    <section aria-labelledby="settings-h" class="panel">
      <h2 id="settings-h">Account settings</h2>
      <p class="muted">Fields left empty are not changed (the API does not read them back).</p>
      {saved ? <Notice>{saved}</Notice> : null}
      <form
        class="stack"
        aria-label="Account settings"
        onSubmit={(e) => {
          e.preventDefault();
          const f = fieldsOf(e.currentTarget);
          const form = Object.fromEntries(Object.entries(f).filter(([, v]) => v.trim() !== ''));
          setSaved(undefined);
          void save.run(() => call<{ message: string }>(credentials(), 'PUT', '/v5/accounts', { form }).then((r) => setSaved(r.message)));
        }}
      >
        {field('name', 'Account name')}
        {field('inactive_session_timeout', 'Inactive session timeout (seconds)', { type: 'number', min: 60, max: 86400 })}
        {field('absolute_session_timeout', 'Absolute session timeout (seconds)', { type: 'number', min: 60, max: 86400 })}
        {field('logout_redirect_url', 'Logout redirect URL', { type: 'url' })}
        <div class="actions">
          <button type="submit" class="primary" disabled={save.busy}>
            Save settings
          </button>
        </div>
        {save.error?.field === 'form' ? <ErrorText error={save.error.message} /> : null}
      </form>
      <h3>Webhook privacy</h3>
      <div class="actions">
        {[true, false].map((enabled) => (
          <button
            key={String(enabled)}
            type="button"
            disabled={features.busy}
            onClick={() =>
              void features
                .run(() => call(credentials(), 'PUT', '/v5/accounts/features', { form: { webhooks_redact_pii: JSON.stringify({ enabled }) } }))
                .then((r) => r && setSaved(enabled ? 'Webhooks now redact personal data.' : 'Webhooks now carry personal data.'))
            }
          >
            {enabled ? 'Redact personal data in webhooks' : 'Stop redacting personal data'}
          </button>
        ))}
      </div>
      <ErrorText error={features.error} />
    </section>
  );
}

export default function Account() {
  const acting = currentActing();
  return (
    <Page title="Account settings">
      {acting ? <Notice>These are the settings of subaccount {acting.name}.</Notice> : null}
      <MonthlyLimitSection />
      <AllowlistSection />
      <UsersSection />
      <SandboxSection />
      <SettingsSection />
    </Page>
  );
}
