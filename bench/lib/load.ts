import { runNodeJson } from './run-node';

/** What one load run measured. */
export interface LoadRun {
  requestsPerSecond: number;
  /** Requests in the measured phase. */
  total: number;
  /** Requests in the warm-up phase (not measured). */
  warmupTotal: number;
  durationSeconds: number;
  /** autocannon records latency in whole milliseconds. */
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Hard cap on requests per phase, so a very fast target still sends a bounded number. */
  maxRequests: number;
  /** A POST (or other method) with this body; a GET without. */
  method?: string;
  body?: string;
  /** Requests a second across all connections (autocannon's overallRate); as fast as answered when absent. */
  overallRate?: number;
}

// Runs in its own node process (the other core), so the load generator never competes with the
// server under test for its event loop. Warm-up first (discarded), then the measured phase.
const RUNNER = `
const autocannon = require(${JSON.stringify(require.resolve('autocannon'))});
const cfg = JSON.parse(process.argv[1]);
const phase = (duration) => autocannon({
  url: cfg.url, headers: cfg.headers, connections: cfg.connections, pipelining: 1,
  duration, timeout: 10, maxOverallRequests: cfg.maxRequests,
  ...(cfg.method ? { method: cfg.method } : {}), ...(cfg.body ? { body: cfg.body } : {}), ...(cfg.overallRate ? { overallRate: cfg.overallRate } : {}),
});
(async () => {
  const warm = cfg.warmupSeconds > 0 ? await phase(cfg.warmupSeconds) : undefined;
  const r = await phase(cfg.durationSeconds);
  process.stdout.write(JSON.stringify({
    warmupTotal: warm ? warm.requests.total : 0, total: r.requests.total, durationSeconds: r.duration, p50Ms: r.latency.p50, p99Ms: r.latency.p99,
    meanMs: r.latency.mean, errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx,
  }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

/** Drives `url` with a fixed number of keep-alive connections for a fixed time (autocannon, in a child process). */
export function load(options: LoadOptions): Promise<LoadRun> {
  const url = new URL(options.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`benchmarks only send traffic to 127.0.0.1, not ${url.hostname}`);
  const limitMs = (options.warmupSeconds + options.durationSeconds + 30) * 1000;
  return runNodeJson<Omit<LoadRun, 'requestsPerSecond'>>(RUNNER, JSON.stringify(options), { what: 'load generator', timeoutMs: limitMs }).then((r) => ({
    ...r,
    requestsPerSecond: r.total / r.durationSeconds,
  }));
}
