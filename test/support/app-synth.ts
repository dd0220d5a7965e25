import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../../lib/paths';

/** The background process of startAppSynth: runs runSynth on the job in its environment. */
const RUNNER = path.join(__dirname, 'app-synth-runner.ts');
const TSX = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');

/**
 * bin/app.ts synthesized as the CDK CLI runs it (every Lambda bundled by esbuild, cdk-nag
 * registered): the slowest synth of the infra tests (minutes on two cores). It is made at most
 * once per set of sources and kept under `.cache/infra-synth/<key>/` (gitignored), `key` a hash of
 * everything the synth reads (lib/, functions/, bin/, console/ sources, cdk.json, the package
 * files, the context below, Node's version): a jest run whose sources did not change reads it, and
 * one that changed them makes it once, started by the global setup in the background while the
 * other files run (test/support/global-setup.ts), and waited for by the test that reads it.
 *
 * Kept: the cloud assembly (`assembly/`), the app's stderr (esbuild's warnings) and its exit status.
 */

/** The context the test hands the app, as the CLI would from `-c` (beside cdk.json's). */
const APP_SYNTH_CONTEXT = { regions: 'eu', euRegion: 'eu-north-1' };

export interface AppSynth {
  /** The cloud assembly directory (CDK_OUTDIR). */
  outdir: string;
  stderr: string;
  status: number | null;
}

const CACHE_ROOT = path.join(REPO_ROOT, '.cache', 'infra-synth');
const SOURCES = ['lib', 'functions', 'bin', 'console'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'cdk.out']);
const SOURCE_FILES = ['cdk.json', 'package.json', 'package-lock.json', 'tsconfig.json'];

function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) hashTree(hash, full);
    } else if (entry.isFile()) {
      hash.update(`${path.relative(REPO_ROOT, full)}\0`).update(fs.readFileSync(full)).update('\0');
    }
  }
}

/** The hash of what the synth reads: a change to any of it makes a new assembly. */
function appSynthKey(): string {
  const hash = createHash('sha256');
  hash.update(`${process.versions.node}\0${JSON.stringify(APP_SYNTH_CONTEXT)}\0`);
  for (const dir of SOURCES) hashTree(hash, path.join(REPO_ROOT, dir));
  for (const file of SOURCE_FILES) hash.update(`${file}\0`).update(fs.readFileSync(path.join(REPO_ROOT, file))).update('\0');
  return hash.digest('hex').slice(0, 24);
}

const doneDir = (key: string) => path.join(CACHE_ROOT, key);
const lockFile = (key: string) => path.join(CACHE_ROOT, `${key}.lock`);

function read(key: string): AppSynth | undefined {
  const dir = doneDir(key);
  if (!fs.existsSync(path.join(dir, 'status'))) return undefined;
  const status = fs.readFileSync(path.join(dir, 'status'), 'utf8').trim();
  return { outdir: path.join(dir, 'assembly'), stderr: fs.readFileSync(path.join(dir, 'stderr.txt'), 'utf8'), status: Number(status) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Takes the key's lock, or answers false when a live process holds it (a lock left by a dead one is taken over). */
function lock(key: string): boolean {
  fs.mkdirSync(CACHE_ROOT, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile(key), String(process.pid), { flag: 'wx' });
      return true;
    } catch {
      const holder = Number(fs.readFileSync(lockFile(key), 'utf8'));
      if (holder && alive(holder)) return false;
      fs.rmSync(lockFile(key), { force: true });
    }
  }
  return false;
}

/** One synth to make: the sources' key and a work directory of the key's. */
export interface SynthJob {
  key: string;
  workDir: string;
}

const job = (key: string): SynthJob => ({ key, workDir: fs.mkdtempSync(path.join(CACHE_ROOT, `${key}.work-`)) });

/** What the CLI hands the app: its context (cdk.json plus -c values) and the output directory. */
function synthEnv(workDir: string): NodeJS.ProcessEnv {
  const { context: flags } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  return { ...process.env, CDK_OUTDIR: path.join(workDir, 'assembly'), CDK_CONTEXT_JSON: JSON.stringify({ ...flags, ...APP_SYNTH_CONTEXT }) };
}

/** Files a finished synth under its key (whole, by one rename), drops the assemblies of older sources, and releases the lock. */
function fileSynth(key: string, workDir: string): void {
  fs.writeFileSync(path.join(workDir, 'status'), '0');
  fs.rmSync(doneDir(key), { recursive: true, force: true });
  fs.renameSync(workDir, doneDir(key));
  fs.rmSync(lockFile(key), { force: true });
  // What else is here goes (assemblies of older sources, work left by a synth that died), except
  // another key's work in progress: its `.work-` directory while a live process holds its `.lock`.
  const held = (other: string) => fs.existsSync(lockFile(other)) && alive(Number(fs.readFileSync(lockFile(other), 'utf8')));
  for (const entry of fs.readdirSync(CACHE_ROOT)) {
    const other = entry.split('.')[0]!;
    if (entry === key || (other !== key && held(other))) continue;
    fs.rmSync(path.join(CACHE_ROOT, entry), { recursive: true, force: true });
  }
}

/**
 * Runs the synth (bin/app.ts, as the test ran it itself before) and files it under the key when
 * it succeeded. A failed or killed synth is not kept: it is answered to this caller, and the next
 * reader makes it again rather than reading a failure until the sources change.
 */
export function runSynth({ key, workDir }: SynthJob): AppSynth {
  const run = spawnSync(TSX, ['bin/app.ts'], { cwd: REPO_ROOT, encoding: 'utf8', env: synthEnv(workDir), maxBuffer: 1 << 30 });
  const stderr = `${run.stderr ?? ''}${run.error ? String(run.error) : ''}`;
  fs.writeFileSync(path.join(workDir, 'stderr.txt'), stderr);
  if (run.status === 0) {
    fileSynth(key, workDir);
    return read(key)!;
  }
  fs.rmSync(lockFile(key), { force: true });
  return { outdir: path.join(workDir, 'assembly'), stderr, status: run.status };
}

/**
 * Starts the synth in the background unless it is made or being made (the global setup): a
 * detached child, so that a run that ends first (one whose files do not include the reader)
 * neither waits for it nor kills it; it files the assembly when done.
 */
export function startAppSynth(key = appSynthKey()): void {
  if (read(key) || !lock(key)) return;
  const child = spawn(TSX, [RUNNER], { cwd: REPO_ROOT, detached: true, stdio: 'ignore', env: { ...process.env, APP_SYNTH_JOB: JSON.stringify(job(key)) } });
  // The lock names the process that files the result: if it dies, the reader makes the assembly itself.
  fs.writeFileSync(lockFile(key), String(child.pid));
  child.unref();
}

/**
 * The assembly for the current sources: read from the cache, waited for while a background synth
 * makes it, or made here when none is (a run of the test alone, or one whose maker died).
 */
export async function appSynth(timeoutMs = 15 * 60_000): Promise<AppSynth> {
  const key = appSynthKey();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = read(key);
    if (done) return done;
    if (lock(key)) {
      return runSynth(job(key));
    }
    if (Date.now() > deadline) throw new Error(`bin/app.ts's synth (${lockFile(key)}) did not finish within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
