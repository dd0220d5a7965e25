import { CATALOGUE } from './catalogue';
import { checkSubjects, countChecks, selfTestAll, type RunOutcome, type SelfTestResults, type SubjectRef } from './check-subject';

/**
 * The blocklist workflow's task (lib/workflows/blocklist-check.asl.json). `self-test`: every
 * list's RFC 5782 test points, once per run. `check`: a chunk of subjects (start-checks.ts makes
 * them) against the lists that passed. `count`: the run's checks into the accounts' stats. A thrown
 * error is retried by the workflow; a chunk that still fails changes nothing.
 */
export type CheckTaskEvent =
  | { step: 'self-test' }
  | { step: 'check'; item: { subjects: SubjectRef[]; selfTest: SelfTestResults } }
  | { step: 'count'; runId: string; chunks: Array<{ outcomes: RunOutcome[] }> };

export async function handler(event: CheckTaskEvent): Promise<{ lists: SelfTestResults } | { outcomes: RunOutcome[] } | { counted: number }> {
  switch (event.step) {
    case 'self-test':
      return { lists: await selfTestAll(CATALOGUE) };
    case 'check':
      return { outcomes: await checkSubjects(event.item.subjects, event.item.selfTest) };
    case 'count': {
      const outcomes = event.chunks.flatMap((chunk) => chunk.outcomes);
      await countChecks(event.runId, outcomes);
      return { counted: outcomes.length };
    }
  }
}
