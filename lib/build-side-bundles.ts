/**
 * `tsx lib/build-side-bundles.ts <handler name> <output dir>`: builds a handler's side bundles
 * (lib/side-bundles.ts) with PLATFORM_BUNDLING's esbuild options. NodejsFunction runs it after
 * bundling the entry (PlatformFunction's afterBundling hook).
 */
import { PLATFORM_BUNDLING } from './constructs/platform-function';
import { esbuildOptionsOf } from './esbuild-options';
import { buildSideBundle, SIDE_BUNDLES } from './side-bundles';

async function main(name: string | undefined, outDir: string | undefined): Promise<void> {
  if (!name || !outDir) throw new Error('usage: tsx lib/build-side-bundles.ts <handler name> <output dir>');
  const sides = SIDE_BUNDLES[name];
  if (!sides) throw new Error(`${name} has no side bundles`);
  for (const side of sides) await buildSideBundle(esbuildOptionsOf(PLATFORM_BUNDLING), side, outDir);
}

main(process.argv[2], process.argv[3]).catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
