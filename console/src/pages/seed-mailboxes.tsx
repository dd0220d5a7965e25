import { useState } from 'preact/hooks';
import { ApiError, call, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { SubmitOrCancel } from '../ui/form-parts';
import { useAction, useLoad } from '../ui/load';
import { ConfirmButton, ErrorText, fieldsOf, formatDate, Head } from '../ui/widgets';

/** A seed mailbox as GET /v1/inbox/seed-mailboxes gives it: never its secret. */
interface SeedMailbox {
  email: string;
  provider: string;
  imap_host: string;
  imap_port: number;
  imap_tls: boolean;
  imap_user: string;
  auth: 'password' | 'oauth2';
  first_name: string;
  last_name: string;
  updated_at: string;
}

const AUTH_LABELS = { password: 'Password or app password', oauth2: 'OAuth2 access token' } as const;

/** Adds a seed mailbox, or (given `seed`) replaces one: the credential is asked for, never shown; left empty on an edit, the stored one stays. */
function SeedForm({ seed, onDone, onCancel }: { seed?: SeedMailbox; onDone: () => void; onCancel?: () => void }) {
  const act = useAction();
  const id = seed ? 'seed-edit' : 'seed';
  return (
    <form
      class="panel row"
      aria-label={seed ? `Edit seed mailbox ${seed.email}` : 'Add a seed mailbox'}
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const f = fieldsOf(form);
        const secret = f['secret'] ?? '';
        const json = {
          email: seed?.email ?? f['email']?.trim(),
          provider: f['provider']?.trim(),
          imap_host: f['imap_host']?.trim(),
          imap_port: Number(f['imap_port']),
          imap_tls: f['imap_tls'] === 'on',
          imap_user: f['imap_user']?.trim() || undefined,
          ...(secret ? { [f['auth'] === 'oauth2' ? 'oauth2_token' : 'password']: secret } : {}),
          first_name: f['first_name'] ?? '',
          last_name: f['last_name'] ?? '',
        };
        void act.run(async () => {
          await call(credentials(), 'POST', '/v1/inbox/seed-mailboxes', { json });
          form.reset();
          onDone();
        });
      }}
    >
      {seed ? null : (
        <div class="field">
          <label for={`${id}-email`}>Seed address</label>
          <input id={`${id}-email`} name="email" type="email" required autocomplete="off" />
        </div>
      )}
      <div class="field">
        <label for={`${id}-provider`}>Provider domain</label>
        <input id={`${id}-provider`} name="provider" required autocomplete="off" placeholder="gmail.com" defaultValue={seed?.provider} />
      </div>
      <div class="field">
        <label for={`${id}-host`}>IMAP host</label>
        <input id={`${id}-host`} name="imap_host" required autocomplete="off" defaultValue={seed?.imap_host} />
      </div>
      <div class="field">
        <label for={`${id}-port`}>IMAP port</label>
        <input id={`${id}-port`} name="imap_port" type="number" min={1} max={65535} required defaultValue={String(seed?.imap_port ?? 993)} />
      </div>
      <label class="check">
        <input type="checkbox" name="imap_tls" defaultChecked={seed?.imap_tls ?? true} /> Implicit TLS
      </label>
      <div class="field">
        <label for={`${id}-user`}>IMAP user (default: the address)</label>
        <input id={`${id}-user`} name="imap_user" autocomplete="off" defaultValue={seed && seed.imap_user !== seed.email ? seed.imap_user : ''} />
      </div>
      <div class="field">
        <label for={`${id}-auth`}>Sign-in</label>
        <select id={`${id}-auth`} name="auth" defaultValue={seed?.auth ?? 'password'}>
          {Object.entries(AUTH_LABELS).map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={`${id}-secret`}>{seed ? 'New credential (empty keeps the stored one)' : 'Credential'}</label>
        <input id={`${id}-secret`} name="secret" type="password" required={!seed} autocomplete="new-password" spellcheck={false} />
      </div>
      <div class="field">
        <label for={`${id}-first`}>First name</label>
        <input id={`${id}-first`} name="first_name" autocomplete="off" defaultValue={seed?.first_name} />
      </div>
      <div class="field">
        <label for={`${id}-last`}>Last name</label>
        <input id={`${id}-last`} name="last_name" autocomplete="off" defaultValue={seed?.last_name} />
      </div>
      <SubmitOrCancel label={seed ? 'Save seed mailbox' : 'Add seed mailbox'} busy={act.busy} onCancel={onCancel} />
      <ErrorText error={act.error} />
    </form>
  );
}

/** Loads the seed mailboxes, or none for a key that is not the operator's (403): the section is theirs only. */
async function operatorSeeds(signal: AbortSignal): Promise<SeedMailbox[] | undefined> {
  try {
    return (await call<{ items: SeedMailbox[] }>(credentials(), 'GET', '/v1/inbox/seed-mailboxes', { signal })).items;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return undefined;
    throw error;
  }
}

/**
 * The operator's seed mailboxes (the primary account's admin keys only): list, add, edit, remove.
 * `onChange` tells the page its providers changed.
 */
export function SeedMailboxes({ onChange }: { onChange: () => void }) {
  const { region, acting } = useAppState();
  const seeds = useLoad(operatorSeeds, [region, acting]);
  const act = useAction();
  const [editing, setEditing] = useState<SeedMailbox>();
  if (!can('admin') || (!seeds.loading && !seeds.error && !seeds.data)) return null;
  const changed = () => (seeds.reload(), onChange());
  return (
    <section aria-labelledby="seeds-h">
      <h2 id="seeds-h">Seed mailboxes</h2>
      <p class="muted">Mailboxes the operator owns at each provider; every placement test sends one copy to each and reads where it landed over IMAP. Credentials are sealed when saved and never shown again.</p>
      <SeedForm onDone={changed} />
      {editing ? <SeedForm key={editing.email} seed={editing} onDone={() => (setEditing(undefined), changed())} onCancel={() => setEditing(undefined)} /> : null}
      <ErrorText error={seeds.error ?? act.error} />
      {seeds.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table aria-busy={seeds.loading}>
            <caption class="muted">Seed mailboxes, by address</caption>
            <Head columns={['Address', 'Provider', 'IMAP', 'User', 'Sign-in', 'Name', 'Updated', 'Actions']} />
            <tbody>
              {seeds.data.map((s) => (
                <tr key={s.email}>
                  <th scope="row" class="break">
                    {s.email}
                  </th>
                  <td>{s.provider}</td>
                  <td class="break">
                    {s.imap_host}:{s.imap_port}
                    {s.imap_tls ? ' (TLS)' : ' (plain)'}
                  </td>
                  <td class="break">{s.imap_user}</td>
                  <td>{AUTH_LABELS[s.auth]}</td>
                  <td class="break">{`${s.first_name} ${s.last_name}`.trim()}</td>
                  <td>{formatDate(s.updated_at)}</td>
                  <td class="actions">
                    <button type="button" class="small" aria-label={`Edit seed mailbox ${s.email}`} onClick={() => setEditing(s)}>
                      Edit
                    </button>
                    <ConfirmButton
                      class="small danger"
                      label={`Remove seed mailbox ${s.email}`}
                      question={`Remove the seed mailbox ${s.email}? Results already made keep their outcome.`}
                      confirmLabel="Remove"
                      onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', p`/v1/inbox/seed-mailboxes/${s.email}`), changed()))}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {!seeds.data.length ? <p class="muted">No seed mailboxes yet.</p> : null}
        </div>
      ) : null}
    </section>
  );
}
