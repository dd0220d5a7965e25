import { Session } from 'node:inspector/promises';

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

/** Self time (microseconds) per bucket (package / our folder / node internal) and per function. */
export function selfTimes(p: CpuProfile): { totalUs: number; buckets: Map<string, number>; functions: Map<string, number> } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
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
