import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../platform/logger';
import { sweepRotations } from './rotation';

/** The periodic job of functions/schedules.ts: rotations due, and rotations waiting on DNS. */
export async function handler(_event?: Partial<ScheduledEvent>): Promise<{ started: number; completed: number; failed: number }> {
  const counts = await sweepRotations();
  if (counts.started || counts.completed || counts.failed) logger.info('dkim rotation sweep', counts);
  return counts;
}
