import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { WEBHOOK_NAMES } from '../../../functions/webhooks/names';
import { call, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { useAction, useLoad } from '../ui/load';
import { ConfirmButton, CopyButton, ErrorText, fieldsOf, formatDate, Head, Loading, Options, Page, SecretOnce } from '../ui/widgets';
import { StateBadge } from './domains';

interface DnsRecord {
  record_type: string;
  name: string;
  value: string;
  priority?: string;
  valid: string;
}

interface DomainReply {
  domain: { name: string; state: string; type: string; created_at: string; smtp_login: string; dkim_host?: string; web_prefix: string; web_scheme: string };
  sending_dns_records: DnsRecord[] | null;
  receiving_dns_records: DnsRecord[] | null;
}

function ValidBadge({ valid }: { valid: string }) {
  const kind = valid === 'valid' ? 'ok' : valid === 'invalid' ? 'bad' : 'wait';
  return <span class={`badge ${kind}`}>{valid}</span>;
}

function RecordsTable({ title, records }: { title: string; records: DnsRecord[] }) {
  return (
    <>
      <h3>{title}</h3>
      <div class="table-wrap" tabIndex={0}>
        <table>
          <Head columns={['Type', 'Name', 'Value', 'Status']} />
          <tbody>
            {records.map((r, i) => (
              <tr key={`${r.record_type}-${r.name}-${i}`}>
                <td>{r.record_type}</td>
                <td class="break">
                  <code>{r.name}</code> <CopyButton value={r.name} label={`Copy name of ${r.record_type} record ${r.name}`} />
                </td>
                <td class="break">
                  <code>{r.priority ? `${r.priority} ${r.value}` : r.value}</code> <CopyButton value={r.value} label={`Copy value of ${r.record_type} record ${r.name}`} />
                </td>
                <td>
                  <ValidBadge valid={r.valid} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

interface Tracking {
  open: { active: boolean };
  click: { active: boolean | string };
  unsubscribe: { active: boolean };
}

function TrackingSettings({ domain }: { domain: string }) {
  const tracking = useLoad((signal) => call<{ tracking: Tracking }>(credentials(), 'GET', p`/v3/domains/${domain}/tracking`, { signal }), [domain]);
  const save = useAction();
  const kinds = [
    ['open', 'Open tracking'],
    ['click', 'Click tracking'],
    ['unsubscribe', 'Unsubscribe links'],
  ] as const;
  return (
    <section class="panel" aria-labelledby="tracking-h">
      <h2 id="tracking-h">Tracking</h2>
      <ErrorText error={tracking.error ?? save.error} />
      {tracking.data
        ? kinds.map(([kind, label]) => (
            <label class="check" key={kind}>
              <input
                type="checkbox"
                checked={tracking.data!.tracking[kind].active !== false}
                disabled={!can('write') || save.busy}
                onChange={(e) => {
                  const active = (e.target as HTMLInputElement).checked;
                  void save.run(async () => {
                    await call(credentials(), 'PUT', p`/v3/domains/${domain}/tracking/${kind}`, { form: { active: active ? 'yes' : 'no' } });
                    tracking.reload();
                  });
                }}
              />
              {label}
            </label>
          ))
        : null}
    </section>
  );
}

interface DkimKey {
  selector: string;
  signing_domain: string;
  dns_record: DnsRecord & { is_active: boolean };
}

function DkimKeys({ domain }: { domain: string }) {
  const keys = useLoad((signal) => call<{ items: DkimKey[] }>(credentials(), 'GET', '/v1/dkim/keys', { query: { signing_domain: domain, limit: 100 }, signal }), [domain]);
  return (
    <section class="panel" aria-labelledby="dkim-h">
      <h2 id="dkim-h">DKIM keys</h2>
      <ErrorText error={keys.error} />
      {keys.data ? (
        keys.data.items.length ? (
          <div class="table-wrap" tabIndex={0}>
            <table>
              <Head columns={['Selector', 'Signing', 'DNS']} />
              <tbody>
                {keys.data.items.map((k) => (
                  <tr key={k.selector}>
                    <td>
                      <code>{k.selector}</code>
                    </td>
                    <td>{k.dns_record.is_active ? 'active' : 'inactive'}</td>
                    <td>
                      <ValidBadge valid={k.dns_record.valid} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p class="muted">No DKIM keys of this domain's own (it may sign with its parent's, or SES's).</p>
        )
      ) : null}
    </section>
  );
}

interface Credential {
  login: string;
  created_at: string;
}

interface CredentialReply {
  message: string;
  credentials?: Record<string, string>;
}

function SmtpCredentials({ domain }: { domain: string }) {
  const list = useLoad((signal) => call<{ items: Credential[] }>(credentials(), 'GET', p`/v3/domains/${domain}/credentials`, { signal }), [domain]);
  const act = useAction();
  const [shown, setShown] = useState<Record<string, string>>();
  const writable = can('write');
  return (
    <section class="panel" aria-labelledby="smtp-h">
      <h2 id="smtp-h">SMTP credentials</h2>
      <ErrorText error={list.error ?? act.error} />
      {shown ? Object.entries(shown).map(([login, password]) => <SecretOnce key={login} label={`Password for ${login}`} value={password} />) : null}
      {list.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <Head columns={['Login', 'Created', writable && 'Actions']} />
            <tbody>
              {list.data.items.map((c) => (
                <tr key={c.login}>
                  <td class="break">{c.login}</td>
                  <td>{formatDate(c.created_at)}</td>
                  {writable ? (
                    <td class="actions">
                      <button
                        type="button"
                        class="small"
                        aria-label={`Reset password of ${c.login}`}
                        onClick={() =>
                          void act.run(async () => {
                            const reply = await call<CredentialReply>(credentials(), 'PUT', p`/v3/domains/${domain}/credentials/${c.login}`, { form: {} });
                            setShown(reply.credentials);
                          })
                        }
                      >
                        Reset password
                      </button>
                      <ConfirmButton
                        class="danger small"
                        label={`Delete ${c.login}`}
                        question={`Delete the SMTP login ${c.login}? Mail clients using it stop working.`}
                        confirmLabel="Delete login"
                        onConfirm={() =>
                          void act.run(async () => {
                            await call(credentials(), 'DELETE', p`/v3/domains/${domain}/credentials/${c.login}`);
                            list.reload();
                          })
                        }
                      />
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
          {!list.data.items.length ? <p class="muted">No SMTP logins yet.</p> : null}
        </div>
      ) : null}
      {writable ? (
        <form
          class="row"
          aria-label="Add SMTP login"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const { login, password } = fieldsOf(form);
            void act.run(async () => {
              const reply = await call<CredentialReply>(credentials(), 'POST', p`/v3/domains/${domain}/credentials`, { form: { login, password: password || undefined } });
              setShown(reply.credentials);
              form.reset();
              list.reload();
            });
          }}
        >
          <div class="field grow">
            <label for="smtp-login">Login</label>
            <input id="smtp-login" name="login" required placeholder={`alice@${domain}`} autocomplete="off" />
          </div>
          <div class="field grow">
            <label for="smtp-password">Password (empty: generate one)</label>
            <input id="smtp-password" name="password" type="password" autocomplete="new-password" />
          </div>
          <button type="submit" disabled={act.busy}>
            Add SMTP login
          </button>
        </form>
      ) : null}
    </section>
  );
}

function Webhooks({ domain }: { domain: string }) {
  const hooks = useLoad((signal) => call<{ webhooks: Record<string, { urls: string[] }> }>(credentials(), 'GET', p`/v3/domains/${domain}/webhooks`, { signal }), [domain]);
  const act = useAction();
  const [tested, setTested] = useState<{ type: string; code: number; message: string }>();
  const writable = can('write');
  return (
    <section class="panel" aria-labelledby="webhooks-h">
      <h2 id="webhooks-h">Webhooks</h2>
      <ErrorText error={hooks.error ?? act.error} />
      {tested ? (
        <p role="status">
          Test of {tested.type}: the receiver answered {tested.code} <code class="break">{tested.message.slice(0, 300)}</code>
        </p>
      ) : null}
      {hooks.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <Head columns={['Event type', 'URLs', writable && 'Actions']} />
            <tbody>
              {WEBHOOK_NAMES.map((type) => {
                const urls = hooks.data!.webhooks[type]?.urls ?? [];
                return (
                  <tr key={type}>
                    <td>{type}</td>
                    <td class="break">{urls.length ? urls.map((u) => <div key={u}>{u}</div>) : <span class="muted">none</span>}</td>
                    {writable ? (
                      <td class="actions">
                        {urls.length ? (
                          <>
                            <button
                              type="button"
                              class="small"
                              aria-label={`Test ${type} webhook`}
                              onClick={() =>
                                void act.run(async () => {
                                  const reply = await call<{ code: number; message: string }>(credentials(), 'PUT', p`/v3/domains/${domain}/webhooks/${type}/test`, { form: { url: urls[0]! } });
                                  setTested({ type, code: reply.code, message: typeof reply.message === 'string' ? reply.message : JSON.stringify(reply.message) });
                                })
                              }
                            >
                              Test
                            </button>
                            <ConfirmButton
                              class="danger small"
                              label={`Remove ${type} webhook`}
                              question={`Remove every URL of the ${type} webhook?`}
                              confirmLabel="Remove"
                              onConfirm={() =>
                                void act.run(async () => {
                                  await call(credentials(), 'DELETE', p`/v3/domains/${domain}/webhooks/${type}`);
                                  hooks.reload();
                                })
                              }
                            />
                          </>
                        ) : null}
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {writable ? (
        <form
          class="row"
          aria-label="Add webhook"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const { type, url } = fieldsOf(form);
            const existing = hooks.data?.webhooks[type!]?.urls ?? [];
            void act.run(async () => {
              if (existing.length) await call(credentials(), 'PUT', p`/v3/domains/${domain}/webhooks/${type!}`, { form: { url: [...existing, url!] } });
              else await call(credentials(), 'POST', p`/v3/domains/${domain}/webhooks`, { form: { id: type, url } });
              form.reset();
              hooks.reload();
            });
          }}
        >
          <div class="field">
            <label for="webhook-type">Event type</label>
            <select id="webhook-type" name="type">
              <Options values={WEBHOOK_NAMES} />
            </select>
          </div>
          <div class="field grow">
            <label for="webhook-url">Webhook URL</label>
            <input id="webhook-url" name="url" type="url" required placeholder="https://example.com/hooks/mail" />
          </div>
          <button type="submit" disabled={act.busy}>
            Add webhook
          </button>
        </form>
      ) : null}
    </section>
  );
}

function TestMessage({ domain }: { domain: string }) {
  const act = useAction();
  const [sent, setSent] = useState<string>();
  return (
    <section class="panel" aria-labelledby="send-h">
      <h2 id="send-h">Send a test message</h2>
      <form
        class="stack"
        aria-label="Send a test message"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          const { from, to, subject, text } = fieldsOf(form);
          void act.run(async () => {
            const reply = await call<{ id: string; message: string }>(credentials(), 'POST', p`/v3/${domain}/messages`, { form: { from, to, subject, text } });
            setSent(reply.id);
          });
        }}
      >
        <div class="field">
          <label for="send-from">From</label>
          <input id="send-from" name="from" required defaultValue={`Mailplane test <test@${domain}>`} />
        </div>
        <div class="field">
          <label for="send-to">To</label>
          <input id="send-to" name="to" required placeholder="you@example.com" />
        </div>
        <div class="field">
          <label for="send-subject">Subject</label>
          <input id="send-subject" name="subject" required value="Hello from Mailplane" />
        </div>
        <div class="field">
          <label for="send-text">Text</label>
          <textarea id="send-text" name="text" rows={4} required>
            It works.
          </textarea>
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={act.busy}>
            Send
          </button>
        </div>
        <ErrorText error={act.error} />
        {sent ? (
          <p role="status">
            Queued: <code class="break">{sent}</code>. Follow it in <Link href="/logs">Logs</Link>.
          </p>
        ) : null}
      </form>
    </section>
  );
}

export default function DomainDetail({ name }: { name: string }) {
  const { region } = useAppState();
  const domain = useLoad((signal) => call<DomainReply>(credentials(), 'GET', p`/v4/domains/${name}`, { query: { 'h:with_dns': 'true', 'h:extended': 'true' }, signal }), [name, region]);
  const verify = useAction();
  const [verified, setVerified] = useState<DomainReply>();
  const [, navigate] = useLocation();
  const shown = verified ?? domain.data;
  const writable = can('write');
  return (
    <Page
      title={name}
      actions={
        shown && writable ? (
          <>
            <button
              type="button"
              class="primary"
              disabled={verify.busy}
              onClick={() =>
                void verify.run(async () => {
                  setVerified(await call<DomainReply>(credentials(), 'PUT', p`/v4/domains/${name}/verify`));
                })
              }
            >
              Verify DNS settings
            </button>
            <ConfirmButton
              label="Delete domain"
              question={`Delete ${name}? Its settings, credentials and templates go with it.`}
              confirmLabel="Delete domain"
              onConfirm={() =>
                void verify.run(async () => {
                  await call(credentials(), 'DELETE', p`/v3/domains/${name}`);
                  navigate('/domains');
                })
              }
            />
          </>
        ) : null
      }
    >
      <p>
        <Link href="/domains">All domains</Link>
      </p>
      <ErrorText error={domain.error ?? verify.error} />
      {!shown && domain.loading ? <Loading what="domain" /> : null}
      {shown ? (
        <>
          <p>
            State: <StateBadge state={shown.domain.state} /> · type {shown.domain.type} · created {formatDate(shown.domain.created_at)}
            {verify.busy ? ' · checking DNS…' : ''}
          </p>
          <section class="panel" aria-labelledby="dns-h">
            <h2 id="dns-h">DNS records</h2>
            {shown.sending_dns_records ? <RecordsTable title="Sending" records={shown.sending_dns_records} /> : null}
            {shown.receiving_dns_records ? <RecordsTable title="Receiving" records={shown.receiving_dns_records} /> : null}
          </section>
          {can('send') ? <TestMessage domain={name} /> : null}
          <TrackingSettings domain={name} />
          <DkimKeys domain={name} />
          <SmtpCredentials domain={name} />
          <Webhooks domain={name} />
        </>
      ) : null}
    </Page>
  );
}
