import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDate, Head } from './widgets';

export interface ChartSeries {
  label: string;
  /** One value per x; null where there is no figure (a gap, never a zero). */
  values: Array<number | null>;
}

export interface ChartProps {
  title: string;
  /** The x values: days or times as Unix seconds. */
  x: number[];
  series: ChartSeries[];
  /** Stacked areas (each series drawn on top of the ones before it) instead of lines. */
  stacked?: boolean;
}

// Blue first, red second: in the two-series charts the second is the bad news (fail, listed, rejected).
const COLOURS = ['#1f5fbf', '#b3261e', '#b06a00', '#1e7b34', '#5b6270', '#7a3fb0', '#0d7c86', '#8a5a00'];

/**
 * A chart of series over time (uPlot), and the same figures as a table below it: the chart is
 * decoration for those who can see it, the table is what it says. A stacked chart draws bars,
 * each series on top of the previous ones, its legend still showing each series' own value.
 */
export function Chart({ title, x, series, stacked }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || !x.length) return;
    const drawn: Array<Array<number | null>> = [];
    let below: number[] = x.map(() => 0);
    for (const s of series) {
      if (!stacked) {
        drawn.push(s.values);
        continue;
      }
      const top = s.values.map((v, i) => below[i]! + (v ?? 0));
      drawn.push(top);
      below = top;
    }
    const width = () => Math.max(260, el.clientWidth);
    // Stacked: bars, the whole stack drawn first and each lower part over it, so the legend reads top down.
    const order = series.map((_, i) => i);
    if (stacked) order.reverse();
    const bars = uPlot.paths.bars!({ size: [0.6, 64] });
    const plot = new uPlot(
      {
        width: width(),
        height: 240,
        series: [
          {},
          ...order.map((i) => {
            const s = series[i]!;
            const colour = COLOURS[i % COLOURS.length]!;
            return {
              label: s.label,
              stroke: colour,
              width: stacked ? 1 : 2,
              ...(stacked ? { fill: colour, paths: bars, points: { show: false } } : { points: { show: x.length <= 31 } }),
              // The legend shows the series' own figure, not the stacked height.
              value: (_u: uPlot, _v: number | null, _s: number, idx: number | null) => {
                const at = x.length === 1 ? (idx === 1 ? 0 : null) : idx;
                return at === null ? '–' : String(s.values[at] ?? '–');
              },
            };
          }),
        ],
        axes: [{}, { size: 50 }],
        scales: {
          x: { time: true },
          // Counts start at zero.
          y: { range: (_u, min, max) => [Math.min(0, min ?? 0), max && max > 0 ? max * 1.1 : 1] },
        },
      },
      // One day alone is drawn with an empty day either side: uPlot would otherwise span years.
      (x.length === 1 ? [[x[0]! - 86_400, x[0]!, x[0]! + 86_400], ...order.map((i) => [null, drawn[i]![0] ?? null, null])] : [x, ...order.map((i) => drawn[i]!)]) as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, stacked]);
  return (
    <figure class="chart-figure">
      {x.length ? <div ref={box} class="chart" role="img" aria-label={`Chart: ${title}. The same figures are in the table below.`} /> : null}
      <div class="table-wrap">
        <table>
          <caption class="muted">{title}</caption>
          <Head columns={['Day', ...series.map((s) => s.label)]} />
          <tbody>
            {x.map((t, i) => (
              <tr key={t}>
                <td>{formatDate(t, true)}</td>
                {series.map((s) => (
                  <td key={s.label}>{s.values[i] === null || s.values[i] === undefined ? 'no data' : String(s.values[i])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        {!x.length ? <p class="muted">No figures in this period.</p> : null}
      </div>
    </figure>
  );
}

/** A `YYYY-MM-DD` day as Unix seconds at its UTC midnight. */
export function daySeconds(day: string): number {
  return Date.parse(`${day.slice(0, 10)}T00:00:00Z`) / 1000;
}
