/**
 * Cold start of every Lambda entry: bundle size and module-load time of the CDK bundle, against a
 * floor bundled the same way that holds only the AWS SDK v3 clients the entry uses.
 *
 *   npx tsx bench/cold-start.ts        (or as part of `npm run bench`)
 *   npx tsx bench/cold-start.ts --only=storage,templates --no-attribution
 *                                      only those entries, without the per-package attribution
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { areas } from '../functions/routes';
import { platformEnvironment } from '../lib/constructs/platform-env';
import { PLATFORM_BUNDLING } from '../lib/constructs/platform-function';
import { esbuildOptionsOf } from '../lib/esbuild-options';
import { handlerEntry, REPO_ROOT } from '../lib/paths';
import { buildSideBundle, sideBundleFile, sideBundlesOfEntry } from '../lib/side-bundles';
import { fixed, kb, median, note, passFail, percentile, print, ratio, table, type TargetCheck } from './lib/report';
import { runNodeJson } from './lib/run-node';

/** Module loads per bundle and per mode; ours and the floor alternate. */
const RUNS = 15;
const MAX_API_BUNDLE_BYTES = 1024 * 1024;
const MAX_LOAD_RATIO = 1.25;
/** Runs per package when attributing the load-time gap to the packages only our bundles carry. */
const ATTRIBUTION_RUNS = 9;
/** Packages smaller than this in every bundle are not attributed. */
const ATTRIBUTION_MIN_BYTES = 10 * 1024;
/** A single fresh-process load taking longer than this is a hang, not a measurement. */
const LOAD_TIMEOUT_MS = 15_000;

/** The AWS SDK v3 packages each entry's code actually calls (the floor imports exactly these). */
const SDK_USED: Record<string, string[]> = {
  authorizer: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
  keys: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
  domains: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-sesv2', '@aws-sdk/client-secrets-manager'],
};

/** How the floor touches each package: by constructing its client in the handler. */
const SDK_TOUCH: Record<string, { imports: string; make: string }> = {
  '@aws-sdk/client-dynamodb': { imports: "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';", make: 'new DynamoDBClient({})' },
  '@aws-sdk/lib-dynamodb': {
    imports: "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
    make: 'DynamoDBDocumentClient.from(new DynamoDBClient({}))',
  },
  '@aws-sdk/client-sesv2': { imports: "import { SESv2Client } from '@aws-sdk/client-sesv2';", make: 'new SESv2Client({})' },
  '@aws-sdk/client-secrets-manager': {
    imports: "import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';",
    make: 'new SecretsManagerClient({})',
  },
  '@aws-sdk/client-kms': { imports: "import { KMSClient } from '@aws-sdk/client-kms';", make: 'new KMSClient({})' },
};

interface Bundle {
  file: string;
  bytes: number;
  mapBytes: number;
  metafile: Metafile;
}

async function bundle(options: BuildOptions, input: Pick<BuildOptions, 'entryPoints' | 'stdin'>, outDir: string): Promise<Bundle> {
  const file = join(outDir, 'index.js');
  // metafile only adds an in-memory report; the emitted files are unchanged.
  const result = await build({ ...options, ...input, outfile: file, metafile: true });
  const mapBytes = statSync(`${file}.map`, { throwIfNoEntry: false })?.size ?? 0;
  return { file, bytes: statSync(file).size, mapBytes, metafile: result.metafile };
}

/** The npm package an input of the bundle belongs to ("(own code)" for our sources). */
function packageOf(path: string): string {
  const parts = path.split('node_modules/');
  const tail = parts.length > 1 ? parts.at(-1)! : undefined;
  return tail ? (tail.startsWith('@') ? tail.split('/').slice(0, 2).join('/') : tail.split('/')[0]!) : '(own code)';
}

/** Output bytes per npm package (our own sources under "(own code)"). */
function bytesByPackage(metafile: Metafile): Map<string, number> {
  const out = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg = packageOf(path);
      out.set(pkg, (out.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  return out;
}

/**
 * The specifiers code outside each package imports it by ('zod/v3', not 'zod'): what the
 * attribution imports, since a package's root can be far larger than the entry point we use.
 */
function specifiersByPackage(metafile: Metafile): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [importer, { imports }] of Object.entries(metafile.inputs)) {
    for (const imp of imports) {
      if (!imp.original || imp.original.startsWith('.') || imp.external) continue;
      const pkg = packageOf(imp.path);
      if (pkg === '(own code)' || pkg === packageOf(importer)) continue;
      out.set(pkg, (out.get(pkg) ?? new Set()).add(imp.original));
    }
  }
  return out;
}

function floorSource(packages: readonly string[], extra: readonly string[] = []): string {
  // extra: specifiers imported whole on top of the SDK clients.
  const parts = [
    ...packages.map((pkg, i) => SDK_TOUCH[pkg] ?? { imports: `import * as sdk${i} from '${pkg}';`, make: `Object.keys(sdk${i}).length` }),
    ...extra.map((pkg, i) => ({ imports: `import * as extra${i} from '${pkg}';`, make: `extra${i}` })),
  ];
  return [
    ...parts.map((p) => p.imports),
    'let clients;',
    '// The clients are made on first use, as the platform code makes them; referencing them here keeps them in the bundle.',
    `export const handler = async () => { clients ??= [${parts.map((p) => p.make).join(', ')}]; return { statusCode: 200, body: String(clients.length) }; };`,
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Module-load time, each in a fresh node process.

const LOADER = [
  'const file = process.argv[1];',
  'const t0 = performance.now();',
  'const mod = require(file);',
  'const t1 = performance.now();',
  "if (typeof mod.handler !== 'function') throw new Error('no handler export in ' + file);",
  'process.stdout.write(JSON.stringify({ ms: t1 - t0 }));',
].join('\n');

async function loadOnce(file: string, env: NodeJS.ProcessEnv): Promise<number> {
  return (await runNodeJson<{ ms: number }>(LOADER, file, { what: `loading ${file}`, env, timeoutMs: LOAD_TIMEOUT_MS })).ms;
}

/** ours and floor loaded alternately (order flipped every round), after one discarded load each. */
async function measurePair(ours: string, floor: string, env: NodeJS.ProcessEnv, runs = RUNS): Promise<{ ours: number[]; floor: number[] }> {
  await loadOnce(ours, env);
  await loadOnce(floor, env);
  const samples = { ours: [] as number[], floor: [] as number[] };
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      samples.ours.push(await loadOnce(ours, env));
      samples.floor.push(await loadOnce(floor, env));
    } else {
      samples.floor.push(await loadOnce(floor, env));
      samples.ours.push(await loadOnce(ours, env));
    }
  }
  return samples;
}

/** The environment the platform Lambdas get (lib/constructs/platform-env.ts), with placeholder values. */
function lambdaEnv(name: string, nodeOptions: boolean): NodeJS.ProcessEnv {
  const platform = platformEnvironment({
    platformRegion: 'us',
    tableName: 'bench-table',
    encryptionKeySecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench',
    sandboxDomain: 'sandbox.bench.example.com',
    trackingCnameTarget: 'api.bench.example.com',
  });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: `bench-${name}`,
    ...platform,
  };
  if (!nodeOptions) delete env.NODE_OPTIONS;
  return env;
}

// ---------------------------------------------------------------------------------------------

interface LoadStats {
  samplesMs: number[];
  p50: number;
  p90: number;
}

const stats = (samplesMs: number[]): LoadStats => ({ samplesMs, p50: median(samplesMs), p90: percentile(samplesMs, 90) });

/**
 * The two bundling choices PLATFORM_BUNDLING makes beyond CDK's defaults (ES module builds first,
 * maps without sources' text), undone: what each entry would cost to load without them.
 */
const { mainFields: _mainFields, sourcesContent: _sourcesContent, ...CDK_DEFAULTS_BUNDLING } = PLATFORM_BUNDLING;

export interface ColdStartEntry {
  name: string;
  entry: string;
  kind: 'authorizer' | 'api';
  sdkUsed: string[];
  sdkBundled: string[];
  /** sideBytes: the side bundles beside index.js (lib/side-bundles.ts), required on first use. */
  ours: { bytes: number; mapBytes: number; sideBytes: number; topPackages: Array<{ pkg: string; bytes: number }> };
  floor: { bytes: number; mapBytes: number; packages: string[] };
  /** The specifiers each npm package in our bundle is imported by, from outside it. */
  packageImports: Record<string, string[]>;
  /** All npm packages in our bundle, with their bytes in the output. */
  packages: Record<string, number>;
  /** As Lambda runs them: with the platform env's NODE_OPTIONS (today --enable-source-maps). */
  loadLambdaEnv: { ours: LoadStats; floor: LoadStats; ratio: number };
  /** The same bundles without NODE_OPTIONS, for comparison. */
  loadNoSourceMaps: { ours: LoadStats; floor: LoadStats; ratio: number };
  /** Ours against ours bundled with CDK's defaults for the options we change (Lambda env). */
  bundlingChoices: { ours: LoadStats; cdkDefaults: LoadStats; cdkDefaultsBytes: number; cdkDefaultsMapBytes: number };
}

export interface ColdStartResult {
  runs: number;
  node: string;
  /** NODE_OPTIONS of the platform Lambdas, applied to the "Lambda env" loads. */
  lambdaNodeOptions: string;
  bundling: BuildOptions;
  entries: ColdStartEntry[];
  /** The load-time gap, by package: what importing each package adds to the DynamoDB floor. */
  attribution: Attribution[];
  checks: TargetCheck[];
}

export interface Attribution {
  pkg: string;
  /** The specifiers our code imports it by, which the attribution imports. */
  imports: string[];
  /** Its bytes in our bundles (the largest over the entries). */
  bytes: number;
  entries: string[];
  /** Bundle bytes it adds to the floor (with its own dependencies). */
  addedBytes: number;
  /** Median load time it adds to the floor (Lambda env). */
  addedMs: number;
}

/** Direct dependencies declared by an installed package. */
function dependenciesOf(pkg: string): string[] {
  try {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    return Object.keys(manifest.dependencies ?? {});
  } catch {
    return [];
  }
}

/**
 * Packages our bundles carry beyond the floor's (at least ATTRIBUTION_MIN_BYTES somewhere), less
 * those another such package depends on (their cost shows in that package's line), each bundled on
 * top of the DynamoDB floor and loaded alternately with it.
 */
async function attribute(entries: ColdStartEntry[], options: BuildOptions, dir: string): Promise<Attribution[]> {
  const floorPackages = new Set(entries.flatMap((e) => e.floor.packages));
  const sizes = new Map<string, { bytes: number; entries: string[] }>();
  for (const e of entries) {
    for (const [pkg, bytes] of Object.entries(e.packages)) {
      if (pkg === '(own code)' || floorPackages.has(pkg)) continue;
      const s = sizes.get(pkg) ?? { bytes: 0, entries: [] };
      s.bytes = Math.max(s.bytes, bytes);
      s.entries.push(e.name);
      sizes.set(pkg, s);
    }
  }
  const candidates = [...sizes.entries()].filter(([, s]) => s.bytes >= ATTRIBUTION_MIN_BYTES).map(([pkg]) => pkg);
  const covered = new Set(candidates.flatMap(dependenciesOf));
  const base = SDK_USED.authorizer!;
  const floor = await bundle(options, { stdin: { contents: floorSource(base), resolveDir: REPO_ROOT, sourcefile: 'floor-base.js', loader: 'js' } }, join(dir, 'attribution', 'floor'));
  const out: Attribution[] = [];
  for (const [i, pkg] of candidates.filter((p) => !covered.has(p)).entries()) {
    const imports = [...new Set(entries.filter((e) => pkg in e.packages).flatMap((e) => e.packageImports[pkg] ?? []))].sort();
    if (!imports.length) imports.push(pkg);
    note(`cold start: attributing load time to ${pkg} (${imports.join(', ')})`);
    const withPkg = await bundle(
      options,
      { stdin: { contents: floorSource(base, imports), resolveDir: REPO_ROOT, sourcefile: `floor-plus-${i}.js`, loader: 'js' } },
      join(dir, 'attribution', String(i)),
    );
    const samples = await measurePair(withPkg.file, floor.file, lambdaEnv('attribution', true), ATTRIBUTION_RUNS);
    out.push({ pkg, imports, ...sizes.get(pkg)!, addedBytes: withPkg.bytes - floor.bytes, addedMs: median(samples.ours) - median(samples.floor) });
  }
  return out.sort((a, b) => b.addedMs - a.addedMs);
}

export interface ColdStartOptions {
  /** Entries to measure (all when absent). */
  only?: string[];
  /** Skip attributing the load-time gap to packages. */
  attribution?: boolean;
}

export async function coldStart(opts: ColdStartOptions = {}): Promise<ColdStartResult> {
  const options = esbuildOptionsOf(PLATFORM_BUNDLING);
  const cdkDefaults = esbuildOptionsOf(CDK_DEFAULTS_BUNDLING);
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-'));
  const entries: ColdStartEntry[] = [];
  let attribution: Attribution[];
  try {
    const targets = [
      { name: 'authorizer', kind: 'authorizer' as const },
      ...areas.map((area) => ({ name: area, kind: 'api' as const })),
    ].filter((t) => !opts.only || opts.only.includes(t.name));
    for (const { name, kind } of targets) {
      const entry = handlerEntry(name);
      note(`cold start: bundling ${name}`);
      // Side bundles (lib/side-bundles.ts) stay out of index.js, as NodejsFunction builds them; they
      // are loaded on first use, not at cold start, so only their size is reported.
      const side = sideBundlesOfEntry(entry);
      const externals = side?.sides.map((s) => s.importPath) ?? [];
      const withSides = (o: BuildOptions): BuildOptions => ({ ...o, external: [...(o.external ?? []), ...externals] });
      const ours = await bundle(withSides(options), { entryPoints: [entry] }, join(dir, name, 'ours'));
      let sideBytes = 0;
      for (const s of side?.sides ?? []) {
        await buildSideBundle(options, s, join(dir, name, 'ours'));
        sideBytes += statSync(join(dir, name, 'ours', sideBundleFile(s))).size;
      }
      const bundledBytes = bytesByPackage(ours.metafile);
      const sdkBundled = [...bundledBytes.keys()].filter((p) => /^@aws-sdk\/(client|lib)-/.test(p)).sort();
      const sdkUsed = SDK_USED[name] ?? sdkBundled;
      const floor = await bundle(
        options,
        { stdin: { contents: floorSource(sdkUsed), resolveDir: REPO_ROOT, sourcefile: `floor-${name}.js`, loader: 'js' } },
        join(dir, name, 'floor'),
      );

      note(`cold start: loading ${name} (${RUNS} fresh processes each for ours and floor, with and without NODE_OPTIONS)`);
      const lambda = await measurePair(ours.file, floor.file, lambdaEnv(name, true));
      const plain = await measurePair(ours.file, floor.file, lambdaEnv(name, false));
      const undone = await bundle(withSides(cdkDefaults), { entryPoints: [entry] }, join(dir, name, 'cdk-defaults'));
      const choices = await measurePair(ours.file, undone.file, lambdaEnv(name, true));
      const pair = (s: { ours: number[]; floor: number[] }) => {
        const o = stats(s.ours);
        const f = stats(s.floor);
        return { ours: o, floor: f, ratio: o.p50 / f.p50 };
      };
      entries.push({
        name,
        entry: entry.slice(REPO_ROOT.length + 1),
        kind,
        sdkUsed,
        sdkBundled,
        ours: {
          bytes: ours.bytes,
          mapBytes: ours.mapBytes,
          sideBytes,
          topPackages: [...bundledBytes.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([pkg, bytes]) => ({ pkg, bytes })),
        },
        floor: { bytes: floor.bytes, mapBytes: floor.mapBytes, packages: [...bytesByPackage(floor.metafile).keys()] },
        packages: Object.fromEntries(bundledBytes),
        packageImports: Object.fromEntries([...specifiersByPackage(ours.metafile)].map(([pkg, specs]) => [pkg, [...specs].sort()])),
        loadLambdaEnv: pair(lambda),
        loadNoSourceMaps: pair(plain),
        bundlingChoices: { ours: stats(choices.ours), cdkDefaults: stats(choices.floor), cdkDefaultsBytes: undone.bytes, cdkDefaultsMapBytes: undone.mapBytes },
      });
    }
    attribution = opts.attribution === false ? [] : await attribute(entries, options, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const checks: TargetCheck[] = [];
  for (const e of entries) {
    if (e.kind === 'api') {
      checks.push({ benchmark: 'cold start', subject: `${e.name} bundle size`, figure: kb(e.ours.bytes), target: '< 1 MB', pass: e.ours.bytes < MAX_API_BUNDLE_BYTES });
    }
    checks.push({
      benchmark: 'cold start',
      subject: `${e.name} module load (Lambda env)`,
      figure: `${ratio(e.loadLambdaEnv.ratio)} of floor`,
      target: `<= ${MAX_LOAD_RATIO.toFixed(2)}x`,
      pass: e.loadLambdaEnv.ratio <= MAX_LOAD_RATIO,
    });
  }
  return { runs: RUNS, node: process.version, lambdaNodeOptions: lambdaEnv('x', true).NODE_OPTIONS ?? '', bundling: options, entries, attribution, checks };
}

export function printColdStart(result: ColdStartResult): void {
  const { entries, checks } = result;
  const checkFor = (subject: string) => checks.find((c) => c.subject === subject);
  print('== Cold start: bundle size ==');
  print(
    'esbuild with the CDK NodejsFunction options (bundle, platform node, target node24, format cjs, minify, AWS SDK bundled,',
  );
  print("linked source map as CDK's sourceMap: true). Size = index.js alone; the .map beside it is listed separately, and so are");
  print('side bundles (lib/side-bundles.ts): code built beside index.js that the handler requires on first use, not at cold start.');
  print('Floor = the same bundling of an entry that only imports (and constructs in its handler) the SDK clients the entry uses.');
  print();
  print(
    table([
      ['entry', 'ours bytes', 'ours', 'floor', 'ratio', 'ours .map', 'side bundles', 'target', 'result'],
      ...entries.map((e) => {
        const check = checkFor(`${e.name} bundle size`);
        return [
          e.name,
          String(e.ours.bytes),
          kb(e.ours.bytes),
          kb(e.floor.bytes),
          ratio(e.ours.bytes / e.floor.bytes),
          kb(e.ours.mapBytes),
          e.ours.sideBytes ? kb(e.ours.sideBytes) : '-',
          check ? check.target : '(API areas only)',
          check ? passFail(check.pass) : '-',
        ];
      }),
    ]),
  );
  print();
  print('Largest contributors to each bundle (bytes in output) and the SDK clients it carries vs uses:');
  for (const e of entries) {
    print(`  ${e.name}: ${e.ours.topPackages.map((p) => `${p.pkg} ${kb(p.bytes)}`).join(', ')}`);
    const unused = e.sdkBundled.filter((p) => !e.sdkUsed.includes(p));
    print(`  ${' '.repeat(e.name.length)}  SDK bundled: ${e.sdkBundled.join(', ') || '-'}${unused.length ? `  (not used by this entry: ${unused.join(', ')})` : ''}`);
  }
  print();
  print(`== Cold start: module load (require() of the bundle in a fresh node ${result.node} process, ${result.runs} runs each, ours/floor alternating) ==`);
  print(`Lambda env = the platform Lambda environment (lib/constructs/platform-env.ts), NODE_OPTIONS=${result.lambdaNodeOptions || '(unset)'}.`);
  print();
  print(
    table([
      ['entry', 'ours p50', 'ours p90', 'floor p50', 'floor p90', 'ratio p50', 'target', 'result'],
      ...entries.map((e) => {
        const l = e.loadLambdaEnv;
        const check = checkFor(`${e.name} module load (Lambda env)`)!;
        return [e.name, `${fixed(l.ours.p50)} ms`, `${fixed(l.ours.p90)} ms`, `${fixed(l.floor.p50)} ms`, `${fixed(l.floor.p90)} ms`, ratio(l.ratio), `<= ${MAX_LOAD_RATIO.toFixed(2)}x`, passFail(check.pass)];
      }),
    ]),
  );
  print();
  print(`Same bundles without NODE_OPTIONS${result.lambdaNodeOptions ? ` (${result.lambdaNodeOptions})` : ''}, for comparison (no target):`);
  print();
  print(
    table([
      ['entry', 'ours p50', 'ours p90', 'floor p50', 'floor p90', 'ratio p50'],
      ...entries.map((e) => {
        const l = e.loadNoSourceMaps;
        return [e.name, `${fixed(l.ours.p50)} ms`, `${fixed(l.ours.p90)} ms`, `${fixed(l.floor.p50)} ms`, `${fixed(l.floor.p90)} ms`, ratio(l.ratio)];
      }),
    ]),
  );
  print();
  print("What PLATFORM_BUNDLING's choices beyond CDK's defaults (mainFields module-first, sourcesContent false) save: ours against");
  print(`the same entry bundled without them, Lambda env, ${result.runs} alternating runs (no target):`);
  print();
  print(
    table([
      ['entry', 'ours p50', 'CDK defaults p50', 'saved', 'ours .js + .map', 'CDK defaults .js + .map'],
      ...entries.map((e) => {
        const c = e.bundlingChoices;
        return [e.name, `${fixed(c.ours.p50)} ms`, `${fixed(c.cdkDefaults.p50)} ms`, `${fixed(c.cdkDefaults.p50 - c.ours.p50)} ms`, `${kb(e.ours.bytes)} + ${kb(e.ours.mapBytes)}`, `${kb(c.cdkDefaultsBytes)} + ${kb(c.cdkDefaultsMapBytes)}`];
      }),
    ]),
  );
  print();
  if (result.attribution.length) {
    print(`Where the gap comes from: each package only our bundles carry (>= ${ATTRIBUTION_MIN_BYTES / 1024} KB), imported on top of the DynamoDB floor`);
    print(`(same bundling, Lambda env, ${ATTRIBUTION_RUNS} alternating runs; a package's line includes its own dependencies):`);
    print();
    print(
      table([
        ['package', 'imported as', 'in ours', 'adds to floor', 'adds load p50', 'entries'],
        ...result.attribution.map((a) => [a.pkg, a.imports.join(' '), kb(a.bytes), kb(a.addedBytes), `${fixed(a.addedMs)} ms`, a.entries.join(', ')]),
      ]),
    );
    print();
  }
}

if (require.main === module) {
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
  coldStart({ only, attribution: !process.argv.includes('--no-attribution') })
    .then(printColdStart)
    .catch((error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    });
}
