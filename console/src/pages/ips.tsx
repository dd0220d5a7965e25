import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { can, credentials, serviceHeaders, useAppState } from '../session';
import { listDomains } from '../ui/domain-picker';
import { Checkboxes, FieldError, invalidProps, placeError, valuesOf, type PlacedError } from '../ui/field-errors';
import { useAction, useLoad } from '../ui/load';
import { countOf, ErrorText, fieldsOf, formatDate, Head, Loading, Notice, Options, Page } from '../ui/widgets';
import { Delegation } from './ip-delegation';
import { listDelegates, listIps, listPools, type IpList, type Pool } from './ips.load';

interface PoolDetails extends Pool {
  linked_domains?: string[];
}

interface Warmup {
  ip: string;
  sent_within_stage: string;
  throttle: number;
  stage_number: number;
  stage_volume_limit: number;
  total_stages?: number;
  hourly_limit?: number;
  sent_this_hour?: number;
  stage_started_at?: string;
  plan_started_at?: string;
}

interface DynamicPools {
  pools: Array<{ name: string; enabled: boolean; ips: string[] }>;
  good_reputation: string[];
  poor_reputation: string[];
  new_senders: string[];
}

interface EnrolledDomain {
  name: string;
  account_name?: string;
  pool: string;
  override?: string | null;
  bounce_rate?: number;
  complaint_rate?: number;
}

/** The field a pool edit's error is about, from the platform's message (the contract's rules). */
function poolField(message: string): string | undefined {
  if (/named .* already exists/.test(message)) return 'name';
  if (/^Domain /.test(message)) return 'domains';
  if (/replacement|pool_id|shared|^An IP pool with IPs can be deleted/.test(message)) return 'replacement';
  if (/\bIPs?\b/.test(message)) return 'ips';
  return undefined;
}

/** The IPs section: each dedicated IP with its pool, warm-up and the domains sending from it. */
function DedicatedIps({ list, pools }: { list: IpList; pools: Pool[] }) {
  const domains = useLoad(
    async (signal) => {
      const entries = await Promise.all(
        list.items.map(async (ip) => {
          const reply = await call<{ items: Array<{ domain: string }>; total_count: number }>(credentials(), 'GET', p`/v3/ips/${ip}/domains`, { query: { limit: 20, skip: 0 }, signal });
          return [ip, reply] as const;
        }),
      );
      return new Map(entries);
    },
    [list],
  );
  const poolOf = (ip: string) => pools.find((pool) => pool.ips.includes(ip));
  return (
    <section aria-labelledby="ips-h">
      <h2 id="ips-h">Dedicated IPs</h2>
      <ErrorText error={domains.error} />
      <div class="table-wrap" tabIndex={0}>
        <table>
          <caption class="muted">{list.total_count} dedicated IPs</caption>
          <Head columns={['IP', 'Pool', 'Warm-up', 'Domains sending from it']} />
          <tbody>
            {list.items.map((ip) => {
              const used = domains.data?.get(ip);
              return (
                <tr key={ip}>
                  <td class="mono">{ip}</td>
                  <td class="break">{poolOf(ip)?.name ?? (list.assignable_to_pools.includes(ip) ? 'none (assignable to a pool)' : '')}</td>
                  <td>{list.details?.find((d) => d.ip === ip)?.is_on_warmup ? <span class="badge wait">warming up</span> : <span class="badge ok">ready</span>}</td>
                  <td class="break">{used ? (used.items.length ? `${used.items.map((d) => d.domain).join(', ')}${used.total_count > used.items.length ? ` and ${used.total_count - used.items.length} more` : ''}` : 'none') : domains.loading ? 'Loading…' : ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {!list.items.length ? <p class="muted">This account has no dedicated IPs.</p> : null}
      </div>
    </section>
  );
}

function CreatePool({ assignable, onCreated }: { assignable: string[]; onCreated: () => void }) {
  const [error, setError] = useState<PlacedError>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="panel stack"
      aria-label="Create IP pool"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const f = fieldsOf(form);
        setBusy(true);
        setError(undefined);
        call(credentials(), 'POST', '/v3/ip_pools', { form: { name: f.name, description: f.description, ip: valuesOf(form, 'ip') } }).then(
          () => (setBusy(false), form.reset(), onCreated()),
          (e: unknown) => (setBusy(false), setError(placeError(e, poolField))),
        );
      }}
    >
      <h3>Create IP pool</h3>
      <div class="field">
        <label for="pool-name">Pool name</label>
        <input id="pool-name" name="name" required autocomplete="off" {...invalidProps(error, 'name', 'pool-name')} />
        <FieldError error={error} field="name" id="pool-name" />
      </div>
      <div class="field">
        <label for="pool-description">Description</label>
        <input id="pool-description" name="description" required autocomplete="off" {...invalidProps(error, 'description', 'pool-description')} />
        <FieldError error={error} field="description" id="pool-description" />
      </div>
      <Checkboxes legend="IPs (dedicated, in no other pool)" name="ip" values={assignable} id="pool-ips" error={error} field="ips" empty="Every dedicated IP is in a pool already." />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Create pool
        </button>
      </div>
      {error?.field === 'form' ? <ErrorText error={error.message} /> : null}
    </form>
  );
}

/** Editing a pool: its name, description, IPs and linked domains, in one PATCH (rule 7: an edit must change something). */
function EditPool({ pool, assignable, onDone }: { pool: Pool; assignable: string[]; onDone: (changed: boolean) => void }) {
  const details = useLoad((signal) => call<{ details: PoolDetails }>(credentials(), 'GET', p`/v3/ip_pools/${pool.pool_id}`, { signal }).then((r) => r.details), [pool.pool_id]);
  const domains = useLoad((signal) => listDomains(signal), [pool.pool_id]);
  const [error, setError] = useState<PlacedError>();
  const [busy, setBusy] = useState(false);
  const linked = details.data?.linked_domains ?? [];
  const linkable = (domains.data ?? []).filter((d) => d.type !== 'sandbox' && !linked.includes(d.name)).map((d) => d.name);
  return (
    <section class="panel" aria-labelledby="edit-pool-h">
      <h3 id="edit-pool-h">Edit pool {pool.name}</h3>
      <ul class="rules muted">
        <li>IPs added must be dedicated IPs of this account and in no other pool.</li>
        <li>A pool linked to domains keeps at least one IP.</li>
        <li>An edit that changes nothing is refused.</li>
      </ul>
      <ErrorText error={details.error} />
      {details.data ? (
        <form
          class="stack"
          aria-label={`Edit pool ${pool.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const f = fieldsOf(form);
            const keep = valuesOf(form, 'keep_ip');
            const keepDomains = valuesOf(form, 'keep_domain');
            setBusy(true);
            setError(undefined);
            call(credentials(), 'PATCH', p`/v3/ip_pools/${pool.pool_id}`, {
              headers: serviceHeaders(),
              form: {
                name: f.name !== pool.name ? f.name : undefined,
                description: f.description !== pool.description ? f.description : undefined,
                add_ip: valuesOf(form, 'add_ip'),
                remove_ip: pool.ips.filter((ip) => !keep.includes(ip)),
                link_domain: valuesOf(form, 'link_domain'),
                unlink_domain: linked.filter((d) => !keepDomains.includes(d)),
              },
            }).then(
              () => (setBusy(false), onDone(true)),
              (e: unknown) => (setBusy(false), setError(placeError(e, poolField))),
            );
          }}
        >
          <div class="field">
            <label for="edit-name">Pool name</label>
            <input id="edit-name" name="name" required defaultValue={pool.name} autocomplete="off" {...invalidProps(error, 'name', 'edit-name')} />
            <FieldError error={error} field="name" id="edit-name" />
          </div>
          <div class="field">
            <label for="edit-description">Description</label>
            <input id="edit-description" name="description" defaultValue={pool.description} autocomplete="off" {...invalidProps(error, 'description', 'edit-description')} />
            <FieldError error={error} field="description" id="edit-description" />
          </div>
          <Checkboxes legend="IPs in the pool (clear one to remove it)" name="keep_ip" values={pool.ips} checked={pool.ips} id="edit-ips" error={error} field="ips" />
          <Checkboxes legend="Add IPs" name="add_ip" values={assignable} id="edit-add-ips" empty="No dedicated IP is free to add." />
          <Checkboxes legend="Linked domains (clear one to unlink it)" name="keep_domain" values={linked} checked={linked} id="edit-domains" error={error} field="domains" empty="No domain is linked." />
          <Checkboxes legend="Link domains" name="link_domain" values={linkable} id="edit-link" empty={domains.loading ? 'Loading…' : 'No other domain can be linked.'} />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Save pool
            </button>
            <button type="button" onClick={() => onDone(false)}>
              Cancel
            </button>
          </div>
          {error?.field === 'form' ? <ErrorText error={error.message} /> : null}
        </form>
      ) : details.loading ? (
        <Loading what="pool" />
      ) : null}
    </section>
  );
}

/** Deleting a pool names what its domains move to (rules 3 to 5). */
function DeletePool({ pool, pools, dedicated, onDone }: { pool: Pool; pools: Pool[]; dedicated: string[]; onDone: (changed: boolean) => void }) {
  const [kind, setKind] = useState<'pool' | 'ip' | 'none'>(pool.ips.length ? 'pool' : 'none');
  const [error, setError] = useState<PlacedError>();
  const [busy, setBusy] = useState(false);
  const others = pools.filter((other) => other.pool_id !== pool.pool_id);
  return (
    <section class="panel" aria-labelledby="delete-pool-h">
      <h3 id="delete-pool-h">Delete pool {pool.name}</h3>
      <ul class="rules muted">
        <li>A replacement pool takes over the linked domains; it must hold at least one IP.</li>
        <li>A replacement IP must be dedicated and in no other pool; "shared" sends from the shared IPs.</li>
        <li>Without a replacement, only a pool with no IPs can be deleted.</li>
      </ul>
      <form
        class="stack"
        aria-label={`Delete pool ${pool.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          const f = fieldsOf(e.currentTarget);
          setBusy(true);
          setError(undefined);
          call(credentials(), 'DELETE', p`/v3/ip_pools/${pool.pool_id}`, {
            headers: serviceHeaders(),
            query: kind === 'pool' ? { pool_id: f.replacement_pool } : kind === 'ip' ? { ip: f.replacement_ip } : {},
          }).then(
            () => (setBusy(false), onDone(true)),
            (e: unknown) => (setBusy(false), setError(placeError(e, poolField))),
          );
        }}
      >
        <fieldset class="checks" aria-describedby={error?.field === 'replacement' ? 'replacement-error' : undefined}>
          <legend>Replacement</legend>
          {(['pool', 'ip', 'none'] as const).map((k) => (
            <label class="check" key={k}>
              <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} /> {k === 'pool' ? 'Another pool' : k === 'ip' ? 'An IP (or shared)' : 'None'}
            </label>
          ))}
          <FieldError error={error} field="replacement" id="replacement" />
        </fieldset>
        {kind === 'pool' ? (
          <div class="field">
            <label for="replacement-pool">Replacement pool</label>
            <select id="replacement-pool" name="replacement_pool" required>
              {others.map((other) => (
                <option key={other.pool_id} value={other.pool_id}>
                  {other.name} ({countOf(other.ips.length, 'IP')})
                </option>
              ))}
            </select>
          </div>
        ) : null}
        {kind === 'ip' ? (
          <div class="field">
            <label for="replacement-ip">Replacement IP</label>
            <select id="replacement-ip" name="replacement_ip" required>
              <option value="shared">shared</option>
              <Options values={dedicated} />
            </select>
          </div>
        ) : null}
        <div class="actions">
          <button type="submit" class="danger" disabled={busy}>
            Delete pool
          </button>
          <button type="button" onClick={() => onDone(false)}>
            Cancel
          </button>
        </div>
        {error && error.field !== 'replacement' ? <ErrorText error={error.message} /> : null}
      </form>
    </section>
  );
}

function Pools({ list, pools, reload }: { list: IpList; pools: Pool[]; reload: () => void }) {
  const [editing, setEditing] = useState<string>();
  const [deleting, setDeleting] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const admin = can('admin');
  const done = (what: string) => (changed: boolean) => {
    setEditing(undefined);
    setDeleting(undefined);
    setNotice(changed ? what : undefined);
    if (changed) reload();
  };
  const editPool = pools.find((pool) => pool.pool_id === editing);
  const deletePool = pools.find((pool) => pool.pool_id === deleting);
  return (
    <section aria-labelledby="pools-h">
      <h2 id="pools-h">IP pools</h2>
      {notice ? <Notice>{notice}</Notice> : null}
      <div class="table-wrap" tabIndex={0}>
        <table>
          <caption class="muted">{countOf(pools.length, 'IP pool')}</caption>
          <Head columns={['Name', 'Description', 'IPs', 'Linked', admin && 'Actions']} />
          <tbody>
            {pools.map((pool) => (
              <tr key={pool.pool_id} class={pool.pool_id === editing || pool.pool_id === deleting ? 'selected' : ''}>
                <td class="break">
                  {pool.name}
                  {pool.is_inherited ? <span class="badge"> inherited</span> : null}
                </td>
                <td class="break">{pool.description}</td>
                <td class="mono break">{pool.ips.join(', ') || 'none'}</td>
                <td>{pool.is_linked ? 'yes' : 'no'}</td>
                {admin ? (
                  <td class="actions">
                    {!pool.is_inherited ? (
                      <>
                        <button type="button" class="small" aria-label={`Edit pool ${pool.name}`} onClick={() => (setDeleting(undefined), setNotice(undefined), setEditing(pool.pool_id))}>
                          Edit
                        </button>
                        <button type="button" class="small danger" aria-label={`Delete pool ${pool.name}`} onClick={() => (setEditing(undefined), setNotice(undefined), setDeleting(pool.pool_id))}>
                          Delete
                        </button>
                      </>
                    ) : (
                      <span class="muted">from the parent account</span>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
        {!pools.length ? <p class="muted">No IP pools yet.</p> : null}
      </div>
      {editPool ? <EditPool key={editPool.pool_id} pool={editPool} assignable={list.assignable_to_pools} onDone={done(`Pool ${editPool.name} saved.`)} /> : null}
      {deletePool ? <DeletePool key={deletePool.pool_id} pool={deletePool} pools={pools} dedicated={list.items} onDone={done(`Pool ${deletePool.name} is being deleted; its domains move to the replacement.`)} /> : null}
      {admin ? <CreatePool assignable={list.assignable_to_pools} onCreated={() => (setNotice('Pool created.'), reload())} /> : null}
    </section>
  );
}

const BANDS = [
  ['good_reputation', 'Good reputation'],
  ['poor_reputation', 'Poor reputation'],
  ['new_senders', 'New senders'],
] as const;

/** The band field an error is about: the band it names (`dynamic_good` …), or the field holding the IP it names. */
function bandField(given: Record<string, string[]>) {
  return (message: string): string | undefined => {
    if (/^dynamic_good/.test(message)) return 'good_reputation';
    if (/^dynamic_poor/.test(message)) return 'poor_reputation';
    if (/^dynamic_new/.test(message)) return 'new_senders';
    const ip = /^IP (\S+)/.exec(message)?.[1];
    return ip ? Object.keys(given).find((band) => given[band]!.includes(ip)) : undefined;
  };
}

function Dynamic() {
  const { region } = useAppState();
  const pools = useLoad((signal) => call<DynamicPools>(credentials(), 'GET', '/v3/dynamic_pools', { signal }), [region]);
  const enrolled = useLoad((signal) => call<{ items: EnrolledDomain[] }>(credentials(), 'GET', '/v1/dynamic_pools/domains', { query: { limit: 100 }, signal }), [region]);
  const domains = useLoad((signal) => listDomains(signal), [region]);
  const [error, setError] = useState<PlacedError>();
  const [busy, setBusy] = useState(false);
  const enroll = useAction();
  const split = (value: string | undefined) => (value ?? '').split(/[\s,]+/).filter(Boolean);
  const enrolledNames = new Set(enrolled.data?.items.map((d) => d.name));
  const enrollable = (domains.data ?? []).filter((d) => d.type !== 'sandbox' && !enrolledNames.has(d.name)).map((d) => d.name);
  const enrollment = (work: () => Promise<unknown>) =>
    void enroll.run(async () => {
      await work();
      enrolled.reload();
    });
  return (
    <section aria-labelledby="dynamic-h">
      <h2 id="dynamic-h">Dynamic IP pools</h2>
      <p class="muted">Enrolled domains move between reputation bands by their bounce and complaint rates; each band sends from its IPs.</p>
      <ul class="rules muted">
        <li>A band's IPs are dedicated IPs of the account, in no IP pool and no other band.</li>
        <li>Every band keeps at least one IP that is not warming up.</li>
      </ul>
      <ErrorText error={pools.error} />
      {pools.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <caption class="muted">Bands</caption>
            <Head columns={['Band', 'IPs']} />
            <tbody>
              {BANDS.map(([key, label]) => (
                <tr key={key}>
                  <td>{label}</td>
                  <td class="mono break">{pools.data![key].join(', ') || 'none'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {can('admin') && pools.data ? (
        <form
          class="panel stack"
          aria-label="Set dynamic IP pools"
          onSubmit={(e) => {
            e.preventDefault();
            const f = fieldsOf(e.currentTarget);
            const given = { good_reputation: split(f.good_reputation), poor_reputation: split(f.poor_reputation), new_senders: split(f.new_senders) };
            setBusy(true);
            setError(undefined);
            call(credentials(), 'POST', '/v3/dynamic_pools/all', { form: given }).then(
              () => (setBusy(false), pools.reload()),
              (e: unknown) => (setBusy(false), setError(placeError(e, bandField(given)))),
            );
          }}
        >
          <h3>Set the bands' IPs</h3>
          {BANDS.map(([key, label]) => (
            <div class="field" key={key}>
              <label for={`band-${key}`}>{label} IPs (separated by commas)</label>
              <input id={`band-${key}`} name={key} defaultValue={pools.data![key].join(', ')} autocomplete="off" {...invalidProps(error, key, `band-${key}`)} />
              <FieldError error={error} field={key} id={`band-${key}`} />
            </div>
          ))}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Save bands
            </button>
          </div>
          {error && !BANDS.some(([key]) => key === error.field) ? <ErrorText error={error.message} /> : null}
        </form>
      ) : null}
      <h3>Enrolled domains</h3>
      <ErrorText error={enrolled.error} />
      {enrolled.data ? (
        enrolled.data.items.length ? (
          <div class="table-wrap" tabIndex={0}>
            <table>
              <Head columns={['Domain', 'Band', 'Override', 'Bounce rate', 'Complaint rate', can('write') && 'Actions']} />
              <tbody>
                {enrolled.data.items.map((d) => (
                  <tr key={d.name}>
                    <td class="break">{d.name}</td>
                    <td>{d.pool}</td>
                    <td>{d.override ?? ''}</td>
                    <td>{d.bounce_rate ?? ''}</td>
                    <td>{d.complaint_rate ?? ''}</td>
                    {can('write') ? (
                      <td>
                        <button type="button" class="small danger" aria-label={`Move ${d.name} to the shared IPs`} onClick={() => enrollment(() => call(credentials(), 'DELETE', p`/v3/domains/${d.name}/dynamic_pools`, { query: { replacement_ip: 'shared' } }))}>
                          Move to shared IPs
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p class="muted">No domain is enrolled in dynamic IP pools.</p>
        )
      ) : null}
      <ErrorText error={enroll.error} />
      {can('write') && pools.data?.pools.length && enrollable.length ? (
        <form
          class="panel row"
          aria-label="Enroll domain in dynamic IP pools"
          onSubmit={(e) => {
            e.preventDefault();
            const { domain } = fieldsOf(e.currentTarget);
            enrollment(() => call(credentials(), 'POST', p`/v3/domains/${domain!}/dynamic_pools`));
          }}
        >
          <div class="field">
            <label for="enroll-domain">Domain to enroll</label>
            <select id="enroll-domain" name="domain">
              <Options values={enrollable} />
            </select>
          </div>
          <button type="submit" class="primary">
            Enroll domain
          </button>
        </form>
      ) : null}
    </section>
  );
}

function percent(share: string): number {
  const n = Number.parseFloat(share);
  return Number.isFinite(n) ? Math.max(0, Math.min(100, n)) : 0;
}

function Warmups({ list, reload }: { list: IpList; reload: () => void }) {
  const { region } = useAppState();
  const warmups = useLoad(
    async (signal) => {
      const reply = await call<{ items: Warmup[] }>(credentials(), 'GET', '/v3/ip_warmups', { query: { limit: 100 }, signal });
      return Promise.all(reply.items.map(async (item) => ({ ...item, ...(await call<{ details: Warmup }>(credentials(), 'GET', p`/v3/ip_warmups/${item.ip}`, { signal })).details })));
    },
    [region, list],
  );
  const action = useAction();
  const warming = new Set(warmups.data?.map((w) => w.ip));
  const idle = list.items.filter((ip) => !warming.has(ip));
  const change = (work: () => Promise<unknown>) =>
    void action.run(async () => {
      await work();
      reload();
    });
  return (
    <section aria-labelledby="warmup-h">
      <h2 id="warmup-h">IP warm-up</h2>
      <p class="muted">A warming IP sends a capped volume an hour, stage by stage; the rest of its mail goes out from the shared IPs.</p>
      <ErrorText error={warmups.error ?? action.error} />
      {warmups.data ? (
        warmups.data.length ? (
          <div class="table-wrap" tabIndex={0}>
            <table>
              <Head columns={['IP', 'Stage', 'Progress in stage', 'Hourly limit', 'Stage volume', 'Stage started', can('admin') && 'Actions']} />
              <tbody>
                {warmups.data.map((w) => (
                  <tr key={w.ip}>
                    <td class="mono">{w.ip}</td>
                    <td>
                      {w.stage_number}
                      {w.total_stages ? ` of ${w.total_stages}` : ''}
                    </td>
                    <td>
                      <progress max={100} value={percent(w.sent_within_stage)} aria-label={`Progress of ${w.ip} in stage ${w.stage_number}`} /> {w.sent_within_stage}
                    </td>
                    <td>
                      {w.sent_this_hour ?? 0} / {w.hourly_limit ?? w.throttle} this hour
                    </td>
                    <td>{w.stage_volume_limit}</td>
                    <td>{formatDate(w.stage_started_at)}</td>
                    {can('admin') ? (
                      <td>
                        <button type="button" class="small danger" aria-label={`Cancel warm-up of ${w.ip}`} onClick={() => change(() => call(credentials(), 'DELETE', p`/v3/ip_warmups/${w.ip}`))}>
                          Cancel warm-up
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p class="muted">No IP is warming up.</p>
        )
      ) : warmups.loading ? (
        <Loading what="warm-ups" />
      ) : null}
      {can('admin') && idle.length ? (
        <form
          class="panel row"
          aria-label="Start warm-up"
          onSubmit={(e) => {
            e.preventDefault();
            const ip = fieldsOf(e.currentTarget).ip!;
            change(() => call(credentials(), 'POST', p`/v3/ip_warmups/${ip}`));
          }}
        >
          <div class="field">
            <label for="warm-ip">IP to warm up</label>
            <select id="warm-ip" name="ip">
              <Options values={idle} />
            </select>
          </div>
          <button type="submit" class="primary">
            Start warm-up
          </button>
        </form>
      ) : null}
    </section>
  );
}

export default function Ips() {
  const { region } = useAppState();
  const data = useLoad(
    async (signal) => {
      const [list, pools, subaccounts] = await Promise.all([listIps(signal), listPools(signal), listDelegates(signal)]);
      return { list, pools: pools.ip_pools, delegates: Boolean(subaccounts?.length) };
    },
    [region],
  );
  return (
    <Page title="IPs">
      <ErrorText error={data.error} />
      {data.loading && !data.data ? <Loading what="IPs" /> : null}
      {data.data ? (
        <>
          <DedicatedIps list={data.data.list} pools={data.data.pools} />
          <Pools list={data.data.list} pools={data.data.pools} reload={data.reload} />
          {data.data.delegates ? <Delegation pools={data.data.pools} ips={data.data.list.items} /> : null}
          <Warmups list={data.data.list} reload={data.reload} />
          <Dynamic />
        </>
      ) : null}
    </Page>
  );
}
