import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useAppState } from '../session';
import { DomainOptions, listDomains } from '../ui/domain-picker';
import { useLoad } from '../ui/load';
import { COUNTS, FIRST_DAYS, fetchDailyMetrics, RATES, type MetricsReply } from './overview.load';
import { ErrorText, formatDate, Loading, Page } from '../ui/widgets';

/** Sending per day, one line per count (uPlot draws; the table below says the same in text). */
function Chart({ reply, days }: { reply: MetricsReply; days: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const times = reply.items.map((item) => Date.parse(item.dimensions.find((d) => d.dimension === 'time')!.value) / 1000);
    const data: uPlot.AlignedData = [times, ...COUNTS.map(([name]) => reply.items.map((item) => Number(item.metrics[name] ?? 0)))];
    const width = () => Math.max(260, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 260,
        series: [{}, ...COUNTS.map(([, label, stroke]) => ({ label, stroke, width: 2, points: { show: days <= 7 } }))],
        axes: [{}, { size: 50 }],
        scales: { x: { time: true } },
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [reply, days]);
  return <div ref={box} class="chart" role="img" aria-label={`Chart of messages per day over the last ${days} days; the same figures are in the table below`} />;
}

export default function Overview() {
  const { region } = useAppState();
  const [days, setDays] = useState(FIRST_DAYS);
  const [domain, setDomain] = useState('');
  const domains = useLoad((signal) => listDomains(signal), [region]);
  const metrics = useLoad((signal) => fetchDailyMetrics(days, domain, signal), [days, domain, region]);
  const totals = metrics.data?.aggregates.metrics ?? {};
  return (
    <Page title="Overview">
      <div class="panel row">
        <div class="field">
          <label for="o-period">Period</label>
          <select id="o-period" value={String(days)} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
            <option value="7">Last 7 days</option>
            <option value="30">Last 30 days</option>
          </select>
        </div>
        <div class="field">
          <label for="o-domain">Domain</label>
          <select id="o-domain" value={domain} onChange={(e) => setDomain((e.target as HTMLSelectElement).value)}>
            <option value="">All domains</option>
            <DomainOptions domains={domains.data} />
          </select>
        </div>
      </div>
      <ErrorText error={metrics.error ?? domains.error} />
      {metrics.loading && !metrics.data ? <Loading what="metrics" /> : null}
      {metrics.data ? (
        <>
          <h2>Totals</h2>
          <div class="kpis">
            {COUNTS.map(([name, label]) => (
              <div class="kpi" key={name}>
                <div class="muted">{label}</div>
                <div class="value">{String(totals[name] ?? 0)}</div>
              </div>
            ))}
            {RATES.map(([name, label]) => (
              <div class="kpi" key={name}>
                <div class="muted">{label}</div>
                <div class="value">{String(totals[name] ?? '0.00')}%</div>
              </div>
            ))}
          </div>
          <h2>Per day</h2>
          <Chart reply={metrics.data} days={days} />
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">Messages per day (the chart's figures)</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  {COUNTS.map(([name, label]) => (
                    <th scope="col" key={name}>
                      {label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {metrics.data.items.map((item) => {
                  const day = item.dimensions.find((d) => d.dimension === 'time')!.value;
                  return (
                    <tr key={day}>
                      <td>{formatDate(day, true)}</td>
                      {COUNTS.map(([name]) => (
                        <td key={name}>{String(item.metrics[name] ?? 0)}</td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </Page>
  );
}
