import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { sfnClient } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { randomHex } from '../../platform/ids';
import { logger } from '../../platform/logger';
import type { SubjectRef } from './check-subject';

/**
 * Subjects per execution: an execution's input is at most 256 KB, and an inline Map's history
 * (about six events an item) stays well under the 25,000 events an execution may have.
 */
const SUBJECTS_PER_RUN = 1000;

/** Starts blocklist checks of these subjects (lib/workflows/blocklist-check.asl.json), in runs of at most SUBJECTS_PER_RUN. */
export async function startChecks(subjects: readonly SubjectRef[]): Promise<void> {
  const stateMachineArn = env().BLOCKLIST_STATE_MACHINE_ARN;
  if (!stateMachineArn) throw new Error('BLOCKLIST_STATE_MACHINE_ARN is not configured');
  for (let i = 0; i < subjects.length; i += SUBJECTS_PER_RUN) {
    const runId = `blocklist-${Date.now()}-${randomHex(6)}`;
    const chunk = subjects.slice(i, i + SUBJECTS_PER_RUN).map(({ accountId, kind, subject }) => ({ accountId, kind, subject }));
    await sfnClient().send(new StartExecutionCommand({ stateMachineArn, name: runId, input: JSON.stringify({ runId, subjects: chunk }) }));
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
