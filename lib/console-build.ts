import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './paths';

/** The console's sources (a Vite app) and its build, which local mode serves and the CDK app uploads. */
const CONSOLE_DIR = join(REPO_ROOT, 'console');
export const CONSOLE_DIST = join(CONSOLE_DIR, 'dist');

/** What the build reads besides console/: the modules the console shares with the platform. */
const SHARED_SOURCES = [join(REPO_ROOT, 'functions', 'platform', 'access.ts'), join(REPO_ROOT, 'functions', 'webhooks', 'names.ts'), join(REPO_ROOT, 'package-lock.json')];

/** The newest file's time under `path` (files only: a folder's own time moves when a build is swapped in). */
function newestIn(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => (name === 'dist' || name.startsWith('.dist-') || name === 'node_modules' ? newest : Math.max(newest, newestIn(join(path, name)))), 0);
}

/** True when console/dist is missing or older than anything it is built from. */
function consoleBuildIsStale(): boolean {
  const built = join(CONSOLE_DIST, 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return Math.max(newestIn(CONSOLE_DIR), ...SHARED_SOURCES.map(newestIn)) > builtAt;
}

/**
 * Builds the console with Vite when its build is missing or stale: `npm start` and `cdk synth`
 * call this, so neither needs a command of its own. Vite runs in a child process; its output
 * (warnings, errors) goes to stderr. Throws when the build fails.
 */
export function buildConsoleIfStale(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): boolean {
  if (!consoleBuildIsStale()) return false;
  log('Building the web console (console/ -> console/dist)...');
  // Built beside dist and swapped in whole: processes that build at once (test workers, a synth
  // beside `npm start`) never serve or upload a half-written build.
  const staging = join(CONSOLE_DIR, `.dist-${process.pid}`);
  const vite = join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', join(CONSOLE_DIR, 'vite.config.mts'), '--outDir', staging, '--emptyOutDir'], { cwd: CONSOLE_DIR, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`The console's build failed (vite exited with ${result.status ?? result.signal})`);
  }
  const previous = `${staging}-old`;
  if (existsSync(CONSOLE_DIST)) renameSync(CONSOLE_DIST, previous);
  renameSync(staging, CONSOLE_DIST);
  rmSync(previous, { recursive: true, force: true });
  return true;
}
