import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { listSubaccounts, subaccountsChanged, type Subaccount } from '../account-switch';
import { can, credentials, currentActing, setActing, useAppState } from '../session';
import { useAction, useLoad } from '../ui/load';
import { ConfirmButton, countOf, ErrorText, formatDate, Head, Loading, Notice, Page } from '../ui/widgets';
import { MonthlyLimitSection } from './monthly-limit';

function StatusBadge({ status }: { status: Subaccount['status'] }) {
  return <span class={`badge ${status === 'open' ? 'ok' : 'bad'}`}>{status === 'open' ? 'enabled' : status}</span>;
}

/** The features a parent turns on and off per subaccount (PUT …/{id}/features), as the console names them. */
const FEATURES = [
  ['sending', 'Sending'],
  ['email_preview', 'Email previews'],
  ['inbox_placement', 'Inbox placement'],
  ['validations', 'Address validations'],
  ['validations_bulk', 'Bulk address validations'],
] as const;

/** The parent's own credentials: subaccounts are managed by their parent, never on behalf of one. */
const asParent = () => ({ ...credentials(), onBehalfOf: undefined });

type SendingFeature = { enabled?: boolean; reason?: string; paused_at?: string };

/** One subaccount: its features as the API has them, and the monthly limit its parent sets on it. */
function SubaccountDetail({ id, onChanged, onClose }: { id: string; onChanged: () => void; onClose: () => void }) {
  const detail = useLoad((signal) => call<{ subaccount: Subaccount }>(asParent(), 'GET', p`/v5/accounts/subaccounts/${id}`, { signal }).then((r) => r.subaccount), [id]);
  const save = useAction();
  const [saved, setSaved] = useState<string>();
  const sub = detail.data;
  const admin = can('admin');
  const enabled = (name: string) => sub?.features?.[name]?.enabled === true;
  const sending = sub?.features?.['sending'] as SendingFeature | undefined;
  return (
    <section class="panel" aria-labelledby="sub-detail-h">
      <h2 id="sub-detail-h">Subaccount {sub?.name ?? id}</h2>
      <ErrorText error={detail.error} />
      {detail.loading && !sub ? <Loading what="the subaccount" /> : null}
      {sub ? (
        <form
          key={JSON.stringify(sub.features)}
          class="stack"
          aria-label={`Features of ${sub.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            // Only what changed: the API refuses a request that changes nothing it knows.
            const changes = Object.fromEntries(
              FEATURES.map(([name]) => [name, (form.elements.namedItem(name) as HTMLInputElement).checked] as const)
                .filter(([name, on]) => on !== enabled(name))
                .map(([name, on]) => [name, JSON.stringify({ enabled: on })]),
            );
            setSaved(undefined);
            void save.run(async () => {
              await call(asParent(), 'PUT', p`/v5/accounts/subaccounts/${id}/features`, { form: changes });
              setSaved(`Features of ${sub.name} saved.`);
              detail.reload();
              onChanged();
            });
          }}
        >
          <fieldset class="checks">
            <legend>Features</legend>
            {FEATURES.map(([name, label]) => (
              <label class="check" key={name}>
                <input type="checkbox" name={name} defaultChecked={enabled(name)} disabled={!admin} /> {label}
              </label>
            ))}
          </fieldset>
          {sending?.enabled === false && sending.reason ? <p class="error">Sending was paused: {sending.reason}</p> : null}
          {saved ? <Notice>{saved}</Notice> : null}
          <ErrorText error={save.error} />
          <div class="actions">
            {admin ? (
              <button type="submit" class="primary" disabled={save.busy}>
                Save features
              </button>
            ) : null}
            <button type="button" onClick={onClose}>
              Close
            </button>
          </div>
        </form>
      ) : null}
      {sub ? (
        <MonthlyLimitSection
          target={{ id: 'sub-limit', credentials: asParent, path: p`/v5/accounts/subaccounts/${id}/limit/custom/monthly`, resumeAs: () => ({ ...credentials(), onBehalfOf: id }) }}
          heading={`Monthly sending limit of ${sub.name}`}
        />
      ) : null}
    </section>
  );
}

/** Subaccounts of the key's own account (never asked on behalf of one): list, create, disable and enable. */
export default function Subaccounts() {
  const { region } = useAppState();
  const list = useLoad((signal) => listSubaccounts(signal), [region]);
  const act = useAction();
  const [open, setOpen] = useState<string>();
  const acting = currentActing();
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
            <caption class="muted">{countOf(list.data.length, 'subaccount')}</caption>
            <Head columns={['Name', 'ID', 'Status', 'Created', 'Actions']} />
            <tbody>
              {list.data.map((s) => (
                <tr key={s.id}>
                  <td class="break">{s.name}</td>
                  <td class="mono">{s.id}</td>
                  <td>
                    <StatusBadge status={s.status} />
                  </td>
                  <td>{formatDate(s.created_at)}</td>
                  <td class="actions">
                    <button type="button" class="small" aria-label={`Details of ${s.name}`} aria-expanded={open === s.id} onClick={() => setOpen(open === s.id ? undefined : s.id)}>
                      Details
                    </button>
                    {s.status === 'open' ? (
                      <button type="button" class="small" aria-label={`Act as ${s.name}`} disabled={acting?.id === s.id} onClick={() => setActing({ id: s.id, name: s.name })}>
                        {acting?.id === s.id ? 'Acting as it' : 'Act as'}
                      </button>
                    ) : null}
                    {can('admin') && s.status === 'open' ? (
                      <ConfirmButton
                        class="small danger"
                        label={`Disable ${s.name}`}
                        text="Disable"
                        question={`Disable ${s.name}? It stops sending, and its keys stop working, until it is enabled again.`}
                        confirmLabel="Disable"
                        disabled={act.busy}
                        onConfirm={() =>
                          void act.run(async () => {
                            await call(asParent(), 'POST', p`/v5/accounts/subaccounts/${s.id}/disable`);
                            if (currentActing()?.id === s.id) setActing(undefined);
                            changed();
                          })
                        }
                      />
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
      {open ? <SubaccountDetail key={open} id={open} onChanged={changed} onClose={() => setOpen(undefined)} /> : null}
    </Page>
  );
}
