import type { ScheduledEvent } from 'aws-lambda';
import { accountsWithDynamicPools, reassess } from './dynamic-pools';
import { advanceWarmups } from './warmup';

/**
 * The periodic job of functions/schedules.ts: warming IPs move on once a stage is done, and the
 * domains in dynamic pools are reassessed (each once a day).
 */
export async function handler(_event?: Partial<ScheduledEvent>): Promise<void> {
  await advanceWarmups();
  for (const ownerId of await accountsWithDynamicPools()) await reassess(ownerId);
}
