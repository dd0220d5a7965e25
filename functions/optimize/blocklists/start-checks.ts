import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { sfnClient } from '../../platform/aws-clients';
import { chunksOf } from '../../platform/concurrency';
import { env } from '../../platform/env';
import { randomHex } from '../../platform/ids';
import { logger } from '../../platform/logger';
import { SUBJECTS_PER_TASK, type SubjectRef } from './check-subject';

/**
 * Subjects per execution: an execution's input is at most 256 KB, and an inline Map's history
 * (about six events a chunk) stays well under the 25,000 events an execution may have.
 */
const SUBJECTS_PER_RUN = 1000;

/**
 * Starts blocklist checks of these subjects (lib/workflows/blocklist-check.asl.json), in runs of at
 * most SUBJECTS_PER_RUN, each run's subjects in chunks of SUBJECTS_PER_TASK (one task each), kept in
 * key order so a chunk's subjects share an account and their confirmations one write.
 */
export async function startChecks(subjects: readonly SubjectRef[]): Promise<void> {
  const stateMachineArn = env().BLOCKLIST_STATE_MACHINE_ARN;
  if (!stateMachineArn) throw new Error('BLOCKLIST_STATE_MACHINE_ARN is not configured');
  const refs = subjects.map(({ accountId, kind, subject }) => ({ accountId, kind, subject }));
  for (const run of chunksOf(refs, SUBJECTS_PER_RUN)) {
    const runId = `blocklist-${Date.now()}-${randomHex(6)}`;
    const chunks = chunksOf(run, SUBJECTS_PER_TASK);
    await sfnClient().send(new StartExecutionCommand({ stateMachineArn, name: runId, input: JSON.stringify({ runId, chunks }) }));
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
