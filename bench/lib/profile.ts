import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { OUT_DIR } from './report';

/** The V8 CPU profile format (what `node --cpu-prof` writes). */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Profiles this process's main thread while `fn` runs (the same data `node --cpu-prof` collects). */
export async function profile<T>(fn: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const result = await fn();
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    return { result, profile };
  } finally {
    session.disconnect();
  }
}

/** Where a frame lives: an npm package, one of our folders, node internals, or a V8 pseudo-frame. */
function bucketOf(url: string, functionName: string): string {
  if (!url) return functionName ? `(${functionName.replace(/[()]/g, '')})` : '(native)';
  const nm = url.split('node_modules/');
  if (nm.length > 1) {
    const tail = nm.at(-1)!;
    return tail.startsWith('@') ? tail.split('/').slice(0, 2).join('/') : tail.split('/')[0]!;
  }
  if (url.startsWith('node:')) return url;
  const repo = /\/(functions|lib|bench|bin)\/(.*)$/.exec(url);
  if (repo) return `${repo[1]}/${repo[2]!.split('/').slice(0, 2).join('/')}`;
  return url;
}

/**
 * Nodes under a node:inspector frame: the profiler's own work (Profiler.stop serialising the
 * profile shows up as `(dispatch)`), never the code measured.
 */
function profilerFrames(p: CpuProfile): Set<number> {
  const out = new Set<number>();
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const mark = (id: number) => {
    out.add(id);
    for (const child of byId.get(id)?.children ?? []) mark(child);
  };
  for (const n of p.nodes) if (n.callFrame.url === 'node:inspector' && !out.has(n.id)) mark(n.id);
  return out;
}

/**
 * Self time (microseconds) per bucket (package / our folder / node internal) and per function; the
 * profiler's own work excluded.
 *
 * weight `time` (default) credits each sample with the wall time since the previous one, as
 * DevTools does. When this thread is descheduled (another process on the core), that gap lands on
 * whatever frame it stopped in, often a native call such as `(writev)` right after it woke the
 * other side of a loopback socket. weight `samples` credits every sample with the median interval
 * instead, which approximates on-CPU time when other processes compete for the cores.
 */
export function selfTimes(p: CpuProfile, options: { weight?: 'time' | 'samples' } = {}): { totalUs: number; buckets: Map<string, number>; functions: Map<string, number> } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const skip = profilerFrames(p);
  const deltas = [...p.timeDeltas].sort((a, b) => a - b);
  const typical = deltas[Math.floor(deltas.length / 2)] ?? 0;
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) {
    if (skip.has(p.samples[i]!)) continue;
    self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (options.weight === 'samples' ? typical : (p.timeDeltas[i] ?? 0)));
  }
  const buckets = new Map<string, number>();
  const functions = new Map<string, number>();
  let totalUs = 0;
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id)!;
    const bucket = bucketOf(callFrame.url, callFrame.functionName);
    totalUs += us;
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    const fnKey = callFrame.url ? `${callFrame.functionName || '(anonymous)'} ${bucket}:${callFrame.lineNumber + 1}` : bucket;
    functions.set(fnKey, (functions.get(fnKey) ?? 0) + us);
  }
  return { totalUs, buckets, functions };
}

/** Saves a profile as OUT_DIR/`name`.cpuprofile, for Chrome DevTools. */
export function saveProfile(name: string, p: CpuProfile): void {
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, `${name}.cpuprofile`), JSON.stringify(p));
}

/**
 * The coarse layer of the stack a bucket (from selfTimes) belongs to. `own` names a benchmark's
 * own layers and is asked first; what it leaves (undefined) goes to the layers every benchmark has.
 */
export function layerOf(bucket: string, own?: (bucket: string) => string | undefined): string {
  const layer = own?.(bucket);
  if (layer !== undefined) return layer;
  if (/^@(aws-sdk|smithy|aws-crypto)\//.test(bucket) || ['fast-xml-parser', 'strnum', 'bowser', 'tslib', 'uuid'].includes(bucket)) return 'AWS SDK (@aws-sdk, @smithy, @aws-crypto)';
  if (bucket.startsWith('functions/')) return 'our code (functions/)';
  if (bucket === '(garbage collector)') return 'garbage collector';
  if (bucket === '(program)') return 'V8 / native (program)';
  if (bucket === '(writev)') return 'native: socket writes';
  if (bucket === '(runMicrotasks)') return 'native: microtask queue';
  if (bucket.startsWith('(')) return 'native: other (hashing, buffers, ...)';
  if (bucket.startsWith('node:')) return 'node internals (node:*)';
  if (bucket.startsWith('bench/')) return 'bench harness';
  return 'other';
}

/** The 10 functions with the most self time (from selfTimes), each divided by `per`; `(idle)` left out unless `withIdle`. */
export function topFunctions(functions: Map<string, number>, per: number, options: { withIdle?: boolean } = {}): Array<{ name: string; us: number }> {
  return [...functions.entries()]
    .filter(([name]) => options.withIdle || name !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([name, us]) => ({ name, us: us / per }));
}
