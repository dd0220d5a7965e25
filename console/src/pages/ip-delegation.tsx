import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { listSubaccounts, type Subaccount } from '../account-switch';
import { can, credentials, useAppState } from '../session';
import { FieldError, invalidProps, useFieldAction } from '../ui/field-errors';
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

/**
 * Delegating the parent's pools and dedicated IPs to its subaccounts: who has what, delegate,
 * revoke a pool. Mailgun has no way to take back a delegated IP, so neither has this page.
 */
export function Delegation({ pools, ips }: { pools: DelegablePool[]; ips: string[] }) {
  const { region } = useAppState();
  const holdings = useLoad(loadHoldings, [region, pools]);
  const pool = useFieldAction((m) => (/pool/i.test(m) ? 'pool_id' : /subaccount/i.test(m) ? 'subaccount_id' : undefined));
  const ip = useFieldAction((m) => (/^IP /.test(m) ? 'ip' : /subaccount/i.test(m) ? 'subaccount_id' : undefined));
  const revoke = useAction();
  const [notice, setNotice] = useState<string>();
  const admin = can('admin');
  const own = pools.filter((candidate) => !candidate.is_inherited);
  const poolName = (id: string) => own.find((candidate) => candidate.pool_id === id)?.name ?? id;
  const open = (holdings.data ?? []).filter((h) => h.subaccount.status === 'open');
  const subaccountSelect = (id: string, error: ReturnType<typeof useFieldAction>['error']) => (
    <div class="field">
      <label for={id}>Subaccount</label>
      <select id={id} name="subaccount_id" required {...invalidProps(error, 'subaccount_id', id)}>
        {open.map((h) => (
          <option key={h.subaccount.id} value={h.subaccount.id}>
            {h.subaccount.name}
          </option>
        ))}
      </select>
      <FieldError error={error} field="subaccount_id" id={id} />
    </div>
  );
  return (
    <section aria-labelledby="delegation-h">
      <h2 id="delegation-h">Delegated to subaccounts</h2>
      <p class="muted">A subaccount uses the pools and IPs delegated to it for its own domains; only this account changes them.</p>
      <ul class="rules muted">
        <li>An IP in one of this account's pools or dynamic pool bands cannot be delegated.</li>
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
                    <td class="mono break">{h.ips === undefined ? 'not shown while disabled' : h.ips.join(', ') || 'none'}</td>
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
        <div class="row">
          <form
            class="panel stack grow"
            aria-label="Delegate a pool"
            onSubmit={(e) => {
              e.preventDefault();
              const f = fieldsOf(e.currentTarget);
              setNotice(undefined);
              void pool.run(() => call(asParent(), 'PUT', p`/v5/accounts/subaccounts/${f.subaccount_id!}/ip_pool`, { form: { pool_id: f.pool_id } })).then((ok) => ok && (setNotice(`Pool ${poolName(f.pool_id!)} delegated.`), holdings.reload()));
            }}
          >
            <h3>Delegate a pool</h3>
            {subaccountSelect('delegate-pool-sub', pool.error)}
            <div class="field">
              <label for="delegate-pool">Pool</label>
              <select id="delegate-pool" name="pool_id" required {...invalidProps(pool.error, 'pool_id', 'delegate-pool')}>
                {own.map((candidate) => (
                  <option key={candidate.pool_id} value={candidate.pool_id}>
                    {candidate.name}
                  </option>
                ))}
              </select>
              <FieldError error={pool.error} field="pool_id" id="delegate-pool" />
            </div>
            <div class="actions">
              <button type="submit" class="primary" disabled={pool.busy || !own.length}>
                Delegate pool
              </button>
            </div>
            {pool.error?.field === 'form' ? <ErrorText error={pool.error.message} /> : null}
          </form>
          <form
            class="panel stack grow"
            aria-label="Delegate an IP"
            onSubmit={(e) => {
              e.preventDefault();
              const f = fieldsOf(e.currentTarget);
              setNotice(undefined);
              void ip.run(() => call(asParent(), 'PUT', p`/v5/accounts/subaccounts/${f.subaccount_id!}/ip`, { form: { ip: f.ip } })).then((ok) => ok && (setNotice(`IP ${f.ip} delegated.`), holdings.reload()));
            }}
          >
            <h3>Delegate an IP</h3>
            {subaccountSelect('delegate-ip-sub', ip.error)}
            <div class="field">
              <label for="delegate-ip">IP</label>
              <select id="delegate-ip" name="ip" required {...invalidProps(ip.error, 'ip', 'delegate-ip')}>
                {ips.map((address) => (
                  <option key={address} value={address}>
                    {address}
                  </option>
                ))}
              </select>
              <FieldError error={ip.error} field="ip" id="delegate-ip" />
            </div>
            <div class="actions">
              <button type="submit" class="primary" disabled={ip.busy || !ips.length}>
                Delegate IP
              </button>
            </div>
            {ip.error?.field === 'form' ? <ErrorText error={ip.error.message} /> : null}
          </form>
        </div>
      ) : null}
    </section>
  );
}
