/**
 * `tsx lib/build-side-bundles.ts <handler name> <output dir>`: builds a handler's side bundles
 * (lib/side-bundles.ts) with the esbuild options of the handler's own bundle, so packages it
 * installs rather than bundles (sharp) stay external in its side bundles too. NodejsFunction runs it
 * after bundling the entry (PlatformFunction's afterBundling hook).
 */
import { platformBundlingOf } from './constructs/platform-function';
import { esbuildOptionsOf } from './esbuild-options';
import { handlerEntry } from './paths';
import { buildSideBundle, SIDE_BUNDLES } from './side-bundles';

async function main(name: string | undefined, outDir: string | undefined): Promise<void> {
  if (!name || !outDir) throw new Error('usage: tsx lib/build-side-bundles.ts <handler name> <output dir>');
  const sides = SIDE_BUNDLES[name];
  if (!sides) throw new Error(`${name} has no side bundles`);
  const { commandHooks: _hooks, ...bundling } = platformBundlingOf(handlerEntry(name));
  for (const side of sides) await buildSideBundle(esbuildOptionsOf(bundling), side, outDir);
}

main(process.argv[2], process.argv[3]).catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
