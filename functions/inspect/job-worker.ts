import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../platform/logger';
import { FAILED, findTest, finishRun, PROCESSING, readInput, readResult, type InspectJob, type InspectKind } from './common/inspect-store';
import type { TestRunner } from './common/run-outcome';
import { countUsage, type UsageMetric } from './common/usage';

/**
 * The inspection queue's worker: one message is one run of one test (functions/inspect/common/
 * inspect-store.ts). Each kind's engine is required only when a run of that kind comes, so a link
 * check does not load jsdom and axe, nor an accessibility check sharp.
 *
 * A run that throws is tried once more at once; if it throws again the test ends `Failed` with
 * the reason, so every test reaches a final status within minutes. A run whose message comes back
 * (its worker died: out of time or out of memory) is not tried again, as it would die the same
 * way: it ends `Failed` saying so.
 */
const RUN_ATTEMPTS = 2;

const RUNNERS: Record<InspectKind, () => TestRunner> = {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  links: () => (require('./links/run-link-test') as typeof import('./links/run-link-test')).runLinkTest,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  images: () => (require('./images/run-image-test') as typeof import('./images/run-image-test')).runImageTest,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  accessibility: () => (require('./accessibility/run-accessibility-test') as typeof import('./accessibility/run-accessibility-test')).runAccessibilityTest,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  analyze: () => (require('./analyze/run-analysis') as typeof import('./analyze/run-analysis')).runAnalysis,
};

const USAGE: Partial<Record<InspectKind, UsageMetric>> = { links: 'link_validation', images: 'image_validation', accessibility: 'accessibility' };

async function runJob(job: InspectJob): Promise<void> {
  const test = await findTest(job.accountId, job.kind, job.id);
  // Deleted, or a later run (a reprocess) has taken over: this run's result would be unreachable.
  // A code analysis's earlier version is the exception: every version keeps its own result.
  if (!test || (test.run !== job.run && job.kind !== 'analyze')) return;
  if (test.run === job.run && test.status !== PROCESSING) return;
  const input = await readInput(test, job.run);
  if (input === undefined) throw new Error(`the input of run ${job.run} of ${job.kind} test ${job.id} is missing`);
  const outcome = await RUNNERS[job.kind]()(test, input, job);
  const recorded = await finishRun(job, outcome);
  if (recorded && outcome.usage) await countUsage(job.accountId, outcome.usage.metric, outcome.usage.failed, `${job.id}:${job.run}`);
}

/** Ends a run that cannot be done as `Failed` (counted as a failed test where the kind is metered). */
async function failRun(job: InspectJob, reason: string): Promise<void> {
  // A code analysis version keeps its own result; an earlier version that did finish keeps it.
  const result = job.kind === 'analyze' && !(await readResult(job, job.run)) ? { status: FAILED, features: [], error: reason } : undefined;
  const recorded = await finishRun(job, { status: FAILED, error: reason, result });
  const metric = USAGE[job.kind];
  if (recorded && metric) await countUsage(job.accountId, metric, true, `${job.id}:${job.run}`);
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    let job: InspectJob;
    try {
      job = JSON.parse(message.body) as InspectJob;
    } catch {
      logger.error('inspection job is not JSON; dropped', { messageId: message.messageId });
      continue;
    }
    if (Number(message.attributes?.ApproximateReceiveCount ?? '1') > 1) {
      await failRun(job, 'The test could not be run: its worker ran out of time or memory').catch(() => failures.push({ itemIdentifier: message.messageId }));
      continue;
    }
    for (let attempt = 1; attempt <= RUN_ATTEMPTS; attempt++) {
      try {
        await runJob(job);
        break;
      } catch (error) {
        logger.error('inspection run failed', { kind: job.kind, id: job.id, run: job.run, attempt, error: error as Error });
        if (attempt < RUN_ATTEMPTS) continue;
        await failRun(job, `The test could not be run: ${(error as Error).message}`).catch(() => failures.push({ itemIdentifier: message.messageId }));
      }
    }
  }
  return { batchItemFailures: failures };
}
