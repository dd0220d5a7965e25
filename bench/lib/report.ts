/** Small statistics and table helpers shared by the benchmarks. */
import { join } from 'node:path';

/** Where the benchmarks write results.json and their CPU profiles (git-ignored). */
export const OUT_DIR = join(__dirname, '..', '.out');

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100) of a non-empty sample. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return Number.NaN;
  const s = sorted(values);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[Math.min(rank, s.length) - 1]!;
}

export function median(values: readonly number[]): number {
  if (!values.length) return Number.NaN;
  const s = sorted(values);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const ratio = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}x` : 'n/a');
export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
export const passFail = (pass: boolean): string => (pass ? 'PASS' : 'FAIL');

/** A plain-text table: first row is the header; numbers-looking cells are right-aligned. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  const numeric = /^[-+]?[\d.,]+( ?(KB|MB|ms|x|%|B|req\/s))?$/;
  const line = (row: readonly string[]) =>
    row.map((cell, col) => (numeric.test(cell) ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

/** One target checked by a benchmark, as the summary and results.json list it. */
/** The target of a figure an issue asks only to report beside its floor: no pass or fail. */
export const REPORTED = 'reported';

export interface TargetCheck {
  benchmark: string;
  subject: string;
  figure: string;
  target: string;
  pass: boolean;
}

// Bound once, so the report still prints while a benchmark silences the handlers' log lines.
const stdoutWrite = process.stdout.write.bind(process.stdout);

export function print(text = ''): void {
  stdoutWrite(`${text}\n`);
}

/** Progress notes go to stderr so that stdout holds only the report. */
export function note(text: string): void {
  process.stderr.write(`  .. ${text}\n`);
}
