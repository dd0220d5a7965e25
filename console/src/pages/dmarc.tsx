import { useState } from 'preact/hooks';
import { call, p, uploadWithProgress } from '../api';
import { can, credentials, useAppState } from '../session';
import { Chart, daySeconds } from '../ui/chart';
import { DomainOptions, listDomains } from '../ui/domain-picker';
import { useAction, useLoad } from '../ui/load';
import { fetchDmarcDomains, FIRST_PERIOD, rangeOf } from './dmarc.load';
import { CopyButton, ErrorText, formatDate, Head, Loading, Notice, Page } from '../ui/widgets';
import './optimize.css';

interface PfqrDay {
  date: string;
  pass: number;
  fail: number;
  quarantine: number;
  reject: number;
}

interface DmarcDomain {
  domain: string;
  email_count: number;
  dmarc_pass: number;
  dmarc_fail: number;
  compliance: number;
  source_count: number;
  policy: string;
  last_report_at: number;
}

interface Counters {
  email_count: number;
  ip_count: number;
  spf_fail_events: number;
  dkim_fail_events: number;
  auth_fail_events: number;
  pfqr_chart: PfqrDay[];
}

export interface DmarcSource {
  source: string;
  name: string;
  type: string;
  email_count: number;
  ip_count: number;
  host_count: number;
  dmarc_pass: number;
  dmarc_fail: number;
}

interface AuthEvent {
  date: string;
  reporter?: string;
  header_from?: string;
  envelope_from?: string;
  disposition?: string;
  count: number;
  source_ip: string;
  spf?: { domain?: string; result?: string; aligned?: boolean };
  dkim?: Array<{ domain?: string; selector?: string; result?: string; aligned?: boolean }>;
}

interface DomainDetail extends Counters {
  sources: DmarcSource[];
}
interface SourceDetail extends Counters {
  name: string;
  type: string;
  hosts: Array<{ host: string; email_count: number; ip_count: number; dmarc_pass: number; dmarc_fail: number }>;
}
interface HostDetail extends Counters {
  ip_addresses: Array<{ ip: string; email_count: number; dmarc_pass: number; dmarc_fail: number; country: string | null; asn: string | null }>;
  auth_events: AuthEvent[];
}
interface IpDetail extends Counters {
  auth_events: AuthEvent[];
}

interface RecordReply {
  entry: string;
  current: string;
  configured: boolean;
  external_destination?: { name: string; type: string; value: string };
  note?: string;
}

interface FileOutcome {
  file: string;
  status: 'ingested' | 'duplicate' | 'refused';
  domain?: string;
  records?: number;
  reason?: string;
}

const PERIODS = [
  ['all', 'All reports'],
  ['7', 'Last 7 days'],
  ['30', 'Last 30 days'],
  ['90', 'Last 90 days'],
] as const;

const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)}%` : '–');

/** The pfqr chart as two stacked charts: pass and fail add up to the messages; quarantine and reject are what receivers did. */
function PfqrCharts({ days, of }: { days: PfqrDay[]; of: string }) {
  const x = days.map((d) => daySeconds(d.date));
  return (
    <>
      <Chart days
        title={`Messages per day by DMARC result, ${of}`}
        x={x}
        stacked
        series={[
          { label: 'DMARC pass', values: days.map((d) => d.pass) },
          { label: 'DMARC fail', values: days.map((d) => d.fail) },
        ]}
      />
      <Chart days
        title={`Messages quarantined or rejected by receivers per day, ${of}`}
        x={x}
        stacked
        series={[
          { label: 'Quarantined', values: days.map((d) => d.quarantine) },
          { label: 'Rejected', values: days.map((d) => d.reject) },
        ]}
      />
    </>
  );
}

function CounterKpis({ counters }: { counters: Counters }) {
  const items: Array<[string, number]> = [
    ['Messages', counters.email_count],
    ['IP addresses', counters.ip_count],
    ['SPF not aligned', counters.spf_fail_events],
    ['DKIM not aligned', counters.dkim_fail_events],
    ['DMARC fail', counters.auth_fail_events],
  ];
  return (
    <dl class="kpis" aria-label="Counters">
      {items.map(([label, value]) => (
        <div class="kpi" key={label}>
          <dt class="muted">{label}</dt>
          <dd class="value">{String(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function AuthEvents({ events }: { events: AuthEvent[] }) {
  return (
    <div class="table-wrap" tabIndex={0}>
      <table>
        <caption class="muted">Receivers' authentication results (auth events)</caption>
        <Head columns={['Day', 'Reporter', 'Source IP', 'Header from', 'Envelope from', 'Messages', 'Disposition', 'SPF', 'DKIM']} />
        <tbody>
          {events.map((e, i) => (
            <tr key={i}>
              <td>{e.date}</td>
              <td class="break">{e.reporter ?? ''}</td>
              <td class="mono">{e.source_ip}</td>
              <td class="break">{e.header_from ?? ''}</td>
              <td class="break">{e.envelope_from ?? ''}</td>
              <td>{String(e.count)}</td>
              <td>{e.disposition ?? ''}</td>
              <td class="break">{e.spf ? `${e.spf.result ?? ''}${e.spf.domain ? ` (${e.spf.domain})` : ''}${e.spf.aligned ? ', aligned' : ''}` : ''}</td>
              <td class="break">{(e.dkim ?? []).map((d) => `${d.result ?? ''} (${d.domain ?? ''}${d.selector ? `, ${d.selector}` : ''})${d.aligned ? ', aligned' : ''}`).join('; ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!events.length ? <p class="muted">No auth events.</p> : null}
    </div>
  );
}

interface Level {
  domain: string;
  source?: string;
  host?: string;
  ip?: string;
}

const pathOf = (at: Level) => {
  let path = p`/v1/dmarc/domains/${at.domain}`;
  if (at.source) path += p`/s/${at.source}`;
  if (at.host) path += p`/h/${at.host}`;
  if (at.ip) path += p`/ip/${at.ip}`;
  return path;
};

/** One level of the drill-down: domain, source, host or IP, each as the API gives it. */
function DrillDown({ at, period, onOpen }: { at: Level; period: string; onOpen: (next: Level) => void }) {
  const { region } = useAppState();
  const detail = useLoad((signal) => call<DomainDetail & SourceDetail & HostDetail & IpDetail>(credentials(), 'GET', pathOf(at), { query: rangeOf(period), signal }), [at.domain, at.source, at.host, at.ip, period, region]);
  const crumbs: Array<[string, Level]> = [[at.domain, { domain: at.domain }]];
  if (at.source) crumbs.push([`Source ${at.source}`, { domain: at.domain, source: at.source }]);
  if (at.host) crumbs.push([`Host ${at.host}`, { domain: at.domain, source: at.source, host: at.host }]);
  if (at.ip) crumbs.push([`IP ${at.ip}`, at]);
  const heading = crumbs.at(-1)![0];
  const d = detail.data;
  return (
    <section class="panel" aria-labelledby="drill-h">
      {crumbs.length > 1 ? (
        <div role="navigation" aria-label="DMARC levels" class="crumbs">
          <ol>
            {crumbs.map(([label, level], i) => (
              <li key={label}>
                {i < crumbs.length - 1 ? (
                  <button type="button" class="link" onClick={() => onOpen(level)}>
                    {label}
                  </button>
                ) : (
                  <span aria-current="location">{label}</span>
                )}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      <h2 id="drill-h" class="break">
        {heading}
      </h2>
      <ErrorText error={detail.error} />
      {detail.loading && !d ? <Loading what="DMARC figures" /> : null}
      {d ? (
        <>
          <CounterKpis counters={d} />
          {!at.host && !at.ip && d.sources ? (
            <div class="table-wrap" tabIndex={0}>
              <table>
                <caption class="muted">Sources sending as {at.domain}</caption>
                <Head columns={['Source', 'Type', 'Messages', 'DMARC pass', 'DMARC fail', 'Compliance', 'Hosts', 'IPs']} />
                <tbody>
                  {d.sources.map((s) => (
                    <tr key={s.source}>
                      <th scope="row" class="break">
                        <button type="button" class="link" onClick={() => onOpen({ domain: at.domain, source: s.source })}>
                          {s.name} ({s.source})
                        </button>
                      </th>
                      <td>{s.type}</td>
                      <td>{String(s.email_count)}</td>
                      <td>{String(s.dmarc_pass)}</td>
                      <td>{String(s.dmarc_fail)}</td>
                      <td>{percent(s.dmarc_pass, s.email_count)}</td>
                      <td>{String(s.host_count)}</td>
                      <td>{String(s.ip_count)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {!d.sources.length ? <p class="muted">No sources in this period.</p> : null}
            </div>
          ) : null}
          {at.source && !at.host && d.hosts ? (
            <div class="table-wrap" tabIndex={0}>
              <table>
                <caption class="muted">Hosts of source {at.source} (their PTR names; unknown without one)</caption>
                <Head columns={['Host', 'Messages', 'DMARC pass', 'DMARC fail', 'IPs']} />
                <tbody>
                  {d.hosts.map((h) => (
                    <tr key={h.host}>
                      <th scope="row" class="break">
                        <button type="button" class="link" onClick={() => onOpen({ ...at, host: h.host })}>
                          {h.host}
                        </button>
                      </th>
                      <td>{String(h.email_count)}</td>
                      <td>{String(h.dmarc_pass)}</td>
                      <td>{String(h.dmarc_fail)}</td>
                      <td>{String(h.ip_count)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          {at.host && !at.ip && d.ip_addresses ? (
            <div class="table-wrap" tabIndex={0}>
              <table>
                <caption class="muted">IP addresses of host {at.host}</caption>
                <Head columns={['IP address', 'Messages', 'DMARC pass', 'DMARC fail', 'Country', 'ASN']} />
                <tbody>
                  {d.ip_addresses.map((ip) => (
                    <tr key={ip.ip}>
                      <th scope="row">
                        <button type="button" class="link mono" onClick={() => onOpen({ ...at, ip: ip.ip })}>
                          {ip.ip}
                        </button>
                      </th>
                      <td>{String(ip.email_count)}</td>
                      <td>{String(ip.dmarc_pass)}</td>
                      <td>{String(ip.dmarc_fail)}</td>
                      <td>{ip.country ?? 'unknown'}</td>
                      <td>{ip.asn ?? 'unknown'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          {d.auth_events ? <AuthEvents events={d.auth_events} /> : null}
          {at.ip ? <p class="muted">Forensic (ruf) reports are not collected: there are no per-message failure samples.</p> : null}
          <PfqrCharts days={d.pfqr_chart} of={heading} />
        </>
      ) : null}
    </section>
  );
}

/** The `_dmarc` record to publish for a domain, whether it is live, and the reports domain's own record. */
function RecordToPublish() {
  const { region } = useAppState();
  const domains = useLoad((signal) => listDomains(signal), [region]);
  const [domain, setDomain] = useState('');
  const chosen = domain || domains.data?.[0]?.name || '';
  const record = useLoad((signal) => (chosen ? call<RecordReply>(credentials(), 'GET', p`/v1/dmarc/records/${chosen}`, { signal }) : Promise.resolve(undefined)), [chosen, region]);
  const r = record.data;
  return (
    <section class="panel" aria-labelledby="record-h">
      <h2 id="record-h">Record to publish</h2>
      <div class="field">
        <label for="record-domain">Sending domain</label>
        <select id="record-domain" value={chosen} onChange={(e) => setDomain((e.target as HTMLSelectElement).value)}>
          <DomainOptions domains={domains.data} />
        </select>
      </div>
      <ErrorText error={record.error ?? domains.error} />
      {record.loading && !r ? <Loading what="the DMARC record" /> : null}
      {r ? (
        <dl class="record">
          <dt>TXT record at _dmarc.{chosen}</dt>
          <dd>
            <code class="break">{r.entry}</code> <CopyButton value={r.entry} label={`Copy the DMARC record for ${chosen}`} />
          </dd>
          <dt>Live now</dt>
          <dd class="break">
            {r.configured ? (
              <>
                <span class="badge ok">live</span> the published record sends reports here.
              </>
            ) : r.current ? (
              <>
                <span class="badge bad">not live</span> the published record does not name this account's report address.
              </>
            ) : (
              <>
                <span class="badge bad">not live</span> no record is published at _dmarc.{chosen} yet.
              </>
            )}
            {r.current ? <div class="break mono">{r.current}</div> : null}
          </dd>
          {r.external_destination ? (
            <>
              <dt>The reports domain publishes</dt>
              <dd>
                <code class="break">
                  {r.external_destination.name} {r.external_destination.type} "{r.external_destination.value}"
                </code>{' '}
                <span class="muted">(so receivers accept the address for another domain's reports)</span>
              </dd>
            </>
          ) : null}
          {r.note ? (
            <>
              <dt>Note</dt>
              <dd>{r.note}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
    </section>
  );
}

function Upload({ onDone }: { onDone: () => void }) {
  const act = useAction();
  const [outcomes, setOutcomes] = useState<FileOutcome[]>();
  const [progress, setProgress] = useState<string>();
  return (
    <form
      class="panel"
      aria-labelledby="upload-h"
      onSubmit={(e) => {
        e.preventDefault();
        const input = e.currentTarget.elements.namedItem('report') as HTMLInputElement;
        const files = [...(input.files ?? [])];
        if (!files.length) return act.setError('Choose one or more report files.');
        const body = new FormData();
        for (const file of files) body.append('report', file, file.name);
        void act.run(async () => {
          const reply = await uploadWithProgress<{ reports: FileOutcome[] }>(credentials(), '/v1/dmarc/reports', body, (sent, total) => setProgress(total ? `${Math.round((100 * sent) / total)}%` : `${sent} bytes`));
          setOutcomes(reply.reports);
          setProgress(undefined);
          input.value = '';
          onDone();
        });
      }}
    >
      <h2 id="upload-h">Upload reports</h2>
      <p class="muted">Aggregate reports as receivers send them: gzip, zip or XML, RFC 7489 or RFC 9990. Each report counts once.</p>
      <div class="row">
        <div class="field grow">
          <label for="dmarc-files">Report files</label>
          <input id="dmarc-files" name="report" type="file" multiple accept=".xml,.gz,.zip,application/gzip,application/zip,text/xml,application/xml" />
        </div>
        <button type="submit" class="primary" disabled={act.busy}>
          Upload
        </button>
      </div>
      {progress ? <p role="status">Uploading… {progress}</p> : null}
      <ErrorText error={act.error} />
      {outcomes ? (
        <ul aria-label="Uploaded files">
          {outcomes.map((o, i) => (
            <li key={i} class="break">
              {o.file}: <strong>{o.status}</strong>
              {o.status === 'refused' ? ` (${o.reason ?? ''})` : ` (${o.domain ?? ''}, ${o.records ?? 0} records)`}
            </li>
          ))}
        </ul>
      ) : null}
    </form>
  );
}

export default function Dmarc() {
  const { region } = useAppState();
  const [period, setPeriod] = useState(FIRST_PERIOD);
  const [at, setAt] = useState<Level>();
  const domains = useLoad((signal) => fetchDmarcDomains<{ domains: DmarcDomain[]; pfqr_chart: PfqrDay[] }>(period, signal), [period, region]);
  return (
    <Page title="DMARC">
      <div class="panel row">
        <div class="field">
          <label for="dmarc-period">Period</label>
          <select id="dmarc-period" value={period} onChange={(e) => setPeriod((e.target as HTMLSelectElement).value)}>
            {PERIODS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {can('write') ? <Upload onDone={domains.reload} /> : null}
      <ErrorText error={domains.error} />
      {domains.loading && !domains.data ? <Loading what="DMARC domains" /> : null}
      {domains.data ? (
        <section aria-labelledby="domains-h">
          <h2 id="domains-h">Domains</h2>
          {!domains.data.domains.length ? <Notice>No DMARC reports yet. Publish the record below so receivers mail their reports here, or upload reports you have.</Notice> : null}
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">Domains with reports, and their compliance (messages passing DMARC)</caption>
              <Head columns={['Domain', 'Messages', 'DMARC pass', 'DMARC fail', 'Compliance', 'Sources', 'Policy', 'Last report']} />
              <tbody>
                {domains.data.domains.map((d) => (
                  <tr key={d.domain} class={at?.domain === d.domain ? 'selected' : ''}>
                    <th scope="row" class="break">
                      <button type="button" class="link" onClick={() => setAt({ domain: d.domain })}>
                        {d.domain}
                      </button>
                    </th>
                    <td>{String(d.email_count)}</td>
                    <td>{String(d.dmarc_pass)}</td>
                    <td>{String(d.dmarc_fail)}</td>
                    <td>{d.email_count ? `${(d.compliance * 100).toFixed(1)}%` : '–'}</td>
                    <td>{String(d.source_count)}</td>
                    <td>{d.policy || 'unknown'}</td>
                    <td>{d.last_report_at ? formatDate(d.last_report_at) : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {domains.data.domains.length ? <PfqrCharts days={domains.data.pfqr_chart} of="all domains" /> : null}
        </section>
      ) : null}
      {at ? <DrillDown at={at} period={period} onOpen={setAt} /> : null}
      <RecordToPublish />
    </Page>
  );
}
