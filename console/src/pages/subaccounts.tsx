import { call, p } from '../api';
import { listSubaccounts, subaccountsChanged, type Subaccount } from '../account-switch';
import { can, credentials, currentActing, setActing, useAppState } from '../session';
import { useAction, useLoad } from '../ui/load';
import { ErrorText, Head, Loading, Notice, Page } from '../ui/widgets';

function StatusBadge({ status }: { status: Subaccount['status'] }) {
  return <span class={`badge ${status === 'open' ? 'ok' : 'bad'}`}>{status === 'open' ? 'enabled' : status}</span>;
}

/** Subaccounts of the key's own account (never asked on behalf of one): list, create, disable and enable. */
export default function Subaccounts() {
  const { region } = useAppState();
  const list = useLoad((signal) => listSubaccounts(signal), [region]);
  const act = useAction();
  const acting = currentActing();
  const asParent = () => ({ ...credentials(), onBehalfOf: undefined });
  const changed = () => {
    list.reload();
    subaccountsChanged();
  };
  return (
    <Page title="Subaccounts">
      <p class="muted">
        A subaccount is a child of this account with its own domains, keys and data. Pick one in the header's "Account" switcher to see and act on it from every page.
      </p>
      {acting ? <Notice>Acting on behalf of subaccount {acting.name}. This page lists the primary account's subaccounts.</Notice> : null}
      {can('admin') ? (
        <form
          class="panel row"
          aria-label="Create subaccount"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const name = (form.elements.namedItem('name') as HTMLInputElement).value.trim();
            void act.run(async () => {
              await call(asParent(), 'POST', '/v5/accounts/subaccounts', { form: { name } });
              form.reset();
              changed();
            });
          }}
        >
          <div class="field grow">
            <label for="sub-name">Subaccount name</label>
            <input id="sub-name" name="name" required autocomplete="off" maxLength={256} />
          </div>
          <button type="submit" class="primary" disabled={act.busy}>
            Create subaccount
          </button>
        </form>
      ) : null}
      <ErrorText error={act.error} />
      <ErrorText error={list.error} />
      {list.loading && !list.data ? <Loading what="subaccounts" /> : null}
      {list.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <caption class="muted">{list.data.length} subaccounts</caption>
            <Head columns={['Name', 'ID', 'Status', 'Created', 'Actions']} />
            <tbody>
              {list.data.map((s) => (
                <tr key={s.id}>
                  <td class="break">{s.name}</td>
                  <td class="mono">{s.id}</td>
                  <td>
                    <StatusBadge status={s.status} />
                  </td>
                  <td>{s.created_at}</td>
                  <td class="actions">
                    {s.status === 'open' ? (
                      <button type="button" class="small" aria-label={`Act as ${s.name}`} disabled={acting?.id === s.id} onClick={() => setActing({ id: s.id, name: s.name })}>
                        {acting?.id === s.id ? 'Acting as it' : 'Act as'}
                      </button>
                    ) : null}
                    {can('admin') && s.status === 'open' ? (
                      <button
                        type="button"
                        class="small danger"
                        aria-label={`Disable ${s.name}`}
                        disabled={act.busy}
                        onClick={() =>
                          void act.run(async () => {
                            await call(asParent(), 'POST', p`/v5/accounts/subaccounts/${s.id}/disable`);
                            if (currentActing()?.id === s.id) setActing(undefined);
                            changed();
                          })
                        }
                      >
                        Disable
                      </button>
                    ) : null}
                    {can('admin') && s.status === 'disabled' ? (
                      <button
                        type="button"
                        class="small"
                        aria-label={`Enable ${s.name}`}
                        disabled={act.busy}
                        onClick={() =>
                          void act.run(async () => {
                            await call(asParent(), 'POST', p`/v5/accounts/subaccounts/${s.id}/enable`);
                            changed();
                          })
                        }
                      >
                        Enable
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {!list.data.length ? <p class="muted">No subaccounts yet.</p> : null}
        </div>
      ) : null}
    </Page>
  );
}
