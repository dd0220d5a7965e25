import { buildConsoleIfStale } from '../../lib/console-build';

/**
 * Once per test run, before any suite: the web console is built when a fresh clone has no build
 * yet, as `npm start` builds it, so every local host a suite starts serves it at `/` (paths that
 * resolve there, such as `/o/%2E%2E`, reach the console rather than a "not built" reply).
 */
export default function globalSetup(): void {
  buildConsoleIfStale();
}
