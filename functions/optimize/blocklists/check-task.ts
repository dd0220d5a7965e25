import { CATALOGUE } from './catalogue';
import { checkSubject, countChecks, selfTestAll, type RunOutcome, type SelfTestResults, type SubjectRef } from './check-subject';

/**
 * The blocklist workflow's task (lib/workflows/blocklist-check.asl.json). `self-test`: every
 * list's RFC 5782 test points, once per run. `check`: one subject against the lists that passed.
 * `count`: the run's checks into the accounts' stats. A thrown error is retried by the workflow;
 * a check that still fails changes nothing.
 */
export type CheckTaskEvent =
  | { step: 'self-test' }
  | { step: 'check'; item: { subject: SubjectRef; selfTest: SelfTestResults } }
  | { step: 'count'; runId: string; outcomes: RunOutcome[] };

export async function handler(event: CheckTaskEvent): Promise<{ lists: SelfTestResults } | RunOutcome | { counted: number }> {
  switch (event.step) {
    case 'self-test':
      return { lists: await selfTestAll(CATALOGUE) };
    case 'check': {
      const { subject } = event.item;
      return { outcome: await checkSubject(subject, event.item.selfTest), accountId: subject.accountId, kind: subject.kind };
    }
    case 'count':
      await countChecks(event.runId, event.outcomes);
      return { counted: event.outcomes.length };
  }
}
