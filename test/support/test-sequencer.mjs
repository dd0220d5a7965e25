import path from 'node:path';
import sequencer from '@jest/test-sequencer';

/**
 * The test files that take longest, longest first (measured with two workers on two cores).
 * Jest starts the longest files first from the durations its cache recorded in earlier runs, so
 * no worker idles at the end while another finishes a long file alone. A fresh clone has no such
 * record, and Jest's fallback is file size.
 */
// (test/infra/app.test.ts is not among them: it waits for bin/app.ts's synth, which the global
// setup starts in the background (test/support/app-synth.ts), so it is best started late.)
const LONGEST_FIRST = [
  'test/integration/fuzz-routes.test.ts',
  'test/integration/crash-recovery.test.ts',
  'test/integration/subaccounts.test.ts',
  'test/infra/bundling.test.ts',
  'test/integration/scheduling.test.ts',
  'test/browser/console-optimize.test.ts',
  'test/integration/lists.test.ts',
  'test/integration/route-table.test.ts',
  'test/infra/cfn-lint.test.ts',
  'test/integration/local-host.test.ts',
];

/** Jest's own order, except that a run with no recorded durations starts with the known longest. */
export default class LongestFirstSequencer extends sequencer.default {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    const rank = (test) => {
      const at = LONGEST_FIRST.indexOf(path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/'));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // Array sort is stable: the others keep Jest's order (largest file first).
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
