import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { credentials, useAppState } from '../session';
import { Chart, daySeconds } from '../ui/chart';
import { useLoad } from '../ui/load';
import { FIRST_DAYS, fetchSummary, range } from './postmaster.load';
import { ErrorText, formatDate, Head, Loading, Notice, Page } from '../ui/widgets';
import './optimize.css';

interface Source {
  source_status: string;
  source_reason?: string;
}

const RATIOS = [
  ['user_reported_spam_ratio', 'User-reported spam'],
  ['spf_success_ratio', 'SPF success'],
  ['dkim_success_ratio', 'DKIM success'],
  ['dmarc_success_ratio', 'DMARC success'],
  ['inbound_encryption_ratio', 'TLS (inbound)'],
] as const;
type Ratio = (typeof RATIOS)[number][0];

interface DomainSummary extends Record<Ratio, number | null> {
  name: string;
}
interface DomainDay extends Record<Ratio, number | null> {
  name: string;
  date: string | null;
  delivery_error_ratio: number | null;
  delivery_errors: Array<{ error_class: string; error_type: string; error_ratio: number | null }>;
  feedback_loops: Array<{ id: string; spam_ratio: number | null }>;
}

interface Verdict {
  status: string | null;
  reason: string;
}
interface ComplianceData {
  domain: string | null;
  requirements: Array<{ requirement: string | null; status: string | null }>;
  one_click_unsubscribe: Verdict | null;
  honor_unsubscribe: Verdict | null;
  subdomain?: ComplianceData;
}

/** Google's compliance status as a table: each requirement and the two unsubscribe verdicts; unknown where Google gave none. */
function ComplianceTable({ data, of }: { data: ComplianceData; of: string }) {
  const rows: Array<[string, string, string]> = [
    ...data.requirements.map((r): [string, string, string] => [r.requirement ?? 'unknown', r.status ?? 'unknown', '']),
    ['One-click unsubscribe', data.one_click_unsubscribe?.status ?? 'unknown', data.one_click_unsubscribe?.reason ?? ''],
    ['Honours unsubscribe', data.honor_unsubscribe?.status ?? 'unknown', data.honor_unsubscribe?.reason ?? ''],
  ];
  return (
    <div class="table-wrap" tabIndex={0}>
      <table>
        <caption class="muted">Sender requirements, {of}</caption>
        <Head columns={['Requirement', 'Status', 'Reason']} />
        <tbody>
          {rows.map(([name, status, reason]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>
                <span class={`badge ${status === 'COMPLIANT' ? 'ok' : status === 'unknown' ? 'wait' : 'bad'}`}>{status}</span>
              </td>
              <td class="break">{reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const ratio = (value: number | null | undefined) => (value === null || value === undefined ? 'no data' : `${(value * 100).toFixed(2)}%`);
const asPercent = (value: number | null | undefined) => (value === null || value === undefined ? null : Number((value * 100).toFixed(2)));

/** Why there are no figures: not configured, not fetched yet, or what Google answered. */
function SourceState({ source }: { source: Source }) {
  if (source.source_status === 'ok') return null;
  const heading = source.source_status === 'not_configured' ? 'Google Postmaster Tools is not configured' : `No Postmaster data (${source.source_status.replace(/_/g, ' ')})`;
  return (
    <div class="notice" role="status">
      <p>
        <strong>{heading}.</strong> {source.source_reason ? `Why: ${source.source_reason}.` : ''}
      </p>
      {source.source_status === 'not_configured' ? (
        <p>Figures appear here after the daily fetch runs with a service account that may read your domains in Postmaster Tools (see docs/optimization.md, "Google Postmaster data"). Nothing is shown until then: no figure is made up.</p>
      ) : null}
    </div>
  );
}

function DomainDays({ domain, days }: { domain: string; days: number }) {
  const { region } = useAppState();
  const data = useLoad((signal) => call<{ data: DomainDay[] } & Source>(credentials(), 'GET', p`/v1/reputationanalytics/gpt/domains/${domain}`, { query: range(days), signal }), [domain, days, region]);
  const compliance = useLoad((signal) => call<{ compliance: ComplianceData | null; fetched_at?: string } & Source>(credentials(), 'GET', p`/v1/reputationanalytics/gpt/domains/${domain}/compliance`, { signal }), [domain, region]);
  const rows = [...(data.data?.data ?? [])].filter((d) => d.date).sort((a, b) => a.date!.localeCompare(b.date!));
  const x = rows.map((d) => daySeconds(d.date!));
  return (
    <section class="panel" aria-labelledby="pm-domain-h">
      <h2 id="pm-domain-h" class="break">
        {domain}
      </h2>
      <ErrorText error={data.error ?? compliance.error} />
      {data.loading && !data.data ? <Loading what="Postmaster figures" /> : null}
      {data.data ? (
        <>
          <SourceState source={data.data} />
          <Chart days title={`Authentication and TLS per day, ${domain} (percent)`} x={x} series={RATIOS.slice(1).map(([name, label]) => ({ label, values: rows.map((d) => asPercent(d[name])) }))} />
          <Chart days
            title={`Spam and delivery errors per day, ${domain} (percent)`}
            x={x}
            series={[
              { label: 'User-reported spam', values: rows.map((d) => asPercent(d.user_reported_spam_ratio)) },
              { label: 'Delivery errors', values: rows.map((d) => asPercent(d.delivery_error_ratio)) },
            ]}
          />
        </>
      ) : null}
      {compliance.data ? (
        <>
          <h3>Compliance status</h3>
          {compliance.data.compliance ? (
            <>
              <p class="muted">As Google gave it{compliance.data.fetched_at ? ` on ${formatDate(compliance.data.fetched_at)}` : ''}.</p>
              <ComplianceTable data={compliance.data.compliance} of={domain} />
              {compliance.data.compliance.subdomain ? <ComplianceTable data={compliance.data.compliance.subdomain} of={`subdomain ${compliance.data.compliance.subdomain.domain ?? ''}`} /> : null}
            </>
          ) : (
            <p class="muted">Unknown: {compliance.data.source_reason ?? 'Google has given no compliance status for this domain yet'}.</p>
          )}
        </>
      ) : null}
    </section>
  );
}

export default function Postmaster() {
  const { region } = useAppState();
  const [days, setDays] = useState(FIRST_DAYS);
  const [domain, setDomain] = useState<string>();
  const summary = useLoad((signal) => fetchSummary<{ summary: DomainSummary[]; total: number } & Source>(days, signal), [days, region]);
  return (
    <Page title="Postmaster">
      <p class="muted">Google Postmaster Tools (API v2) figures for your verified managed domains, fetched daily. v2 has no domain or IP reputation: it is not shown.</p>
      <div class="panel row">
        <div class="field">
          <label for="pm-period">Period</label>
          <select id="pm-period" value={String(days)} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
            <option value="7">Last 7 days</option>
            <option value="30">Last 30 days</option>
            <option value="90">Last 90 days</option>
          </select>
        </div>
      </div>
      <ErrorText error={summary.error} />
      {summary.loading && !summary.data ? <Loading what="Postmaster data" /> : null}
      {summary.data ? (
        <>
          <SourceState source={summary.data} />
          {summary.data.source_status === 'ok' ? (
            <div class="table-wrap" tabIndex={0}>
              <table>
                <caption class="muted">Domains over the period (the mean of the days Google gave a figure for)</caption>
                <Head columns={['Domain', ...RATIOS.map(([, label]) => label)]} />
                <tbody>
                  {summary.data.summary.map((d) => (
                    <tr key={d.name} class={domain === d.name ? 'selected' : ''}>
                      <th scope="row" class="break">
                        <button type="button" class="link" onClick={() => setDomain(d.name)}>
                          {d.name}
                        </button>
                      </th>
                      {RATIOS.map(([name]) => (
                        <td key={name}>{ratio(d[name])}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
              {!summary.data.summary.length ? <p class="muted">No figures in this period: Google gives none for domains with little Gmail traffic, and its data lags a day or two.</p> : null}
            </div>
          ) : null}
        </>
      ) : null}
      {domain ? <DomainDays domain={domain} days={days} /> : summary.data?.source_status === 'ok' && summary.data.summary.length ? <Notice>Choose a domain to see its figures per day.</Notice> : null}
    </Page>
  );
}
