import type { ScheduledEvent } from 'aws-lambda';
import { advanceWarmups } from './warmup';

/** The periodic job of functions/schedules.ts: warming IPs move on once a stage is done. */
export async function handler(_event?: Partial<ScheduledEvent>): Promise<void> {
  await advanceWarmups();
}
