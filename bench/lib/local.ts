import type { Principal } from '../../functions/platform/principal';
import { startLocal, type LocalOptions, type LocalPlatform } from '../../lib/local/platform';
import type { RegionHost } from '../../lib/local/region-host';
import { basicAuth, primaryPrincipal } from './principal';
import { note } from './report';
import { silenceStdout } from './stdout';

/** The primary account's admin key in every benchmark's local mode. */
export const BENCH_KEY = 'bench-admin-key-0123456789abcdef';

export interface LocalBench {
  /** The US region, where every benchmark runs. */
  us: RegionHost;
  /** The primary account (BENCH_KEY's) as the authorizer hands it over, and its sandbox domain. */
  principal: Principal;
  sandbox: string;
  /** The root certificate local mode's TLS listeners (SMTP) chain to, PEM. */
  caPem: string;
  /** Lines the handlers have written to stdout so far (dropped, counted). */
  stdout: { lines(): number };
  /** Runs `cleanup` when `fn` is done, before local mode closes; the last registered runs first. */
  atClose(cleanup: () => void | Promise<void>): void;
}

/**
 * Runs `fn` against local mode started in this process (in memory, ephemeral ports on 127.0.0.1,
 * BENCH_KEY as the admin key), with the handlers' stdout silenced; then runs what `fn` registered
 * with atClose, closes local mode and restores stdout, whether `fn` succeeded or not.
 */
export async function withLocalMode<T>(
  options: { bench: string } & Omit<LocalOptions, 'port' | 'euPort' | 'dataDir' | 'bootstrapApiKey'>,
  fn: (local: LocalBench) => Promise<T>,
): Promise<T> {
  const { bench, ...localOptions } = options;
  const stdout = silenceStdout();
  const cleanups: Array<() => void | Promise<void>> = [];
  let platform: LocalPlatform | undefined;
  try {
    note(`${bench}: starting local mode (in-process, in-memory)`);
    // The benches send from the sandbox to made-up recipients, as local mode lets anyone do by default.
    platform = await startLocal({ ...localOptions, port: 0, dataDir: null, bootstrapApiKey: BENCH_KEY });
    const us = platform.us;
    const { principal, sandbox } = await primaryPrincipal(us.env, basicAuth(BENCH_KEY));
    return await fn({ us, principal, sandbox, caPem: platform.ca.certificatePem, stdout, atClose: (cleanup) => void cleanups.push(cleanup) });
  } finally {
    try {
      for (const cleanup of cleanups.reverse()) await cleanup();
    } finally {
      await platform?.close();
      stdout.restore();
    }
  }
}
