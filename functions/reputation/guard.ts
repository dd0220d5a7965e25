import { forgetCaps } from '../accounts/monthly-limit';
import { pauseSending, sendingEnabled } from '../accounts/sending';
import { bucketStart, nextBucket } from '../analytics/buckets';
import { raiseAlert } from '../optimize/alerts/raise';
import type { ReputationFigures } from '../optimize/alerts/alert-event';
import { logger } from '../platform/logger';
import { type Figures, figuresOf } from './figures';
import { getGuardState, type GuardState, saveGuardState } from './guard-store';
import type { GuardLevels } from './levels';
import { verdictOf, type Verdict } from './verdict';
import type { AccountItem } from '../accounts/account-store';

export type TransitionEvent = 'reputation_warning' | 'reputation_recovered' | 'sending_paused' | 'sending_resumed';

export interface Transition {
  event: TransitionEvent;
  /** When the new state began (ISO 8601): it names the transition, so raising it again is harmless. */
  at: string;
  reason: string;
}

export interface Judgement {
  account: AccountItem;
  state: GuardState;
  verdict: Verdict;
  transitions: Transition[];
}

const HOUR_MS = 3_600_000;

/** The start of the hour after `iso`: the first hour whose counters hold nothing from before it. */
const hourAfter = (iso: string) => new Date(nextBucket(bucketStart(Date.parse(iso), 'hour'), 'hour')).toISOString();

/**
 * Judges one account and acts on it: its rates over the window (from the hour after its sending
 * was last turned back on, if that is later), a subaccount above a pause level has its sending
 * turned off with the reason, and each change of state is a transition, alerted to the account and
 * to its parent and written as an audit line. The guard never turns sending back on: the parent does,
 * through PUT /v5/accounts/subaccounts/{id}/features, and the guard takes note at its next run.
 */
export async function guardAccount(account: AccountItem, levels: GuardLevels, now: number): Promise<Judgement> {
  const at = new Date(now).toISOString();
  const prior = await getGuardState(account.accountId);
  let state: GuardState['state'] = prior?.state ?? 'ok';
  let since = prior?.since ?? at;
  let judgedFrom = prior?.judgedFrom;
  let baseline = prior?.baseline;
  const transitions: Transition[] = [];
  const enter = (next: GuardState['state'], transition: Transition) => {
    state = next;
    since = transition.at;
    transitions.push(transition);
  };

  const pausedByGuard = !sendingEnabled(account) && account.sendingPause?.by === 'reputation-guard';
  if (state === 'paused' && sendingEnabled(account)) {
    // Its parent turned sending back on: what it sent before does not count against it again, and
    // what it sends from then on does, in the rest of that hour too (less what the hour held then).
    const resumedAt = account.sendingResumedAt ?? at;
    baseline = account.sendingResumedBaseline;
    judgedFrom = baseline ? new Date(baseline.hour).toISOString() : hourAfter(resumedAt);
    const countsFrom = baseline ? resumedAt : judgedFrom;
    enter('ok', { event: 'sending_resumed', at: resumedAt, reason: `turned back on by its parent account; its rates count again from ${countsFrom}` });
  } else if (state !== 'paused' && pausedByGuard) {
    // Paused at an earlier run that ended before its state was saved: finish that transition.
    enter('paused', { event: 'sending_paused', at: account.sendingPause!.at, reason: account.sendingPause!.reason });
  }

  const from = Math.max(now - levels.windowHours * HOUR_MS, judgedFrom ? Date.parse(judgedFrom) : 0);
  const figures = await figuresOf(account.accountId, from, now, baseline);
  const verdict = verdictOf(figures, levels);

  if (state !== 'paused') {
    if (verdict.level === 'pause' && account.parentId && sendingEnabled(account)) {
      // A parent's change made meanwhile wins: the next run judges again.
      const paused = await pauseSending(account, `${verdict.reason} (turned off by the reputation guard at ${at})`, new Date(now));
      if (paused) {
        // At once where this process accepts sends (local mode); other Lambdas within MONTHLY_LIMIT_CACHE_SECONDS.
        forgetCaps();
        enter('paused', { event: 'sending_paused', at, reason: paused.sendingPause!.reason });
      }
    } else if (verdict.level !== 'ok' && state === 'ok') {
      enter('warning', { event: 'reputation_warning', at, reason: verdict.reason });
    } else if (verdict.level === 'ok' && state === 'warning') {
      enter('ok', { event: 'reputation_recovered', at, reason: verdict.reason });
    }
  }

  // Alerts first, then the state: a run that dies between raises the same transitions again,
  // which raiseAlert records once (and the dedupe window holds back a warning raised anew).
  for (const transition of transitions) await announce(account, transition, figures, levels, at);
  const saved: GuardState = { accountId: account.accountId, state, since, judgedFrom, baseline, level: verdict.level, reason: verdict.reason, figures, checkedAt: at };
  await saveGuardState(saved);
  return { account, state: saved, verdict, transitions };
}

/** A transition is an alert to the account and to its parent, and an audit line. */
async function announce(account: AccountItem, transition: Transition, figures: Figures, levels: GuardLevels, timestamp: string): Promise<void> {
  logger.info('reputation transition', {
    audit: 'reputation-guard',
    accountId: account.accountId,
    parentId: account.parentId,
    event: transition.event,
    at: transition.at,
    reason: transition.reason,
    bounceRate: figures.bounceRate,
    complaintRate: figures.complaintRate,
    volume: figures.volume,
  });
  const reputation: ReputationFigures = {
    accountName: account.name,
    bounceRate: figures.bounceRate,
    complaintRate: figures.complaintRate,
    volume: figures.volume,
    windowHours: levels.windowHours,
    reason: transition.reason,
  };
  for (const recipient of [account.accountId, ...(account.parentId ? [account.parentId] : [])]) {
    await raiseAlert({ accountId: recipient, event: transition.event, subject: account.accountId, list: 'reputation', listName: 'Reputation guard', firstSeen: transition.at, timestamp, reputation });
  }
}
