/**
 * The custom monthly limit on the accept path: POST /v3/{domain}/messages through local mode's
 * HTTP API (authorizer, handler, stand-ins) by 8 concurrent clients, with the account's limit on
 * (each send reserves its recipients with a conditional UpdateItem) beside the same run with it
 * off, rounds alternating. Target (issue 15): on within 1.1x of off (messages/s).
 *
 *   npx tsx bench/monthly-limit.ts     (or as part of `npm run bench`)
 */
import { request } from 'node:http';
import { fixed, median, note, print, ratio, table, type TargetCheck } from './lib/report';
import { BENCH_KEY, withLocalMode } from './lib/local';

const ROUNDS = 6;
const SENDS = 300;
const IN_FLIGHT = 8;
const MAX_RATIO = 1.1;

export interface MonthlyLimitBenchResult {
  offPerSecond: number;
  onPerSecond: number;
  ratio: number;
  rounds: { off: number[]; on: number[] };
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
    const round = async (): Promise<number> => {
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next++ < SENDS) {
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
    const rounds = { off: [] as number[], on: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      note(`monthly limit: round ${i + 1}/${ROUNDS} (${SENDS} sends each, limit off and on)`);
      for (const on of i % 2 ? [true, false] : [false, true]) {
        await setLimit(on);
        rounds[on ? 'on' : 'off'].push(await round());
      }
    }
    const off = median(rounds.off);
    const on = median(rounds.on);
    const r = off / on;
    return {
      offPerSecond: off,
      onPerSecond: on,
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
      ['off / on', ratio(result.ratio), `target <= ${MAX_RATIO}x`],
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
