import { BlocklistEventsTable, loadBlocklistEvents } from './blocklist-events';
import { useEffect, useState } from 'preact/hooks';
import { call, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { Chart, daySeconds } from '../ui/chart';
import { useAction, useLoad, type Loaded } from '../ui/load';
import { DOMAIN_EVENTS, fetchBlocklists, fetchManagedDomains, fetchMonitoredDomains, fetchMonitoredIps } from './blocklists.load';
import { ConfirmButton, ErrorText, fieldsOf, formatDate, Head, Loading, Notice, Page } from '../ui/widgets';
import { RefreshHead } from '../ui/form-parts';
import './optimize.css';

const ZERO_TIME = '0001-01-01T00:00:00Z';

interface Listing {
  list: string;
  name: string;
  comments: string[];
  first_seen: string | null;
  last_seen: string;
}
interface UnknownList {
  list: string;
  name: string;
  reason: string;
}
export interface MonitoredIp {
  ip: string;
  ip_pool: string;
  description: string;
  state: 'healthy' | 'listed' | 'unknown';
  listed: Listing[];
  unknown_lists: UnknownList[];
  last_checked_at: string;
}
interface MonitoredDomain {
  domain: string;
  updated_at: string;
  state: 'healthy' | 'listed' | 'unknown';
  listed: Listing[];
  unknown_lists: UnknownList[];
  last_checked_at: string;
}
interface ManagedDomain {
  name: string;
  verified: { status: string };
  txt_record: string;
}

/** Until every subject had its first check, loads again every few seconds. */
function useUntilChecked<T>(loaded: Loaded<T>, subjects: (data: T) => Array<{ last_checked_at: string }>) {
  const waiting = loaded.data !== undefined && subjects(loaded.data).some((s) => s.last_checked_at === ZERO_TIME);
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(loaded.reload, 3000);
    return () => clearTimeout(timer);
  }, [loaded.data]);
}

export function StateBadge({ state }: { state: string }) {
  const kind = state === 'healthy' ? 'ok' : state === 'listed' ? 'bad' : 'wait';
  return <span class={`badge ${kind}`}>{state}</span>;
}

/** One subject on one list: listed (with since when), not listed, or unknown with why. */
function ListCell({ zone, subject, common }: { zone: string; subject: { listed: Listing[]; unknown_lists: UnknownList[]; checked: boolean }; common?: string }) {
  const listed = subject.listed.find((l) => l.list === zone);
  if (listed) {
    return (
      <td class="break">
        <span class="badge bad">listed</span> {listed.first_seen ? <span class="muted">since {formatDate(listed.first_seen)}</span> : null}
        <ul class="plain">
          {listed.comments.map((c, i) => (
            <li key={i}>{c}</li>
          ))}
        </ul>
      </td>
    );
  }
  const unknown = subject.unknown_lists.find((l) => l.list === zone);
  if (unknown || !subject.checked) {
    return (
      <td class="break">
        <span class="badge wait">unknown</span> {unknown && unknown.reason === common ? null : <span class="muted">{unknown?.reason ?? 'not checked yet'}</span>}
      </td>
    );
  }
  return (
    <td>
      <span class="badge ok">not listed</span>
    </td>
  );
}

function IpSection({ onChange }: { onChange: () => void }) {
  const { region } = useAppState();
  const lists = useLoad((signal) => fetchBlocklists<{ items: Array<{ blocklist: string; name: string }> }>(signal), [region]);
  const ips = useLoad((signal) => fetchMonitoredIps<{ items: MonitoredIp[] }>(signal), [region]);
  const act = useAction();
  useUntilChecked(ips, (data) => data.items);
  const zones = lists.data?.items ?? [];
  // One reason for every unknown list (no resolver, most often) is said once, above the table.
  const reasons = new Set(ips.data?.items.flatMap((ip) => ip.unknown_lists.map((l) => l.reason)));
  const common = reasons.size === 1 ? [...reasons][0] : undefined;
  const refresh = () => (ips.reload(), onChange());
  return (
    <section aria-labelledby="ips-h">
      <RefreshHead id="ips-h" title="IP addresses" refreshLabel="Refresh" onRefresh={refresh} loading={ips.loading} />
      {can('write') ? (
        <form
          class="panel row"
          aria-label="Monitor an IP address"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const f = fieldsOf(form);
            void act.run(async () => {
              await call(credentials(), 'POST', '/v1/inboxready/ip_addresses', { json: { ip: f['ip']!.trim(), ip_pool: f['ip_pool'] || undefined, description: f['description'] || undefined } });
              form.reset();
              refresh();
            });
          }}
        >
          <div class="field">
            <label for="bl-ip">IP address</label>
            <input id="bl-ip" name="ip" required inputMode="decimal" autocomplete="off" placeholder="203.0.113.7" />
          </div>
          <div class="field">
            <label for="bl-pool">IP pool</label>
            <input id="bl-pool" name="ip_pool" autocomplete="off" />
          </div>
          <div class="field grow">
            <label for="bl-desc">Description</label>
            <input id="bl-desc" name="description" autocomplete="off" />
          </div>
          <button type="submit" class="primary" disabled={act.busy}>
            Add IP address
          </button>
        </form>
      ) : null}
      <ErrorText error={act.error ?? ips.error ?? lists.error} />
      {ips.loading && !ips.data ? <Loading what="monitored IP addresses" /> : null}
      {common ? <Notice>Unknown lists below: {common}.</Notice> : null}
      {ips.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table aria-busy={ips.loading}>
            <caption class="muted">Monitored IP addresses and their state on each list</caption>
            <Head columns={['IP address', 'State', ...zones.map((z) => z.name), 'Pool', 'Description', 'Last checked', can('write') && 'Actions']} />
            <tbody>
              {ips.data.items.map((ip) => (
                <tr key={ip.ip}>
                  <th scope="row" class="mono">
                    {ip.ip}
                  </th>
                  <td>
                    <StateBadge state={ip.state} />
                  </td>
                  {zones.map((z) => (
                    <ListCell key={z.blocklist} zone={z.blocklist} common={common} subject={{ ...ip, checked: ip.last_checked_at !== ZERO_TIME }} />
                  ))}
                  <td class="break">{ip.ip_pool}</td>
                  <td class="break">{ip.description}</td>
                  <td>{ip.last_checked_at === ZERO_TIME ? 'not yet' : formatDate(ip.last_checked_at)}</td>
                  {can('write') ? (
                    <td class="actions">
                      <ConfirmButton
                        class="small danger"
                        label={`Remove ${ip.ip}`}
                        question={`Stop monitoring ${ip.ip}? Its events stay.`}
                        confirmLabel="Remove"
                        onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', p`/v1/inboxready/ip_addresses/${ip.ip}`), refresh()))}
                      />
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
          {!ips.data.items.length ? <p class="muted">No IP addresses are monitored.</p> : null}
        </div>
      ) : null}
    </section>
  );
}

function DomainSection({ onChange }: { onChange: () => void }) {
  const { region } = useAppState();
  const monitored = useLoad((signal) => fetchMonitoredDomains<{ domains: MonitoredDomain[]; blocklists: Array<{ list: string; name: string }> }>(signal), [region]);
  const managed = useLoad((signal) => fetchManagedDomains<{ items: ManagedDomain[] }>(signal), [region]);
  const act = useAction();
  const reload = () => (monitored.reload(), managed.reload(), onChange());
  const byName = new Map(monitored.data?.domains.map((d) => [d.domain, d]));
  const lists = monitored.data?.blocklists ?? [];
  useUntilChecked(monitored, (data) => data.domains);
  return (
    <section aria-labelledby="domains-h">
      <RefreshHead id="domains-h" title="Domains" refreshLabel="Refresh domains" onRefresh={reload} loading={monitored.loading} />
      <p class="muted">Verified managed domains are watched on Spamhaus DBL, URIBL and SURBL. A sending domain of the account is verified at once; another is verified once its apex publishes the TXT record shown.</p>
      {can('write') ? (
        <form
          class="panel row"
          aria-label="Monitor a domain"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const domain = fieldsOf(form)['domain']!.trim();
            void act.run(async () => {
              await call(credentials(), 'POST', '/v1/inboxready/domains', { query: { domain } });
              form.reset();
              reload();
            });
          }}
        >
          <div class="field grow">
            <label for="bl-domain">Domain to monitor</label>
            <input id="bl-domain" name="domain" required autocomplete="off" />
          </div>
          <button type="submit" class="primary" disabled={act.busy}>
            Add domain
          </button>
        </form>
      ) : null}
      <ErrorText error={act.error ?? monitored.error ?? managed.error} />
      {managed.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <caption class="muted">Managed domains and their state on the domain lists</caption>
            <Head columns={['Domain', 'Verification', 'State', ...lists.map((l) => l.name), 'Last checked', can('write') && 'Actions']} />
            <tbody>
              {managed.data.items.map((d) => {
                const m = byName.get(d.name);
                return (
                  <tr key={d.name}>
                    <th scope="row" class="break">
                      {d.name}
                    </th>
                    <td class="break">
                      {d.verified.status}
                      {d.verified.status === 'pending' ? <div class="muted mono">TXT {d.txt_record}</div> : null}
                    </td>
                    <td>{m ? <StateBadge state={m.state} /> : <span class="muted">not monitored until verified</span>}</td>
                    {lists.map((l) => (m ? <ListCell key={l.list} zone={l.list} subject={{ ...m, checked: m.last_checked_at !== ZERO_TIME }} /> : <td key={l.list} />))}
                    <td>{!m ? '' : m.last_checked_at === ZERO_TIME ? 'not yet' : formatDate(m.last_checked_at)}</td>
                    {can('write') ? (
                      <td class="actions">
                        {d.verified.status === 'pending' ? (
                          <button type="button" class="small" onClick={() => void act.run(async () => (await call(credentials(), 'PUT', '/v1/inboxready/domains/verify', { query: { domain: d.name } }), reload()))}>
                            Verify {d.name}
                          </button>
                        ) : null}
                        <ConfirmButton
                          class="small danger"
                          label={`Remove ${d.name}`}
                          question={`Stop monitoring ${d.name}? It is removed from the managed domains.`}
                          confirmLabel="Remove"
                          onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', '/v1/inboxready/domains', { query: { domain: d.name } }), reload()))}
                        />
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
          {!managed.data.items.length ? <p class="muted">No managed domains.</p> : null}
        </div>
      ) : null}
    </section>
  );
}

/** Listings and delistings per day, and each event, of IPs and domains. */
function EventsSection({ version }: { version: number }) {
  const { region } = useAppState();
  const events = useLoad((signal) => loadBlocklistEvents(signal, DOMAIN_EVENTS),
    [region, version],
  );
  const days = [...new Set(events.data?.map((e) => e.timestamp.slice(0, 10)))].sort();
  const count = (day: string, kind: string) => events.data!.filter((e) => e.timestamp.startsWith(day) && e.event.endsWith(kind)).length;
  return (
    <section aria-labelledby="events-h">
      <h2 id="events-h">Events</h2>
      <ErrorText error={events.error} />
      {events.data ? (
        <>
          <Chart days
            title="Listings and delistings per day (the latest 50 IP events and 100 domain events)"
            x={days.map(daySeconds)}
            stacked
            series={[
              { label: 'Delisted', values: days.map((d) => count(d, '_delisted')) },
              { label: 'Listed', values: days.map((d) => count(d, '_listed')) },
            ]}
          />
          <BlocklistEventsTable events={events.data} caption="Events, newest first" empty="No listing or delisting yet." />
        </>
      ) : null}
    </section>
  );
}

export default function Blocklists() {
  // Refreshing or changing a section reads the events again too.
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  return (
    <Page title="Blocklists">
      <p class="muted">A list that could not be asked (no resolver configured, an error answer, a failed self-test) shows as unknown, never as not listed.</p>
      <IpSection onChange={changed} />
      <DomainSection onChange={changed} />
      <EventsSection version={version} />
    </Page>
  );
}
