import type { TestRunner } from '../common/run-outcome';
import { htmlOfStoredSource } from '../common/fetch-html';
import type { StoredSource } from '../common/source-input';
import { checkAccessibility } from './axe-runner';

/** Accessibility tests end `Complete` (contract §0: the documented samples; Mailgun's MCP fixture says `Completed`). */
const COMPLETE = 'Complete';

/** One run: axe-core and the email rules over the stored HTML; the list shows the four counts. */
export const runAccessibilityTest: TestRunner = async (_test, input) => {
  const report = await checkAccessibility(await htmlOfStoredSource(input as StoredSource));
  return {
    status: COMPLETE,
    result: report,
    summary: { checks: report.checks, passes: report.passes.length, failures: report.failures.length, needs_review: report.needs_review.length },
    usage: { metric: 'accessibility', failed: false },
  };
};
