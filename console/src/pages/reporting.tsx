import './reporting-inspection.css';
import { useMemo, useState } from 'preact/hooks';
import { call } from '../api';
import { toCsv } from '../csv';
import { can, credentials, useAppState } from '../session';
import { Chart, PALETTE, type ChartSeries } from '../ui/chart';
import { DomainOptions, listDomains } from '../ui/domain-picker';
import { useAction, useLoad } from '../ui/load';
import { COMPARATORS, fetchMetrics, INITIAL, metricsBody, type Explorer, type FilterRow } from './reporting.load';
import { ConfirmButton, ErrorText, formatDate, Head, Loading, Options, Page, saveBlob, Tabs } from '../ui/widgets';

/** The metrics offered (a subset of the API's, the ones people chart); names as the API gives them. */
const METRICS = [
  ['accepted_count', 'Accepted'],
  ['delivered_count', 'Delivered'],
  ['failed_count', 'Failed'],
  ['opened_count', 'Opened'],
  ['clicked_count', 'Clicked'],
  ['unique_opened_count', 'Unique opens'],
  ['unique_clicked_count', 'Unique clicks'],
  ['complained_count', 'Complained'],
  ['unsubscribed_count', 'Unsubscribed'],
  ['bounced_count', 'Bounced'],
  ['hard_bounces_count', 'Hard bounces'],
  ['soft_bounces_count', 'Soft bounces'],
  ['permanent_failed_count', 'Permanent failures'],
  ['temporary_failed_count', 'Temporary failures'],
  ['stored_count', 'Stored'],
  ['sent_count', 'Sent'],
  ['processed_count', 'Processed'],
  ['delivered_rate', 'Delivery rate (%)'],
  ['opened_rate', 'Open rate (%)'],
  ['clicked_rate', 'Click rate (%)'],
  ['bounce_rate', 'Bounce rate (%)'],
  ['fail_rate', 'Failure rate (%)'],
  ['complained_rate', 'Complaint rate (%)'],
  ['unsubscribed_rate', 'Unsubscribe rate (%)'],
] as const;
const METRIC_LABEL = new Map<string, string>(METRICS);

/** The dimensions the counters answer; `time` is chosen apart, as the chart's axis. */
const DIMENSIONS = [
  ['domain', 'Domain'],
  ['tag', 'Tag'],
  ['recipient_domain', 'Recipient domain'],
  ['provider', 'Provider'],
  ['device', 'Device'],
  ['country', 'Country'],
] as const;
const DIMENSION_LABEL = new Map<string, string>([['time', 'Time'], ...DIMENSIONS]);
const RANGES = [
  ['24h', 'Last 24 hours'],
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
  ['3m', 'Last 3 months'],
  ['custom', 'Custom dates'],
] as const;

interface MetricsItem {
  dimensions: Array<{ dimension: string; value: string; display_value: string }>;
  metrics: Record<string, number | string>;
}

export interface MetricsReply {
  start: string;
  end: string;
  resolution: string;
  dimensions: string[];
  items: MetricsItem[];
  aggregates: { metrics: Record<string, number | string> };
  pagination: { total: number; limit: number; skip: number };
}

const dimensionOf = (item: MetricsItem, name: string) => item.dimensions.find((d) => d.dimension === name)?.value ?? '';
const numberOf = (value: number | string | undefined) => (value === undefined ? null : Number(value));

/** Every bucket start (ms) of the reply's range at its resolution, in UTC as the API counts them, with any listed ones. */
function bucketsOf(reply: MetricsReply, listed: number[]): number[] {
  const end = Date.parse(reply.end);
  const start = new Date(Date.parse(reply.start));
  if (reply.resolution === 'month') start.setUTCDate(1);
  if (reply.resolution !== 'hour') start.setUTCHours(0);
  start.setUTCMinutes(0, 0, 0);
  const out = new Set<number>();
  for (const at = start; at.getTime() < end && out.size < 1500; reply.resolution === 'month' ? at.setUTCMonth(at.getUTCMonth() + 1) : at.setTime(at.getTime() + (reply.resolution === 'hour' ? 3_600_000 : 86_400_000))) out.add(at.getTime());
  for (const ms of listed) out.add(ms);
  return [...out].sort((a, b) => a - b);
}

/** Metrics whose colour says what they are: what went well green, what went wrong red, the volume blue. */
const METRIC_COLOR: Readonly<Record<string, string>> = {
  accepted_count: PALETTE[0]!,
  delivered_count: PALETTE[2]!,
  delivered_rate: PALETTE[2]!,
  failed_count: PALETTE[1]!,
  fail_rate: PALETTE[1]!,
  permanent_failed_count: PALETTE[1]!,
  bounced_count: PALETTE[1]!,
  bounce_rate: PALETTE[1]!,
  hard_bounces_count: PALETTE[1]!,
  complained_count: PALETTE[1]!,
  complained_rate: PALETTE[1]!,
};

/** One series per metric, each in its own colour (its meaning's where it has one, else the next colour no other series has). */
function metricSeries(metrics: readonly string[], valuesOf: (metric: string) => Array<number | null>): ChartSeries[] {
  const fixed = new Map<string, string>();
  for (const m of metrics) {
    const color = METRIC_COLOR[m];
    // Two metrics of one meaning (failed and bounced): the second takes a free colour.
    if (color && ![...fixed.values()].includes(color)) fixed.set(m, color);
  }
  const free = PALETTE.filter((color) => ![...fixed.values()].includes(color));
  let next = 0;
  return metrics.map((m) => ({ label: METRIC_LABEL.get(m) ?? m, values: valuesOf(m), color: fixed.get(m) ?? free[next++ % free.length] }));
}

/** The chart's series: one per metric, or, broken down, one per value of the breakdown for the first metric. */
function chartOf(reply: MetricsReply, e: Explorer): { x: number[] | string[]; series: ChartSeries[]; title: string } {
  const first = e.metrics[0]!;
  if (e.overTime) {
    // Broken down, the API lists only the buckets a group has figures in: the chart's axis has every
    // bucket of the range, so groups line up and quiet hours show as zeros.
    const listed = reply.items.map((item) => Date.parse(dimensionOf(item, 'time')));
    const x = (e.breakdown ? bucketsOf(reply, listed) : [...new Set(listed)]).map((ms) => ms / 1000);
    const index = new Map(x.map((t, i) => [t * 1000, i]));
    if (!e.breakdown) {
      const series = metricSeries(e.metrics, (m) => reply.items.map((item) => numberOf(item.metrics[m])));
      return { x, series, title: `${e.metrics.map((m) => METRIC_LABEL.get(m) ?? m).join(', ')} per ${e.resolution}` };
    }
    const groups = new Map<string, Array<number | null>>();
    for (const item of reply.items) {
      const key = dimensionOf(item, e.breakdown);
      if (!groups.has(key)) groups.set(key, x.map(() => 0));
      const at = index.get(Date.parse(dimensionOf(item, 'time')));
      if (at !== undefined) groups.get(key)![at] = numberOf(item.metrics[first]);
    }
    // The ten largest groups: more lines than that no one can tell apart (the table has them all).
    const series = [...groups.entries()]
      .map(([label, values]) => ({ label: label || '(none)', values, total: values.reduce<number>((a, b) => a + (b ?? 0), 0) }))
      .sort((a, b) => b.total - a.total)
      .slice(0, 10);
    return { x, series, title: `${METRIC_LABEL.get(first) ?? first} per ${e.resolution} by ${DIMENSION_LABEL.get(e.breakdown)?.toLowerCase()}` };
  }
  const items = reply.items.slice(0, 25);
  return {
    x: items.map((item) => dimensionOf(item, e.breakdown) || '(none)'),
    series: metricSeries(e.metrics.slice(0, 3), (m) => items.map((item) => numberOf(item.metrics[m]))),
    title: `${e.metrics.slice(0, 3).map((m) => METRIC_LABEL.get(m) ?? m).join(', ')} by ${DIMENSION_LABEL.get(e.breakdown)?.toLowerCase()}`,
  };
}

function csvOf(reply: MetricsReply, e: Explorer): string {
  const columns = [...reply.dimensions, ...e.metrics];
  const rows = reply.items.map((item) => ({ ...Object.fromEntries(item.dimensions.map((d) => [d.dimension, d.value])), ...item.metrics }));
  return toCsv(columns, rows);
}

function MetricsExplorer() {
  const { region } = useAppState();
  const domains = useLoad((signal) => listDomains(signal), [region]);
  const [draft, setDraft] = useState<Explorer>(INITIAL);
  const [asked, setAsked] = useState<Explorer>(INITIAL);
  const body = useMemo(() => metricsBody(asked), [asked]);
  const reply = useLoad((signal) => fetchMetrics<MetricsReply>(body, signal), [body, region]);
  const chart = useMemo(() => (reply.data && asked.metrics.length && (asked.overTime || asked.breakdown) ? chartOf(reply.data, asked) : undefined), [reply.data]);
  const set = (change: Partial<Explorer>) => setDraft((d) => ({ ...d, ...change }));
  const setFilter = (i: number, change: Partial<FilterRow>) => set({ filters: draft.filters.map((f, j) => (j === i ? { ...f, ...change } : f)) });
  const dimensionColumns = reply.data?.dimensions ?? [];
  return (
    <>
      <form
        class="panel stack-wide"
        aria-label="Metrics query"
        onSubmit={(e) => {
          e.preventDefault();
          setAsked({ ...draft, metrics: draft.metrics.length ? draft.metrics : ['accepted_count'] });
        }}
      >
        <fieldset class="checks">
          <legend>Metrics</legend>
          {METRICS.map(([name, label]) => (
            <label class="check" key={name}>
              <input type="checkbox" checked={draft.metrics.includes(name)} onChange={(e) => set({ metrics: (e.target as HTMLInputElement).checked ? [...draft.metrics, name] : draft.metrics.filter((m) => m !== name) })} />
              {label}
            </label>
          ))}
        </fieldset>
        <div class="row">
          <label class="check">
            <input type="checkbox" checked={draft.overTime} onChange={(e) => set({ overTime: (e.target as HTMLInputElement).checked })} />
            Over time
          </label>
          <div class="field">
            <label for="r-resolution">Resolution</label>
            <select id="r-resolution" value={draft.resolution} onChange={(e) => set({ resolution: (e.target as HTMLSelectElement).value as Explorer['resolution'] })}>
              <option value="hour">Hour</option>
              <option value="day">Day</option>
              <option value="month">Month</option>
            </select>
          </div>
          <div class="field">
            <label for="r-breakdown">Break down by</label>
            <select id="r-breakdown" value={draft.breakdown} onChange={(e) => set({ breakdown: (e.target as HTMLSelectElement).value })}>
              <option value="">Nothing</option>
              {DIMENSIONS.map(([name, label]) => (
                <option key={name} value={name}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="r-range">Range</label>
            <select id="r-range" value={draft.range} onChange={(e) => set({ range: (e.target as HTMLSelectElement).value })}>
              {RANGES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          {draft.range === 'custom' ? (
            <>
              <div class="field">
                <label for="r-from">From</label>
                <input id="r-from" type="datetime-local" value={draft.from} onInput={(e) => set({ from: (e.target as HTMLInputElement).value })} />
              </div>
              <div class="field">
                <label for="r-to">To</label>
                <input id="r-to" type="datetime-local" value={draft.to} onInput={(e) => set({ to: (e.target as HTMLInputElement).value })} />
              </div>
            </>
          ) : null}
        </div>
        <fieldset>
          <legend>Filters</legend>
          {draft.filters.map((f, i) => (
            <div class="row filter-row" key={i}>
              <div class="field">
                <label for={`r-fa-${i}`}>Attribute</label>
                <select id={`r-fa-${i}`} value={f.attribute} onChange={(e) => setFilter(i, { attribute: (e.target as HTMLSelectElement).value })}>
                  {DIMENSIONS.map(([name, label]) => (
                    <option key={name} value={name}>
                      {label}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for={`r-fc-${i}`}>Comparator</label>
                <select id={`r-fc-${i}`} value={f.comparator} onChange={(e) => setFilter(i, { comparator: (e.target as HTMLSelectElement).value as FilterRow['comparator'] })}>
                  <Options values={COMPARATORS} />
                </select>
              </div>
              <div class="field grow">
                <label for={`r-fv-${i}`}>{f.attribute === 'domain' ? 'Domain' : 'Values (comma separated)'}</label>
                {f.attribute === 'domain' ? (
                  <select id={`r-fv-${i}`} value={f.value} onChange={(e) => setFilter(i, { value: (e.target as HTMLSelectElement).value })}>
                    <option value="">Choose a domain</option>
                    <DomainOptions domains={domains.data} />
                  </select>
                ) : (
                  <input id={`r-fv-${i}`} value={f.value} autocomplete="off" onInput={(e) => setFilter(i, { value: (e.target as HTMLInputElement).value })} />
                )}
              </div>
              <button type="button" class="small" aria-label={`Remove filter ${i + 1}`} onClick={() => set({ filters: draft.filters.filter((_, j) => j !== i) })}>
                Remove
              </button>
            </div>
          ))}
          <button type="button" class="small" onClick={() => set({ filters: [...draft.filters, { attribute: 'domain', comparator: '=', value: '' }] })}>
            Add filter
          </button>
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary">
            Run query
          </button>
        </div>
        <details class="query-json">
          <summary>The API request</summary>
          <pre class="json" tabIndex={0}>{`POST /v1/analytics/metrics\n${JSON.stringify(metricsBody(draft), null, 2)}`}</pre>
        </details>
      </form>
      <ErrorText error={reply.error ?? domains.error} />
      {reply.loading && !reply.data ? <Loading what="metrics" /> : null}
      {reply.data ? (
        <section aria-labelledby="results-h" aria-busy={reply.loading}>
          <div class="page-head">
            <h2 id="results-h">Results</h2>
            <div class="actions">
              <button type="button" onClick={() => saveBlob(new Blob([csvOf(reply.data!, asked)], { type: 'text/csv' }), 'metrics.csv')}>
                Export CSV
              </button>
            </div>
          </div>
          <p class="muted">
            {formatDate(reply.data.start)} to {formatDate(reply.data.end)}, per {reply.data.resolution}; {reply.data.items.length} of {reply.data.pagination.total} rows.
          </p>
          <h3>Totals</h3>
          <div class="kpis" aria-label="Totals">
            {asked.metrics.map((m) => (
              <div class="kpi" key={m}>
                <div class="muted">{METRIC_LABEL.get(m) ?? m}</div>
                <div class="value" data-metric={m}>
                  {String(reply.data!.aggregates.metrics[m] ?? '')}
                </div>
              </div>
            ))}
          </div>
          {chart ? <Chart title={chart.title} x={chart.x} xLabel={asked.overTime ? 'Time' : (DIMENSION_LABEL.get(asked.breakdown) ?? '')} series={chart.series} table={false} /> : null}
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">The figures the API answered{chart ? ' (the chart draws these)' : ''}</caption>
              <Head columns={[...dimensionColumns.map((d) => DIMENSION_LABEL.get(d) ?? d), ...asked.metrics.map((m) => METRIC_LABEL.get(m) ?? m)]} />
              <tbody>
                {reply.data.items.map((item, i) => (
                  <tr key={i}>
                    {dimensionColumns.map((d) => (
                      <td key={d} class="break">
                        {d === 'time' ? formatDate(dimensionOf(item, d), asked.resolution !== 'hour') : dimensionOf(item, d)}
                      </td>
                    ))}
                    {asked.metrics.map((m) => (
                      <td key={m}>{String(item.metrics[m] ?? '')}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
            {!reply.data.items.length ? <p class="muted">No figures for this query.</p> : null}
          </div>
        </section>
      ) : null}
    </>
  );
}

interface AccountTag {
  tag: string;
  description: string;
  first_seen: string;
  last_seen: string;
  metrics?: Record<string, number | string>;
}

const TAG_PAGE = 20;

/** One tag's sending over the last 30 days, from the metrics API filtered by the tag. */
function TagStats({ tag, onClose }: { tag: string; onClose: () => void }) {
  const body = useMemo(
    () => metricsBody({ ...INITIAL, metrics: ['accepted_count', 'delivered_count', 'failed_count', 'opened_count', 'clicked_count'], range: '30d', filters: [{ attribute: 'tag', comparator: '=', value: tag }] }),
    [tag],
  );
  const stats = useLoad((signal) => fetchMetrics<MetricsReply>(body, signal), [body]);
  const x = useMemo(() => stats.data?.items.map((item) => Date.parse(dimensionOf(item, 'time')) / 1000) ?? [], [stats.data]);
  const series = useMemo(() => body.metrics.map((m) => ({ label: METRIC_LABEL.get(m) ?? m, values: stats.data?.items.map((item) => numberOf(item.metrics[m])) ?? [] })), [stats.data]);
  return (
    <section class="panel" aria-labelledby="tag-stats-h">
      <div class="page-head">
        <h3 id="tag-stats-h">Tag “{tag}”, last 30 days</h3>
        <div class="actions">
          <button type="button" onClick={onClose}>
            Close stats
          </button>
        </div>
      </div>
      <ErrorText error={stats.error} />
      {stats.loading && !stats.data ? <Loading what="tag stats" /> : null}
      {stats.data ? <Chart title={`Messages per day tagged ${tag}`} x={x} xLabel="Day" series={series} formatX={(v) => formatDate(Number(v), true)} collapsible /> : null}
    </section>
  );
}

function TagRow({ item, onChanged, onStats }: { item: AccountTag; onChanged: () => void; onStats: () => void }) {
  const [editing, setEditing] = useState(false);
  const act = useAction();
  const writable = can('write');
  const m = item.metrics ?? {};
  return (
    <tr>
      <td class="tag-cell">{item.tag}</td>
      <td class="break">
        {editing ? (
          <form
            class="row"
            aria-label={`Description of ${item.tag}`}
            onSubmit={(e) => {
              e.preventDefault();
              const description = (e.currentTarget.elements.namedItem('description') as HTMLInputElement).value;
              void act.run(async () => {
                await call(credentials(), 'PUT', '/v1/analytics/tags', { json: { tag: item.tag, description } });
                setEditing(false);
                onChanged();
              });
            }}
          >
            <input name="description" aria-label={`New description of ${item.tag}`} defaultValue={item.description} />
            <button type="submit" class="small primary" disabled={act.busy}>
              Save
            </button>
            <button type="button" class="small" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : (
          item.description
        )}
        <ErrorText error={act.error} />
      </td>
      <td>{formatDate(item.first_seen)}</td>
      <td>{formatDate(item.last_seen)}</td>
      <td>{String(m['accepted_count'] ?? '')}</td>
      <td>{String(m['delivered_count'] ?? '')}</td>
      <td>{String(m['opened_count'] ?? '')}</td>
      <td>{String(m['clicked_count'] ?? '')}</td>
      <td class="actions">
        <button type="button" class="small" aria-label={`Stats of ${item.tag}`} onClick={onStats}>
          Stats
        </button>
        {writable && !editing ? (
          <button type="button" class="small" aria-label={`Edit description of ${item.tag}`} onClick={() => setEditing(true)}>
            Edit description
          </button>
        ) : null}
        {writable ? (
          <ConfirmButton
            class="small danger"
            label={`Delete ${item.tag}`}
            question={`Delete the tag “${item.tag}”? Its statistics go with it.`}
            confirmLabel="Delete tag"
            onConfirm={() =>
              void act.run(async () => {
                await call(credentials(), 'DELETE', '/v1/analytics/tags', { json: { tag: item.tag } });
                onChanged();
              })
            }
          />
        ) : null}
      </td>
    </tr>
  );
}

function Tags() {
  const { region } = useAppState();
  const [prefix, setPrefix] = useState('');
  const [skip, setSkip] = useState(0);
  const [stats, setStats] = useState<string>();
  const tags = useLoad(
    (signal) =>
      call<{ items: AccountTag[]; pagination: { total?: number } }>(credentials(), 'POST', '/v1/analytics/tags', {
        json: { include_metrics: true, ...(prefix ? { tag: prefix } : {}), pagination: { sort: 'tag:asc', skip, limit: TAG_PAGE, include_total: true } },
        signal,
      }),
    [prefix, skip, region],
  );
  const total = tags.data?.pagination.total ?? 0;
  return (
    <>
      <form
        class="panel row"
        aria-label="Search tags"
        onSubmit={(e) => {
          e.preventDefault();
          setSkip(0);
          setPrefix((e.currentTarget.elements.namedItem('prefix') as HTMLInputElement).value.trim());
        }}
      >
        <div class="field grow">
          <label for="t-prefix">Tag starts with</label>
          <input id="t-prefix" name="prefix" type="search" autocomplete="off" />
        </div>
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      {stats ? <TagStats key={stats} tag={stats} onClose={() => setStats(undefined)} /> : null}
      <ErrorText error={tags.error} />
      {tags.loading && !tags.data ? <Loading what="tags" /> : null}
      {tags.data ? (
        <>
          <div class="table-wrap" tabIndex={0}>
            <table aria-busy={tags.loading}>
              <caption class="muted">Tags, with their counts since first seen ({total} in all)</caption>
              <Head columns={['Tag', 'Description', 'First seen', 'Last seen', 'Accepted', 'Delivered', 'Opened', 'Clicked', 'Actions']} />
              <tbody>
                {tags.data.items.map((item) => (
                  <TagRow key={item.tag} item={item} onChanged={tags.reload} onStats={() => setStats(item.tag)} />
                ))}
              </tbody>
            </table>
            {!tags.data.items.length ? <p class="muted">No tags yet: messages sent with o:tag make them.</p> : null}
          </div>
          <div class="pager">
            <button type="button" disabled={!skip} onClick={() => setSkip(Math.max(0, skip - TAG_PAGE))}>
              Previous
            </button>
            <button type="button" disabled={skip + TAG_PAGE >= total} onClick={() => setSkip(skip + TAG_PAGE)}>
              Next
            </button>
          </div>
        </>
      ) : null}
    </>
  );
}

type Tab = 'metrics' | 'tags';

export default function Reporting() {
  const [tab, setTab] = useState<Tab>('metrics');
  return (
    <Page title="Reporting">
      <Tabs
        tabs={[
          ['metrics', 'Metrics'],
          ['tags', 'Tags'],
        ]}
        current={tab}
        onSelect={setTab}
        label="Reporting"
      />
      <div id="tab-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === 'metrics' ? <MetricsExplorer /> : <Tags />}
      </div>
    </Page>
  );
}
