import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { sfnClient } from '../../platform/aws-clients';
import { chunksOf } from '../../platform/concurrency';
import { env } from '../../platform/env';
import { randomHex } from '../../platform/ids';
import { logger } from '../../platform/logger';
import type { SubjectRef } from './check-subject';

/**
 * Subjects per execution: an execution's input is at most 256 KB, and an inline Map's history
 * (about six events a chunk) stays well under the 25,000 events an execution may have.
 */
const SUBJECTS_PER_RUN = 1000;

/** Subjects one check task takes at most: one batch read for all, one confirmation write per account and kind. */
const SUBJECTS_PER_TASK = 100;

/** The workflow's Map runs this many tasks at once (MaxConcurrency in lib/workflows/blocklist-check.asl.json). */
export const TASKS_AT_ONCE = 4;

/**
 * A run's subjects as the workflow's tasks: spread over TASKS_AT_ONCE tasks so a small run still
 * asks about that many chunks at once, at most SUBJECTS_PER_TASK each, in key order so a task's
 * subjects share an account and their confirmations one write.
 */
export const checkTasks = (run: readonly SubjectRef[]): SubjectRef[][] => chunksOf(run, Math.min(SUBJECTS_PER_TASK, Math.ceil(run.length / TASKS_AT_ONCE)));

/** Starts blocklist checks of these subjects (lib/workflows/blocklist-check.asl.json), in runs of at most SUBJECTS_PER_RUN. */
export async function startChecks(subjects: readonly SubjectRef[]): Promise<void> {
  const stateMachineArn = env().BLOCKLIST_STATE_MACHINE_ARN;
  if (!stateMachineArn) throw new Error('BLOCKLIST_STATE_MACHINE_ARN is not configured');
  const refs = subjects.map(({ accountId, kind, subject }) => ({ accountId, kind, subject }));
  for (const run of chunksOf(refs, SUBJECTS_PER_RUN)) {
    const runId = `blocklist-${Date.now()}-${randomHex(6)}`;
    await sfnClient().send(new StartExecutionCommand({ stateMachineArn, name: runId, input: JSON.stringify({ runId, chunks: checkTasks(run) }) }));
  }
}

/**
 * Checks a newly monitored subject right away. The subject is already saved: should the workflow
 * not start (throttled), the request still succeeds and the next sweep checks it, as it has never been.
 */
export async function checkSoon(subject: SubjectRef): Promise<void> {
  try {
    await startChecks([subject]);
  } catch (error) {
    logger.warn('a new blocklist subject waits for the next sweep: its check did not start', { kind: subject.kind, subject: subject.subject, error: error as Error });
  }
}
