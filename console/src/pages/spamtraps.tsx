import { useState } from 'preact/hooks';
import { useAppState } from '../session';
import { Chart, daySeconds } from '../ui/chart';
import { useLoad } from '../ui/load';
import { ErrorText, Head, Loading, Notice, Page } from '../ui/widgets';
import { fetchSpamTraps, OPENING_DAYS, spamTrapsOpening } from './spamtraps.load';
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

export default function SpamTraps() {
  const { region } = useAppState();
  // The period: its length, and its end (when the page opened, then when the length is changed).
  const [period, setPeriod] = useState(() => ({ days: OPENING_DAYS, end: spamTrapsOpening.take() }));
  const { days, end } = period;
  const perDay = useLoad((signal) => fetchSpamTraps<TrapReply>(days, end, 'timestamp', signal), [period, region]);
  const perDomain = useLoad((signal) => fetchSpamTraps<TrapReply>(days, end, 'domain_name', signal), [period, region]);
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
          <select id="st-period" value={String(days)} onChange={(e) => setPeriod({ days: Number((e.target as HTMLSelectElement).value), end: new Date() })}>
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
