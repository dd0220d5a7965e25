import { useState } from 'preact/hooks';
import { keyKinds, roles } from '../../../functions/platform/access';
import { call, p } from '../api';
import { credentials, currentSession, useAppState } from '../session';
import { DomainOptions, listDomains } from '../ui/domain-picker';
import { useAction, useLoad } from '../ui/load';
import { listKeys } from './keys.load';
import { ConfirmButton, ErrorText, fieldsOf, Head, Loading, Options, Page, SecretOnce } from '../ui/widgets';

export default function ApiKeys() {
  const { region } = useAppState();
  const keys = useLoad((signal) => listKeys(signal), [region]);
  const domains = useLoad((signal) => listDomains(signal), [region]);
  const act = useAction();
  const [created, setCreated] = useState<{ id: string; secret: string }>();
  const [kind, setKind] = useState<string>('user');
  const own = currentSession()?.keyId;
  return (
    <Page title="API keys">
      <form
        class="panel stack"
        aria-label="Create API key"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          const f = fieldsOf(form);
          const me = currentSession();
          void act.run(async () => {
            const reply = await call<{ id: string; secret: string }>(credentials(), 'POST', '/v1/keys', {
              form: {
                role: f.kind === 'domain' ? 'sending' : f.role,
                kind: f.kind,
                description: f.description || undefined,
                domain_name: f.kind === 'domain' ? f.domain : undefined,
                expiration: f.expiration ? String(Math.round(Number(f.expiration) * 3600)) : undefined,
                // Web keys name the user they are for: the one signed in.
                ...(f.kind === 'web' ? { email: me?.email, user_id: me?.userId } : {}),
              },
            });
            setCreated({ id: reply.id, secret: reply.secret });
            form.reset();
            setKind('user');
            keys.reload();
          });
        }}
      >
        <h2>Create API key</h2>
        <div class="row">
          <div class="field">
            <label for="k-kind">Kind</label>
            <select id="k-kind" name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
              <Options values={keyKinds} />
            </select>
          </div>
          <div class="field">
            <label for="k-role">Role</label>
            <select id="k-role" name="role" disabled={kind === 'domain'}>
              <Options values={roles.filter((r) => (kind === 'domain' ? r === 'sending' : r !== 'sending'))} />
            </select>
          </div>
          {kind === 'domain' ? (
            <div class="field">
              <label for="k-domain">Domain</label>
              <select id="k-domain" name="domain" required>
                <DomainOptions domains={domains.data} />
              </select>
            </div>
          ) : null}
          <div class="field">
            <label for="k-expiration">Expires after (hours, empty: never)</label>
            <input id="k-expiration" name="expiration" type="number" min={1} step="any" />
          </div>
          <div class="field grow">
            <label for="k-description">Description</label>
            <input id="k-description" name="description" />
          </div>
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={act.busy}>
            Create key
          </button>
        </div>
        {created ? <SecretOnce label={`Secret of key ${created.id}`} value={created.secret} /> : null}
        <ErrorText error={act.error} />
      </form>
      <ErrorText error={keys.error} />
      {keys.loading && !keys.data ? <Loading what="API keys" /> : null}
      {keys.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <Head columns={['Id', 'Kind', 'Role', 'Domain', 'Description', 'Created', 'Expires', 'Delete']} />
            <tbody>
              {keys.data.items.map((k) => (
                <tr key={k.id}>
                  <td class="mono">{k.id}</td>
                  <td>{k.kind}</td>
                  <td>{k.role}</td>
                  <td class="break">{k.domain_name ?? ''}</td>
                  <td class="break">{k.description}</td>
                  <td>{k.created_at}</td>
                  <td>{k.expires_at ?? 'never'}</td>
                  <td>
                    {k.id === own ? (
                      <span class="muted">this session</span>
                    ) : (
                      <ConfirmButton
                        class="danger small"
                        label={`Delete key ${k.id}`}
                        question={`Delete the key ${k.id}? Whatever uses it stops working at once.`}
                        confirmLabel="Delete key"
                        onConfirm={() =>
                          void act.run(async () => {
                            await call(credentials(), 'DELETE', p`/v1/keys/${k.id}`);
                            keys.reload();
                          })
                        }
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Page>
  );
}
