import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './chart.css';
import { formatDate } from './widgets';

/** One line (or bar) of a chart: its name and a value per x. */
export interface ChartSeries {
  label: string;
  values: ReadonlyArray<number | null>;
  /** A CSS colour; a palette colour when absent. */
  color?: string;
}

export interface ChartProps {
  /** What the chart shows, said to screen readers (the table says the same in text). */
  title: string;
  /** The x values: unix seconds for a time axis, or category names (domains, countries…). */
  x: ReadonlyArray<number> | ReadonlyArray<string>;
  /** Each x is a day (UTC midnight, daySeconds): the table reads it as a date, a gap as "no data". */
  days?: boolean;
  /** The x column's header in the table ("Day" for days, "Time" otherwise). */
  xLabel?: string;
  series: ReadonlyArray<ChartSeries>;
  /** Lines over time (the default when x is numbers), bars per category (the default for names). */
  kind?: 'lines' | 'bars';
  /** Stack the series (areas over time, stacked bars per category). */
  stacked?: boolean;
  height?: number;
  /** How an x value reads in the table (times default to the date and time). */
  formatX?: (value: number | string) => string;
  /** The table alternative under the chart (default true); a page with a table of its own says false. */
  table?: boolean;
  tableCaption?: string;
  /** The table folded under a "Figures as a table" summary (for long series beside other content). */
  collapsible?: boolean;
}

/** The spacings a day axis may put between ticks, in seconds: 1, 2 and 7 days, then months, quarters and years. */
const DAY_TICKS = [1, 2, 7, 14, 30, 91, 365].map((n) => n * 86_400);

/** Colours that keep 3:1 contrast on white and stay apart for common colour blindness. */
export const PALETTE = ['#1f5fbf', '#b3261e', '#1e7b34', '#7a3fb0', '#b06a00', '#0d7c86', '#5b6270', '#a4307a', '#3d5a00', '#8a4b2a'];

const colorOf = (series: ChartSeries, index: number) => series.color ?? PALETTE[index % PALETTE.length]!;

function defaultFormat(value: number | string): string {
  if (typeof value === 'string') return value;
  const date = new Date(value * 1000);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().replace('T', ' ').replace(/:00\.000Z$/, ' UTC');
}

function Fold({ when, children }: { when: boolean; children: ComponentChildren }) {
  return when ? (
    <details>
      <summary>Figures as a table</summary>
      {children}
    </details>
  ) : (
    <>{children}</>
  );
}

/** Running totals per x, series by series: what a stacked chart draws. */
function stack(series: ReadonlyArray<ChartSeries>): Array<Array<number | null>> {
  const sums: number[] = [];
  return series.map((s) =>
    s.values.map((v, i) => {
      sums[i] = (sums[i] ?? 0) + (v ?? 0);
      return sums[i]!;
    }),
  );
}

/**
 * A chart (uPlot, in a canvas) with its figures as a table below it: series in, uPlot out. Time
 * axes take unix seconds; category axes take names and draw bars. Stacked charts draw running
 * totals and list each series' own figures in the table.
 *
 * The canvas is drawn from the frame after the one its data arrives in: the page's figures (the
 * table here, its other state) paint first, and the chart's room is kept meanwhile, so nothing moves.
 */
export function Chart({ title, x, days, xLabel = days ? 'Day' : 'Time', series, kind, stacked, height = 260, formatX = days ? (v) => formatDate(v, true) : defaultFormat, table = true, tableCaption, collapsible }: ChartProps) {
  const [painted, setPainted] = useState(false);
  // Preact runs effects after the browser has painted.
  useEffect(() => setPainted(true), []);
  const missing = days ? 'no data' : '';
  const box = useRef<HTMLDivElement>(null);
  const categorical = typeof x[0] === 'string';
  const bars = (kind ?? (categorical ? 'bars' : 'lines')) === 'bars';
  useEffect(() => {
    const el = box.current;
    if (!painted || !el || !x.length || !series.length) return;
    const xs = categorical ? x.map((_, i) => i) : (x as number[]);
    const ys = stacked ? stack(series) : series.map((s) => [...s.values]);
    // Stacked series are drawn last to first, so each lower total shows in front of the one above it.
    const order = stacked ? [...series.keys()].reverse() : [...series.keys()];
    const names = x as ReadonlyArray<number | string>;
    const single = !categorical && xs.length === 1;
    const step = days ? 86_400 : 3_600;
    const width = () => Math.max(260, el.clientWidth);
    const barSize = (i: number) => (stacked ? 0.7 : Math.max(0.2, 0.8 - (0.6 * i) / Math.max(1, series.length)));
    const plot = new uPlot(
      {
        width: width(),
        height,
        series: [
          { label: xLabel, value: (_u, v) => (v === null || v === undefined ? '' : categorical ? String(names[v] ?? '') : formatX(v)) },
          ...order.map((i) => {
            const s = series[i]!;
            const color = colorOf(s, i);
            return {
              label: s.label,
              stroke: color,
              width: bars ? 1 : 2,
              ...(bars || stacked ? { fill: `${color}${bars ? 'cc' : '55'}` } : {}),
              ...(bars ? { paths: uPlot.paths.bars!({ size: [barSize(i), 80] }), points: { show: false } } : { points: { show: xs.length <= 31 } }),
              // The legend gives the series' own figure, not the stacked height it is drawn at.
              value: (_u: uPlot, _v: number | null, _s: number, at: number | null) => (at === null ? '–' : String(s.values[single ? at - 1 : at] ?? '–')),
            };
          }),
        ],
        axes: [
          categorical
            ? { values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(names[v] ?? '') : '')) }
            : days
              ? // Whole days between ticks, each read as its date: hours mean nothing on daily figures.
                { incrs: DAY_TICKS, values: (_u, splits) => splits.map((v) => formatDate(v, true)) }
              : {},
          { size: 56 },
        ],
        scales: {
          x: categorical ? { time: false, range: [-0.6, xs.length - 0.4] } : { time: true },
          // Counts start at zero.
          y: { range: (_u, min, max) => [Math.min(0, min ?? 0), max && max > 0 ? max * 1.1 : 1] },
        },
      },
      // One instant alone is drawn with an empty step either side: uPlot would otherwise span years.
      (single ? [[xs[0]! - step, xs[0]!, xs[0]! + step], ...order.map((i) => [null, ys[i]![0] ?? null, null])] : [xs, ...order.map((i) => ys[i]!)]) as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [painted, x, series, kind, stacked, height, days]);
  if (!x.length || !series.length) return <p class="muted">Nothing to chart: no figures for this choice.</p>;
  return (
    <figure class="chart-figure">
      <div ref={box} class="chart" role="img" aria-label={`${title}${table ? '; the same figures are in the table below' : '; the same figures are in the table'}`} />
      {table ? (
        <Fold when={!!collapsible}>
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">{tableCaption ?? title}</caption>
              <thead>
                <tr>
                  <th scope="col">{xLabel}</th>
                  {series.map((s) => (
                    <th scope="col" key={s.label}>
                      {s.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {x.map((value, i) => (
                  <tr key={String(value)}>
                    <th scope="row">{formatX(value)}</th>
                    {series.map((s) => (
                      <td key={s.label}>{s.values[i] === null || s.values[i] === undefined ? missing : String(s.values[i])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Fold>
      ) : null}
    </figure>
  );
}

/** A `YYYY-MM-DD` day as Unix seconds at its UTC midnight. */
export function daySeconds(day: string): number {
  return Date.parse(`${day.slice(0, 10)}T00:00:00Z`) / 1000;
}
