import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { can, credentials, currentActing, useAppState } from '../session';
import { FieldError, invalidProps, useFieldAction } from '../ui/field-errors';
import { useAction, useLoad } from '../ui/load';
import { fetchAccountSettings, fetchAllowlist, fetchAuthorizedRecipients, fetchUsers, OWN_LIMIT_PATH } from './account.load';
import { countOf, ErrorText, fieldsOf, Head, Loading, Notice, Page } from '../ui/widgets';
import { MonthlyLimitSection, type LimitTarget } from './monthly-limit';

interface User {
  id: string;
  name: string;
  email: string;
  role: string;
  activated: boolean;
  is_disabled: boolean;
  is_master: boolean;
}

/** What GET /v5/accounts reads back: the settings PUT /v5/accounts and PUT /v5/accounts/features set. */
interface AccountSettings {
  id: string;
  name: string;
  inactive_session_timeout?: number;
  absolute_session_timeout?: number;
  logout_redirect_url?: string;
  features: { webhooks_redact_pii: { enabled: boolean } };
}

const OWN_LIMIT: LimitTarget = { id: 'limit', credentials, path: OWN_LIMIT_PATH, resumeAs: credentials };

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
            <caption class="muted">{countOf(users.data.total, 'user')}</caption>
            <Head columns={['Name', 'Email', 'Role', 'State']} />
            <tbody>
              {users.data.users.map((u) => (
                <tr key={u.id}>
                  <td class="break">
                    {u.name}
                    {u.is_master ? ' (owner)' : ''}
                  </td>
                  <td class="break">{u.email || <span class="muted">none</span>}</td>
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
  const { region } = useAppState();
  const settings = useLoad((signal) => fetchAccountSettings<{ account: AccountSettings }>(signal).then((r) => r.account), [region]);
  const save = useFieldAction((m) => /'(name|inactive_session_timeout|absolute_session_timeout|logout_redirect_url)'/.exec(m)?.[1]);
  const features = useAction();
  const [saved, setSaved] = useState<string>();
  const current = settings.data;
  const admin = can('admin');
  const field = (name: keyof AccountSettings, label: string, extra: Record<string, unknown> = {}) => (
    <div class="field">
      <label for={`acct-${name}`}>{label}</label>
      <input id={`acct-${name}`} name={name} autocomplete="off" readOnly={!admin} defaultValue={current?.[name] === undefined ? '' : String(current[name])} {...extra} {...invalidProps(save.error, name, `acct-${name}`)} />
      <FieldError error={save.error} field={name} id={`acct-${name}`} />
    </div>
  );
  const redacting = current?.features.webhooks_redact_pii.enabled;
  return (
    <section aria-labelledby="settings-h" class="panel">
      <h2 id="settings-h">Account settings</h2>
      <p class="muted">The forms start from the account's current settings. A session setting left empty is not changed.</p>
      {saved ? <Notice>{saved}</Notice> : null}
      <ErrorText error={settings.error} />
      {settings.loading && !current ? <Loading what="the settings" /> : null}
      {current ? (
        // Keyed on what was read, so the fields start again from the saved values after a save.
        <form
          key={JSON.stringify(current)}
          class="stack"
          aria-label="Account settings"
          onSubmit={(e) => {
            e.preventDefault();
            const f = fieldsOf(e.currentTarget);
            const form = Object.fromEntries(Object.entries(f).filter(([, v]) => v.trim() !== ''));
            setSaved(undefined);
            void save.run(() => call<{ message: string }>(credentials(), 'PUT', '/v5/accounts', { form }).then((r) => (setSaved(r.message), settings.reload())));
          }}
        >
          {field('name', 'Account name')}
          {field('inactive_session_timeout', 'Inactive session timeout (seconds)', { type: 'number', min: 60, max: 86400 })}
          {field('absolute_session_timeout', 'Absolute session timeout (seconds)', { type: 'number', min: 60, max: 86400 })}
          {field('logout_redirect_url', 'Logout redirect URL', { type: 'url' })}
          {admin ? (
            <div class="actions">
              <button type="submit" class="primary" disabled={save.busy}>
                Save settings
              </button>
            </div>
          ) : null}
          {save.error?.field === 'form' ? <ErrorText error={save.error.message} /> : null}
        </form>
      ) : null}
      <h3>Webhook privacy</h3>
      {current ? (
        <p>
          Webhooks {redacting ? <span class="badge ok">redact personal data</span> : <span class="badge">carry personal data</span>}
        </p>
      ) : null}
      {admin && current ? (
        <div class="actions">
          <button
            type="button"
            disabled={features.busy}
            onClick={() =>
              void features
                .run(() => call(credentials(), 'PUT', '/v5/accounts/features', { form: { webhooks_redact_pii: JSON.stringify({ enabled: !redacting }) } }))
                .then((r) => r && (setSaved(redacting ? 'Webhooks now carry personal data.' : 'Webhooks now redact personal data.'), settings.reload()))
            }
          >
            {redacting ? 'Stop redacting personal data' : 'Redact personal data in webhooks'}
          </button>
        </div>
      ) : null}
      <ErrorText error={features.error} />
    </section>
  );
}

export default function Account() {
  const acting = currentActing();
  return (
    <Page title="Account settings">
      {acting ? <Notice>These are the settings of subaccount {acting.name}.</Notice> : null}
      <MonthlyLimitSection target={OWN_LIMIT} />
      <AllowlistSection />
      <UsersSection />
      <SandboxSection />
      <SettingsSection />
    </Page>
  );
}
