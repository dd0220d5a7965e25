/**
 * Where the accept path bends in local mode: POST /v3/{domain}/messages through the local HTTP
 * API at a rising rate (autocannon at a fixed overall rate, in its own process), until its p99
 * latency doubles from the lowest rate's, the rate is no longer kept, or answers stop being 200.
 * For each step it also takes the host process's event-loop utilisation and CPU: local mode runs
 * every handler, the send worker, the stand-ins' queues and the event stream in one Node process,
 * so that is where it bends. A report, not a gate (docs/capacity.md says what binds on AWS).
 *
 *   npx tsx bench/accept-load.ts     (or as part of `npm run bench`)
 */
import { performance } from 'node:perf_hooks';
import { BENCH_KEY, withLocalMode } from './lib/local';
import { load, type LoadRun } from './lib/load';
import { fixed, note, print, table } from './lib/report';

/** The first rate (messages a second), and the factor between steps. */
const FIRST_RATE = 10;
const STEP = 1.5;
const MAX_STEPS = 12;
const WARMUP_SECONDS = 2;
const STEP_SECONDS = 8;
/** Bent: the p99 at this multiple of the first step's, or the rate kept below this share. */
const P99_FACTOR = 2;
const KEPT_SHARE = 0.85;

export interface AcceptLoadStep {
  targetPerSecond: number;
  run: LoadRun;
  /** Share of the step the host's event loop was busy (0 to 1). */
  eventLoopUtilisation: number;
  /** The host process's CPU time over the step's wall time (1 = one core). */
  cpuCores: number;
}

export interface AcceptLoadResult {
  baselineP99Ms: number;
  steps: AcceptLoadStep[];
  /** The step where it bent, and why; undefined when it never did within MAX_STEPS. */
  bent?: { atPerSecond: number; why: string };
}

export async function acceptLoad(): Promise<AcceptLoadResult> {
  return withLocalMode({ bench: 'accept load', authorizerCacheSeconds: 300 }, async ({ us, sandbox }) => {
    const body = new URLSearchParams({ from: `bench@${sandbox}`, to: 'reader@example.com', subject: 'load', text: 'hello' }).toString();
    const headers = { authorization: `Basic ${Buffer.from(`api:${BENCH_KEY}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' };
    const steps: AcceptLoadStep[] = [];
    let bent: AcceptLoadResult['bent'];
    let rate = FIRST_RATE;
    for (let i = 0; i < MAX_STEPS && !bent; i++, rate = Math.round(rate * STEP)) {
      note(`accept load: ${rate} messages/s for ${STEP_SECONDS} s (after ${WARMUP_SECONDS} s of warm-up)`);
      const elu = performance.eventLoopUtilization();
      const cpu = process.cpuUsage();
      const wallStart = performance.now();
      const run = await load({
        url: `${us.url}/v3/${sandbox}/messages`,
        method: 'POST',
        body,
        headers,
        // Enough connections that the rate is never held back by waiting for answers.
        connections: Math.max(8, Math.ceil(rate / 5)),
        overallRate: rate,
        warmupSeconds: WARMUP_SECONDS,
        durationSeconds: STEP_SECONDS,
        maxRequests: rate * (STEP_SECONDS + 1),
      });
      const wallMs = performance.now() - wallStart;
      const used = process.cpuUsage(cpu);
      const step: AcceptLoadStep = { targetPerSecond: rate, run, eventLoopUtilisation: performance.eventLoopUtilization(elu).utilization, cpuCores: (used.user + used.system) / 1000 / wallMs };
      steps.push(step);
      const baseline = steps[0]!.run.p99Ms;
      const host = `the host's event loop was busy ${fixed(step.eventLoopUtilisation * 100, 0)}% of the step (${fixed(step.cpuCores, 2)} cores of CPU): every handler, the send worker, the queues and the event stream share that one process`;
      if (run.non2xx || run.errors || run.timeouts) bent = { atPerSecond: rate, why: `${run.non2xx} answers were not 200 and ${run.errors + run.timeouts} requests failed; ${host}` };
      else if (run.p99Ms >= P99_FACTOR * baseline) bent = { atPerSecond: rate, why: `p99 ${run.p99Ms} ms, ${fixed(run.p99Ms / baseline, 1)}x the ${baseline} ms at ${FIRST_RATE}/s; ${host}` };
      // The first step is the baseline: its own rate is not judged.
      else if (i > 0 && run.requestsPerSecond < KEPT_SHARE * rate) bent = { atPerSecond: rate, why: `only ${fixed(run.requestsPerSecond, 0)} of ${rate} messages/s were answered; ${host}` };
    }
    return { baselineP99Ms: steps[0]!.run.p99Ms, steps, bent };
  });
}

export function printAcceptLoad(result: AcceptLoadResult): void {
  print(`== Accept path under a rising rate: POST /v3/{domain}/messages, local mode over HTTP, steps of ${STEP_SECONDS} s, x${STEP} each ==`);
  print(`Stops when p99 reaches ${P99_FACTOR}x the first step's, the rate is not kept (${KEPT_SHARE * 100}%), or an answer is not 200.`);
  print();
  print(
    table([
      ['target/s', 'answered/s', 'p50 ms', 'p99 ms', 'p99 / first', 'not 200', 'event loop busy', 'CPU cores'],
      ...result.steps.map((s) => [
        String(s.targetPerSecond),
        fixed(s.run.requestsPerSecond, 0),
        String(s.run.p50Ms),
        String(s.run.p99Ms),
        fixed(s.run.p99Ms / result.baselineP99Ms, 2),
        String(s.run.non2xx + s.run.errors + s.run.timeouts),
        `${fixed(s.eventLoopUtilisation * 100, 0)}%`,
        fixed(s.cpuCores, 2),
      ]),
    ]),
  );
  print();
  print(result.bent ? `Bent at ${result.bent.atPerSecond} messages/s: ${result.bent.why}.` : `Did not bend up to ${result.steps.at(-1)!.targetPerSecond} messages/s.`);
  print('This is the local host on this machine, not AWS: see docs/capacity.md for what binds there.');
  print();
}

if (require.main === module) {
  acceptLoad()
    .then(printAcceptLoad)
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
