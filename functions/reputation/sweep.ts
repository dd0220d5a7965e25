import type { ScheduledEvent } from 'aws-lambda';
import { listSubaccounts } from '../accounts/subaccount-list';
import { findAccount, primaryAccountId } from '../accounts/account-store';
import { mapLimit } from '../platform/concurrency';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { emitMetrics } from '../platform/metrics';
import { guardAccount, type Judgement } from './guard';
import { guardLevels } from './levels';
import { REPUTATION_METRICS as M } from './metrics';

/** Accounts judged at once: each is one read per hour of the window, and a few writes when it changes. */
const CONCURRENCY = 8;

export interface SweepSummary {
  judged: number;
  aboveWarning: number;
  paused: number;
  primaryAbovePause: boolean;
  transitions: number;
}

/**
 * The periodic job of functions/schedules.ts: judges the region's primary account and each of its
 * subaccounts that is not closed (guard.ts), then reports the region's figures as metrics when
 * anything is amiss, so that the operator's alarms see a subaccount paused or the primary account
 * above a pause level.
 */
export async function handler(_event?: Partial<ScheduledEvent>, now = Date.now()): Promise<SweepSummary> {
  const levels = guardLevels();
  const primaryId = await primaryAccountId();
  const primary = primaryId ? await findAccount(primaryId) : undefined;
  if (!primary) return { judged: 0, aboveWarning: 0, paused: 0, primaryAbovePause: false, transitions: 0 };
  const accounts = [primary, ...(await listSubaccounts(primary.accountId)).filter((a) => a.status !== 'closed')];
  const judged = await mapLimit(accounts, CONCURRENCY, (account) => guardAccount(account, levels, now));
  const summary = summarise(judged, primary.accountId);
  if (summary.transitions) logger.info('reputation sweep', { ...summary });
  report(judged, summary, now);
  return summary;
}

function summarise(judged: Judgement[], primaryId: string): SweepSummary {
  return {
    judged: judged.length,
    aboveWarning: judged.filter((j) => j.verdict.level !== 'ok').length,
    paused: judged.filter((j) => j.state.state === 'paused').length,
    primaryAbovePause: judged.some((j) => j.account.accountId === primaryId && j.verdict.level === 'pause'),
    transitions: judged.reduce((n, j) => n + j.transitions.length, 0),
  };
}

/**
 * The region's gauges (accounts above a warning level, subaccounts paused, the primary account
 * above a pause level) and each such account's rates, as EMF lines: only when one is not zero, so
 * a healthy region writes nothing and its alarms read missing data as fine.
 */
function report(judged: Judgement[], summary: SweepSummary, now: number): void {
  if (!summary.aboveWarning && !summary.paused) return;
  const region = { PlatformRegion: env().PLATFORM_REGION };
  emitMetrics(
    M.namespace,
    region,
    {
      [M.aboveWarning]: { value: summary.aboveWarning, unit: 'Count' },
      [M.paused]: { value: summary.paused, unit: 'Count' },
      [M.primaryAbovePause]: { value: summary.primaryAbovePause ? 1 : 0, unit: 'Count' },
    },
    now,
  );
  for (const j of judged.filter((j) => j.verdict.level !== 'ok')) {
    const rates = { [M.bounceRate]: { value: j.state.figures.bounceRate, unit: 'Percent' as const }, [M.complaintRate]: { value: j.state.figures.complaintRate, unit: 'Percent' as const } };
    emitMetrics(M.namespace, { ...region, AccountId: j.account.accountId }, rates, now);
  }
}
