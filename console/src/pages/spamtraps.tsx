import { useState } from 'preact/hooks';
import { call } from '../api';
import { credentials, useAppState } from '../session';
import { Chart, daySeconds } from '../ui/chart';
import { useLoad } from '../ui/load';
import { ErrorText, Head, Loading, Notice, Page } from '../ui/widgets';
import './optimize.css';

const TYPES = [
  ['pristine_count', 'Pristine'],
  ['recycled_count', 'Recycled'],
  ['typo_count', 'Typo'],
  ['harvested_count', 'Harvested'],
] as const;
type Metric = (typeof TYPES)[number][0] | 'total_count';

interface TrapReply {
  items: Array<{ dimensions: Array<{ dimension: string; value: string }>; metrics: Record<Metric, number> }>;
  start: string;
  end: string;
  data_sources: string[];
}

const SOURCES: Record<string, string> = {
  operator_trap_list: 'the trap addresses and domains the operator declared (SPAM_TRAP_LIST)',
  typo_heuristic: 'recipient domains one or two edits from a major mailbox domain that publish no MX (suspected)',
  recycled_heuristic: 'addresses once refused as unknown that later accept mail (suspected)',
};

/** Pristine and harvested hits come only from the operator's list: without it they are not measured. */
const measured = (type: Metric, sources: string[]) => sources.includes('operator_trap_list') || (type !== 'pristine_count' && type !== 'harvested_count');

function query(days: number, dimension: string) {
  const end = new Date();
  return { start: new Date(end.getTime() - days * 86_400_000).toISOString(), end: end.toISOString(), dimension, limit: 1000 };
}

export default function SpamTraps() {
  const { region } = useAppState();
  const [days, setDays] = useState(30);
  const perDay = useLoad((signal) => call<TrapReply>(credentials(), 'GET', '/v2/spamtraps', { query: query(days, 'timestamp'), signal }), [days, region]);
  const perDomain = useLoad((signal) => call<TrapReply>(credentials(), 'GET', '/v2/spamtraps', { query: { ...query(days, 'domain_name'), sort: 'total_count:desc' }, signal }), [days, region]);
  const sources = perDay.data?.data_sources ?? [];
  const shown = TYPES.filter(([type]) => measured(type, sources));
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) / 1000;
  const x = Array.from({ length: days + 1 }, (_, i) => today - (days - i) * 86_400);
  const byDay = new Map(perDay.data?.items.map((item) => [daySeconds(item.dimensions[0]!.value), item.metrics]));
  return (
    <Page title="Spam traps">
      <div class="panel row">
        <div class="field">
          <label for="st-period">Period</label>
          <select id="st-period" value={String(days)} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
            <option value="7">Last 7 days</option>
            <option value="30">Last 30 days</option>
          </select>
        </div>
      </div>
      <p class="muted">Trap addresses are secret by design: only what a declared source says is counted. A day with no hits from these sources counts zero.</p>
      <ErrorText error={perDay.error ?? perDomain.error} />
      {perDay.loading && !perDay.data ? <Loading what="spam-trap counts" /> : null}
      {perDay.data ? (
        <>
          <section aria-labelledby="sources-h">
            <h2 id="sources-h">Where the counts come from</h2>
            <ul>
              {sources.map((s) => (
                <li key={s}>
                  <strong>{s}</strong>: {SOURCES[s] ?? ''}
                </li>
              ))}
            </ul>
            {!sources.includes('operator_trap_list') ? <Notice>Pristine and harvested hits: unknown. They come only from an operator trap list, and none is configured.</Notice> : null}
          </section>
          <section aria-labelledby="days-h">
            <h2 id="days-h">Per day</h2>
            <Chart days title="Suspected spam-trap hits per day, by type" x={x} stacked series={shown.map(([type, label]) => ({ label, values: x.map((t) => byDay.get(t)?.[type] ?? 0) }))} />
          </section>
        </>
      ) : null}
      {perDomain.data ? (
        <section aria-labelledby="domain-h">
          <h2 id="domain-h">Per sending domain</h2>
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">Hits per sending domain in the period, most first</caption>
              <Head columns={['Domain', ...shown.map(([, label]) => label), 'Total']} />
              <tbody>
                {perDomain.data.items.map((item) => (
                  <tr key={item.dimensions[0]!.value}>
                    <th scope="row" class="break">
                      {item.dimensions[0]!.value}
                    </th>
                    {shown.map(([type]) => (
                      <td key={type}>{String(item.metrics[type])}</td>
                    ))}
                    <td>{String(item.metrics.total_count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {!perDomain.data.items.length ? <p class="muted">No hits in the period.</p> : null}
          </div>
        </section>
      ) : null}
    </Page>
  );
}
