/**
 * The custom monthly limit on the accept path: POST /v3/{domain}/messages through local mode's
 * HTTP API (authorizer, handler, stand-ins) by 8 concurrent clients, with the account's limit on
 * (each send reserves its recipients with a conditional UpdateItem) beside the same run with it
 * off, rounds alternating. Target (issue 15): on within 1.1x of off (messages/s). A third variant,
 * the limit off but each send preceded by one bare conditional ADD on a counter item issued by the
 * bench itself, shows what the write the cap needs costs on these stand-ins, whatever code issues it.
 *
 *   npx tsx bench/monthly-limit.ts     (or as part of `npm run bench`)
 */
import { request } from 'node:http';
import { fixed, median, note, print, ratio, table, type TargetCheck } from './lib/report';
import { addToCounter } from '../functions/data/store';
import { BENCH_KEY, withLocalMode } from './lib/local';

const ROUNDS = 6;
const SENDS = 300;
const IN_FLIGHT = 8;
const MAX_RATIO = 1.1;

export interface MonthlyLimitBenchResult {
  offPerSecond: number;
  onPerSecond: number;
  /** Limit off, each send preceded by a bare conditional ADD: the cap's write alone. */
  bareCounterPerSecond: number;
  ratio: number;
  rounds: { off: number[]; on: number[]; bareCounter: number[] };
  checks: TargetCheck[];
}

function call(url: string, method: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, headers: { authorization: `Basic ${Buffer.from(`api:${BENCH_KEY}`).toString('base64')}`, ...(body ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function monthlyLimitBench(): Promise<MonthlyLimitBenchResult> {
  return withLocalMode({ bench: 'monthly limit', authorizerCacheSeconds: 300 }, async ({ us, sandbox }) => {
    const send = () => call(`${us.url}/v3/${sandbox}/messages`, 'POST', new URLSearchParams({ from: `bench@${sandbox}`, to: 'reader@example.com', subject: 'monthly limit', text: 'hello' }).toString());
    // The same write reserveMonthly makes (functions/accounts/monthly-limit.ts), on an item of its own.
    const bareCounter = () => us.run(() => addToCounter({ pk: 'BENCH#monthly-limit', sk: 'count' }, 'count', 1, { atMost: 1e12 }));
    const round = async (withBareCounter = false): Promise<number> => {
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next++ < SENDS) {
            if (withBareCounter) await bareCounter();
            const status = await send();
            if (status !== 200) throw new Error(`a benchmark send answered ${status}`);
          }
        }),
      );
      return SENDS / ((performance.now() - started) / 1000);
    };
    const setLimit = async (on: boolean) => {
      const status = on ? await call(`${us.url}/v5/accounts/limit/custom/monthly?limit=100000000`, 'PUT') : await call(`${us.url}/v5/accounts/limit/custom/monthly`, 'DELETE');
      if (status !== 200) throw new Error(`setting the limit answered ${status}`);
    };
    note('monthly limit: warm-up');
    await round();
    const rounds = { off: [] as number[], on: [] as number[], bareCounter: [] as number[] };
    const variants = ['off', 'on', 'bareCounter'] as const;
    for (let i = 0; i < ROUNDS; i++) {
      note(`monthly limit: round ${i + 1}/${ROUNDS} (${SENDS} sends each, limit off, on, and off with a bare counter write)`);
      // Each variant takes each place in the order in turn.
      for (let v = 0; v < variants.length; v++) {
        const variant = variants[(i + v) % variants.length]!;
        await setLimit(variant === 'on');
        rounds[variant].push(await round(variant === 'bareCounter'));
      }
    }
    const off = median(rounds.off);
    const on = median(rounds.on);
    const r = off / on;
    return {
      offPerSecond: off,
      onPerSecond: on,
      bareCounterPerSecond: median(rounds.bareCounter),
      ratio: r,
      rounds,
      checks: [{ benchmark: 'monthly limit', subject: 'sends/s with the monthly limit off / on (same run)', figure: ratio(r), target: `<= ${MAX_RATIO}x`, pass: r <= MAX_RATIO }],
    };
  });
}

export function printMonthlyLimitBench(result: MonthlyLimitBenchResult): void {
  print(`== Monthly limit on the accept path: ${SENDS} sends x ${ROUNDS} rounds, ${IN_FLIGHT} in flight, local mode over HTTP ==`);
  print('on = the account has a custom monthly limit (each send reserves its recipients with one conditional UpdateItem); off = no limit.');
  print();
  print(
    table([
      ['variant', 'sends/s (median)', 'rounds'],
      ['limit off', fixed(result.offPerSecond, 0), result.rounds.off.map((v) => fixed(v, 0)).join(', ')],
      ['limit on', fixed(result.onPerSecond, 0), result.rounds.on.map((v) => fixed(v, 0)).join(', ')],
      ['limit off, a bare conditional ADD per send', fixed(result.bareCounterPerSecond, 0), result.rounds.bareCounter.map((v) => fixed(v, 0)).join(', ')],
      ['off / on', ratio(result.ratio), `target <= ${MAX_RATIO}x`],
      ['off / (off with a bare conditional ADD)', ratio(result.offPerSecond / result.bareCounterPerSecond), 'the write alone, no target'],
      ['(off with a bare conditional ADD) / on', ratio(result.bareCounterPerSecond / result.onPerSecond), 'our cost beyond the write'],
    ]),
  );
  print();
}

if (require.main === module) {
  monthlyLimitBench()
    .then(printMonthlyLimitBench)
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
