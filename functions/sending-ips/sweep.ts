import type { ScheduledEvent } from 'aws-lambda';
import { accountsWithDynamicPools, reassess } from './dynamic-pools';
import { dedicatedIps } from './ip-store';
import { advanceWarmups } from './warmup';

/**
 * The periodic job of functions/schedules.ts: the IPs SES leases are recorded (a newly leased one
 * provisioned, one no longer leased dropped) without waiting for someone to list them, warming IPs
 * move on once a stage is done, and the domains in dynamic pools are reassessed (each once a day).
 */
export async function handler(_event?: Partial<ScheduledEvent>): Promise<void> {
  await dedicatedIps({ fresh: true });
  await advanceWarmups();
  for (const ownerId of await accountsWithDynamicPools()) await reassess(ownerId);
}
