import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { listSubaccounts, type Subaccount } from '../account-switch';
import { can, credentials, useAppState } from '../session';
import { FieldError, invalidProps, useFieldAction, type PlacedError } from '../ui/field-errors';
import { useAction, useLoad } from '../ui/load';
import { ErrorText, fieldsOf, Head, Loading, Notice } from '../ui/widgets';

interface DelegablePool {
  pool_id: string;
  name: string;
  ips: string[];
  is_inherited?: boolean;
}

/** Who has what: each subaccount with the pools and the IPs its parent delegated to it. */
interface Holding {
  subaccount: Subaccount;
  pools: string[];
  /** Its dedicated IPs (GET /v3/ips on its behalf); none asked for a disabled one, which the header refuses. */
  ips?: string[];
}

/** The parent's own credentials: delegation is the parent's, never done on behalf of a subaccount. */
const asParent = () => ({ ...credentials(), onBehalfOf: undefined });

const delegations = (signal?: AbortSignal) => call<{ items: Array<{ pool_id: string; subaccount_id: string }>; total_count: number }>(asParent(), 'GET', '/v5/accounts/subaccounts/ip_pools/all', { signal });

async function loadHoldings(signal: AbortSignal): Promise<Holding[]> {
  const [subaccounts, delegated] = await Promise.all([listSubaccounts(signal), delegations(signal)]);
  return Promise.all(
    subaccounts
      .filter((s) => s.status !== 'closed')
      .map(async (subaccount) => ({
        subaccount,
        pools: delegated.items.filter((d) => d.subaccount_id === subaccount.id).map((d) => d.pool_id),
        ips: subaccount.status === 'open' ? (await call<{ items: string[] }>({ ...credentials(), onBehalfOf: subaccount.id }, 'GET', '/v3/ips', { signal })).items : undefined,
      })),
  );
}

/** Revoking finishes after the reply (the pool's list of delegates changes on a queue worker): wait until the listing no longer has it. */
async function revoked(poolId: string, subaccountId: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    if (!(await delegations()).items.some((d) => d.pool_id === poolId && d.subaccount_id === subaccountId)) return;
    await new Promise((resolve) => setTimeout(resolve, 250 * (attempt + 1)));
  }
}

type Choices = ReadonlyArray<readonly [value: string, label: string]>;

function Choice({ id, label, name, choices, error }: { id: string; label: string; name: string; choices: Choices; error: PlacedError | undefined }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} name={name} required {...invalidProps(error, name, id)}>
        {choices.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      <FieldError error={error} field={name} id={id} />
    </div>
  );
}

/** Delegating one pool or IP (`field` names it in the request) to a subaccount; a refusal goes under the field it names. */
function DelegateForm({ what, field, choices, subaccounts, path, onStart, onDone }: { what: 'pool' | 'IP'; field: string; choices: Choices; subaccounts: Choices; path: (subaccountId: string) => string; onStart: () => void; onDone: (value: string) => void }) {
  const action = useFieldAction((m) => (/subaccount/i.test(m) ? 'subaccount_id' : (what === 'IP' ? /^IP / : /pool/i).test(m) ? field : undefined));
  const id = `delegate-${what.toLowerCase()}`;
  const title = `Delegate ${what === 'IP' ? 'an IP' : 'a pool'}`;
  return (
    <form
      class="panel stack"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        const f = fieldsOf(e.currentTarget);
        const value = f[field]!;
        onStart();
        void action.run(() => call(asParent(), 'PUT', path(f.subaccount_id!), { form: { [field]: value } })).then((ok) => ok && onDone(value));
      }}
    >
      <h3>{title}</h3>
      <Choice id={`${id}-sub`} label="Subaccount" name="subaccount_id" choices={subaccounts} error={action.error} />
      <Choice id={id} label={what === 'IP' ? 'IP' : 'Pool'} name={field} choices={choices} error={action.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy || !choices.length}>
          Delegate {what}
        </button>
      </div>
      {action.error?.field === 'form' ? <ErrorText error={action.error.message} /> : null}
    </form>
  );
}

/**
 * Delegating the parent's pools and dedicated IPs to its subaccounts: who has what, delegate,
 * revoke a pool. Mailgun has no way to take back a delegated IP, so neither has this page.
 */
export function Delegation({ pools, ips }: { pools: DelegablePool[]; ips: string[] }) {
  const { region } = useAppState();
  const holdings = useLoad(loadHoldings, [region, pools]);
  const revoke = useAction();
  const [notice, setNotice] = useState<string>();
  const admin = can('admin');
  const own = pools.filter((candidate) => !candidate.is_inherited);
  const poolName = (id: string) => own.find((candidate) => candidate.pool_id === id)?.name ?? id;
  const open = (holdings.data ?? []).filter((h) => h.subaccount.status === 'open');
  const subaccounts = open.map((h) => [h.subaccount.id, h.subaccount.name] as const);
  const delegated = (what: string) => (setNotice(`${what} delegated.`), holdings.reload());
  return (
    <section aria-labelledby="delegation-h">
      <h2 id="delegation-h">Delegated to subaccounts</h2>
      <p class="muted">A subaccount uses the pools and IPs delegated to it for its own domains; only this account changes them.</p>
      <ul class="rules muted">
        <li>An IP in one of this account's pools or dynamic pool bands cannot be delegated.</li>
        <li>Delegating a pool replaces the pool the subaccount had (its domains on that pool move to the shared IPs).</li>
        <li>Revoking a pool moves the subaccount's domains on it to the shared IPs.</li>
      </ul>
      {notice ? <Notice>{notice}</Notice> : null}
      <ErrorText error={holdings.error ?? revoke.error} />
      {holdings.loading && !holdings.data ? <Loading what="delegations" /> : null}
      {holdings.data ? (
        holdings.data.length ? (
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">What each subaccount has</caption>
              <Head columns={['Subaccount', 'Pools', 'IPs']} />
              <tbody>
                {holdings.data.map((h) => (
                  <tr key={h.subaccount.id}>
                    <td class="break">{h.subaccount.name}</td>
                    <td>
                      {h.pools.length ? (
                        <ul class="plain-list">
                          {h.pools.map((id) => (
                            <li key={id}>
                              {poolName(id)}{' '}
                              {admin ? (
                                <button
                                  type="button"
                                  class="small danger"
                                  aria-label={`Revoke pool ${poolName(id)} from ${h.subaccount.name}`}
                                  disabled={revoke.busy}
                                  onClick={() =>
                                    void revoke.run(async () => {
                                      setNotice(undefined);
                                      await call(asParent(), 'DELETE', p`/v5/accounts/subaccounts/${h.subaccount.id}/ip_pool`, { query: { pool_id: id } });
                                      await revoked(id, h.subaccount.id);
                                      setNotice(`Pool ${poolName(id)} revoked from ${h.subaccount.name}.`);
                                      holdings.reload();
                                    })
                                  }
                                >
                                  Revoke
                                </button>
                              ) : null}
                            </li>
                          ))}
                        </ul>
                      ) : (
                        'none'
                      )}
                    </td>
                    <td class={h.ips?.length ? 'mono break' : 'break'}>{h.ips === undefined ? 'not shown while disabled' : h.ips.join(', ') || 'none'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p class="muted">This account has no subaccounts.</p>
        )
      ) : null}
      {admin && open.length ? (
        <div class="split">
          <DelegateForm
            what="pool"
            field="pool_id"
            choices={own.map((candidate) => [candidate.pool_id, candidate.name] as const)}
            subaccounts={subaccounts}
            path={(id) => p`/v5/accounts/subaccounts/${id}/ip_pool`}
            onStart={() => setNotice(undefined)}
            onDone={(id) => delegated(`Pool ${poolName(id)}`)}
          />
          <DelegateForm
            what="IP"
            field="ip"
            choices={ips.map((address) => [address, address] as const)}
            subaccounts={subaccounts}
            path={(id) => p`/v5/accounts/subaccounts/${id}/ip`}
            onStart={() => setNotice(undefined)}
            onDone={(address) => delegated(`IP ${address}`)}
          />
        </div>
      ) : null}
    </section>
  );
}
