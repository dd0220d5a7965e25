/**
 * The web console's weight: the JavaScript and CSS a browser fetches to show its first page (the
 * entry chunk, what it imports statically, its CSS), gzipped as a server would send them, beside
 * the 200 KB budget (issue 28); and, for each page, what opening it adds (its lazy chunk and the
 * chunks only it needs). Read from Vite's manifest of the build `npm start` serves.
 *
 *   npx tsx bench/console.ts     (or as part of `npm run bench`)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildConsoleIfStale, CONSOLE_DIST } from '../lib/console-build';
import { kb, print, table, type TargetCheck } from './lib/report';

const BUDGET_BYTES = 200 * 1024;

interface Chunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export interface ConsoleWeightResult {
  firstLoadGzipBytes: number;
  firstLoadFiles: string[];
  pages: Array<{ page: string; addedGzipBytes: number }>;
  checks: TargetCheck[];
}

export function consoleWeight(): ConsoleWeightResult {
  buildConsoleIfStale();
  const manifest = JSON.parse(readFileSync(join(CONSOLE_DIST, '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;
  const gzipped = new Map<string, number>();
  const size = (file: string) => {
    if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(join(CONSOLE_DIST, file))).length);
    return gzipped.get(file)!;
  };
  /** A chunk's files with everything it imports statically. */
  const closure = (key: string, into = new Set<string>()): Set<string> => {
    const chunk = manifest[key]!;
    if (into.has(chunk.file)) return into;
    into.add(chunk.file);
    for (const css of chunk.css ?? []) into.add(css);
    for (const imported of chunk.imports ?? []) closure(imported, into);
    return into;
  };
  const [entryKey, entry] = Object.entries(manifest).find(([, chunk]) => chunk.isEntry)!;
  const first = closure(entryKey);
  const firstLoadGzipBytes = [...first].reduce((sum, file) => sum + size(file), 0);
  const pages = (entry.dynamicImports ?? []).map((key) => {
    const added = [...closure(key)].filter((file) => !first.has(file));
    return { page: key.replace(/^src\/pages\//, '').replace(/\.tsx$/, ''), addedGzipBytes: added.reduce((sum, file) => sum + size(file), 0) };
  });
  return {
    firstLoadGzipBytes,
    firstLoadFiles: [...first],
    pages,
    checks: [{ benchmark: 'console', subject: 'first load JS+CSS (gzip)', figure: kb(firstLoadGzipBytes), target: `< ${kb(BUDGET_BYTES)}`, pass: firstLoadGzipBytes < BUDGET_BYTES }],
  };
}

export function printConsoleWeight(result: ConsoleWeightResult): void {
  print('Web console weight (gzip, from the build npm start serves)');
  print(table([
    ['what', 'gzip', 'budget'],
    ['first load (entry JS + CSS)', kb(result.firstLoadGzipBytes), kb(BUDGET_BYTES)],
    ...result.pages.map((p) => [`+ opening ${p.page}`, kb(p.addedGzipBytes), '']),
  ]));
  print();
}

if (require.main === module) printConsoleWeight(consoleWeight());
