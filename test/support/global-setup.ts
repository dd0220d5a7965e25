import * as path from 'node:path';
import { buildConsoleIfStale } from '../../lib/console-build';
import { startAppSynth } from './app-synth';

/** The test file that reads bin/app.ts's synth (test/support/app-synth.ts). */
const APP_SYNTH_READER = path.join('test', 'infra', 'app.test.ts');

/**
 * Once per test run, before any suite: the web console is built when a fresh clone has no build
 * yet, as `npm start` builds it, so every local host a suite starts serves it at `/` (paths that
 * resolve there, such as `/o/%2E%2E`, reach the console rather than a "not built" reply).
 *
 * Then, when the run includes the infra test that reads it, bin/app.ts's synth (every Lambda
 * bundled: minutes) starts in the background unless the cache already holds it for these
 * sources, so that it is made once while the other files run.
 */
export default function globalSetup(globalConfig: { rootDir: string; testPathPattern?: string }): void {
  buildConsoleIfStale();
  const pattern = globalConfig.testPathPattern;
  if (!pattern || new RegExp(pattern, 'i').test(path.join(globalConfig.rootDir, APP_SYNTH_READER))) startAppSynth();
}
