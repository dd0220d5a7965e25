import type { ScheduledEvent } from 'aws-lambda';
import { env } from '../../platform/env';
import { poolOfIp } from '../../sending-ips/ip-pools';
import { primaryAccountId } from '../../accounts/account-store';
import { provisionedIps } from '../../sending-ips/ip-records';
import { startChecks } from './start-checks';
import { addSubject, allSubjects, type MonitoredSubject } from './subjects';

/**
 * The periodic job of functions/schedules.ts: adds the region's dedicated IPs to their owner's
 * monitoring, then starts a check run for every subject not checked for BLOCKLIST_CHECK_INTERVAL.
 */
export async function handler(_event?: Partial<ScheduledEvent>, now = Date.now()): Promise<void> {
  await monitorDedicatedIps(now);
  const due = (await allSubjects()).filter((subject) => isDue(subject, now));
  if (due.length) await startChecks(due);
}

/**
 * Due once the interval has passed since the last check, less a little: the sweep's own period
 * would otherwise push every check one sweep later than the interval each time.
 */
function isDue(subject: MonitoredSubject, now: number): boolean {
  if (!subject.checkedAt) return true;
  const intervalMs = env().BLOCKLIST_CHECK_INTERVAL * 1000;
  const slackMs = Math.min(60_000, intervalMs / 2);
  return now - Date.parse(subject.checkedAt) >= intervalMs - slackMs;
}

/** The dedicated IPs SES leases are the primary account's: each is monitored from the first sweep that sees it. */
async function monitorDedicatedIps(now: number): Promise<void> {
  const ips = await provisionedIps();
  if (!ips.size) return;
  const owner = await primaryAccountId();
  if (!owner) return;
  const pools = await poolOfIp(owner);
  const addedAt = new Date(now).toISOString();
  for (const ip of ips.keys()) {
    // Absent only: a dedicated IP the owner removed stays removed.
    await addSubject({ accountId: owner, kind: 'ip', subject: ip, source: 'dedicated', ipPool: pools.get(ip) ?? '', description: 'dedicated IP', addedAt });
  }
}
