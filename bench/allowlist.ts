/**
 * The IP allowlist in the authorizer: one authorization (functions/authorizer/authenticate.ts: the
 * key's GetItem, then the account's allowlist read and checked) with a 1,000-entry list beside the
 * same key with an empty list, in the same local mode (dynalite in this process), alternating.
 * Reported (issue 15 asks for the figure): the latency each adds on a cache miss; a hit costs none.
 *
 *   npx tsx bench/allowlist.ts     (or as part of `npm run bench`)
 */
import { readAllowlist, saveAllowlist, type AllowedAddress } from '../functions/accounts/ip-allowlist';
import { authenticate } from '../functions/authorizer/authenticate';
import { basicAuth } from './lib/principal';
import { BENCH_KEY, withLocalMode } from './lib/local';
import { fixed, note, percentile, print, ratio, REPORTED, table, type TargetCheck } from './lib/report';

const ENTRIES = 1000;
const RUNS = 400;

export interface AllowlistBenchResult {
  emptyP50Ms: number;
  fullP50Ms: number;
  fullP90Ms: number;
  ratio: number;
  checks: TargetCheck[];
}

/** 1,000 entries as an operator might hold them: /24 ranges and single addresses, the caller's last. */
function entries(): AllowedAddress[] {
  return Array.from({ length: ENTRIES }, (_, i) => ({ ip_address: i % 2 ? `10.${(i >> 8) & 255}.${i & 255}.0/24` : `172.16.${(i >> 8) & 255}.${i & 255}`, description: `entry ${i}` }));
}

export async function allowlistBench(): Promise<AllowlistBenchResult> {
  return withLocalMode({ bench: 'allowlist' }, async ({ us, principal }) => {
    const header = basicAuth(BENCH_KEY);
    const caller = '10.3.231.77';
    const time = async (n: number) => {
      const samples: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        const verdict = await us.run(() => authenticate(header, Date.now(), caller));
        samples.push(performance.now() - started);
        if ('denied' in verdict && verdict.denied) throw new Error(`the benchmark key was refused: ${verdict.denied}`);
      }
      return samples;
    };
    const setList = (list: AllowedAddress[]) => us.run(async () => saveAllowlist(principal.accountId, await readAllowlist(principal.accountId), list));
    note(`allowlist: ${RUNS} authorizations each with an empty list and a ${ENTRIES}-entry list`);
    await time(50);
    const empty: number[] = [];
    const full: number[] = [];
    for (let round = 0; round < 4; round++) {
      await setList([]);
      empty.push(...(await time(RUNS / 4)));
      await setList(entries());
      full.push(...(await time(RUNS / 4)));
    }
    await setList([]);
    const emptyP50 = percentile(empty, 50);
    const fullP50 = percentile(full, 50);
    return {
      emptyP50Ms: emptyP50,
      fullP50Ms: fullP50,
      fullP90Ms: percentile(full, 90),
      ratio: fullP50 / emptyP50,
      checks: [{ benchmark: 'allowlist', subject: `authorization on a cache miss, ${ENTRIES}-entry allowlist / empty one (p50)`, figure: ratio(fullP50 / emptyP50), target: REPORTED, pass: true }],
    };
  });
}

export function printAllowlistBench(result: AllowlistBenchResult): void {
  print(`== IP allowlist: the authorizer on a cache miss, ${ENTRIES} entries beside none ==`);
  print(
    table([
      ['list', 'p50 ms', 'p90 ms'],
      ['empty', fixed(result.emptyP50Ms, 3), ''],
      [`${ENTRIES} entries`, fixed(result.fullP50Ms, 3), fixed(result.fullP90Ms, 3)],
      ['full / empty', ratio(result.ratio), 'reported'],
    ]),
  );
  print();
}

if (require.main === module) {
  allowlistBench()
    .then(printAllowlistBench)
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
