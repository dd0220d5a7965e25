import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions, Format, LogLevel } from 'esbuild';
import { REPO_ROOT } from './paths';

// The esbuild options NodejsFunction derives from its bundling options (aws-lambda-nodejs/lib/
// bundling.ts, buildEsbuildArgs: `esbuild --bundle <entry> --target=... --platform=node
// --format=... --outfile=.../index.js [--minify] [--sourcemap[=mode]] [--external:...] ...`, run in
// the project root), so benchmarks and tests build exactly the code Lambda runs.

const KNOWN_OPTIONS = new Set([
  'minify', 'sourceMap', 'sourceMapMode', 'sourcesContent', 'target', 'format', 'externalModules', 'loader',
  'define', 'logLevel', 'keepNames', 'tsconfig', 'banner', 'footer', 'mainFields', 'inject', 'forceDockerBundling',
  // Installed beside the bundle instead of bundled: external to esbuild; the environment is npm's, not esbuild's.
  'nodeModules', 'environment',
]);

export function esbuildOptionsOf(bundling: BundlingOptions): BuildOptions {
  const unknown = Object.keys(bundling).filter((k) => !KNOWN_OPTIONS.has(k));
  if (unknown.length) throw new Error(`lib/esbuild-options.ts does not know how CDK maps bundling option(s) ${unknown.join(', ')} to esbuild`);
  const sourceMapEnabled = bundling.sourceMapMode ?? bundling.sourceMap;
  const mode = bundling.sourceMapMode ?? 'default';
  return {
    bundle: true,
    platform: 'node',
    // CDK derives the target from the runtime when none is given; ours pins it.
    target: bundling.target ?? 'node24',
    format: bundling.format as Format | undefined,
    minify: bundling.minify ?? false,
    // CDK's `--sourcemap` (mode default) is esbuild's "linked": index.js.map beside index.js.
    sourcemap: sourceMapEnabled ? (mode === 'default' ? true : (mode as 'external' | 'inline' | 'both')) : false,
    sourcesContent: bundling.sourcesContent ?? true,
    // CDK's default for nodejs18+ runtimes is to leave the SDK out; ours passes [] (bundle it).
    external: [...(bundling.externalModules ?? ['@aws-sdk/*']), ...(bundling.nodeModules ?? [])],
    loader: bundling.loader as BuildOptions['loader'],
    define: bundling.define,
    keepNames: bundling.keepNames,
    tsconfig: bundling.tsconfig,
    banner: bundling.banner ? { js: bundling.banner } : undefined,
    footer: bundling.footer ? { js: bundling.footer } : undefined,
    mainFields: bundling.mainFields,
    inject: bundling.inject,
    logLevel: (bundling.logLevel as LogLevel | undefined) ?? 'warning',
    absWorkingDir: REPO_ROOT,
  };
}

