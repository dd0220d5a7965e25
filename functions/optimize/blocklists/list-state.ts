import { env } from '../../platform/env';
import { periodicJobs } from '../../schedules';
import type { Answer } from './lookup';

const SWEEP_MINUTES = periodicJobs.find((job) => job.name === 'blocklist-checks')!.everyMinutes;

/**
 * A state older than three check periods (the answers since all errors) no longer vouches for
 * today. The period is the interval, but on AWS at least the sweep's: an interval set below the
 * sweep's rate would otherwise make every healthy list read unknown between two sweeps.
 */
export const staleAfterMs = () => Math.max(env().BLOCKLIST_CHECK_INTERVAL, SWEEP_MINUTES * 60) * 3000 + 60_000;

/**
 * What the platform believes about one subject on one list, and the hysteresis that keeps a single
 * odd answer from flipping it (optimize contract 2.2): a change needs two agreeing runs, and an
 * answer that is an error changes nothing but `lastError`.
 */
export interface ListState {
  /** `unknown` until a run got an answer. */
  state: 'unknown' | 'clear' | 'listed';
  /** A different answer seen once, waiting for a second run to agree. */
  pending?: { state: 'clear' | 'listed'; since: string };
  /** The current (or last) listing: when it was first and last confirmed. */
  firstSeen?: string;
  lastSeen?: string;
  codes?: string[];
  reasons?: string[];
  /** When a run last got an answer from the list, and the last error (cleared by an answer). */
  answeredAt?: string;
  lastError?: string;
}

export type Transition = 'listed' | 'delisted';

export const UNKNOWN: ListState = { state: 'unknown' };

/** The state after one run's answer, and the transition that answer completed, if any. */
export function nextListState(previous: ListState, answer: Answer, now: string): { next: ListState; transition?: Transition } {
  if ('error' in answer) return { next: { ...previous, lastError: answer.error } };
  const seen = answer.listed ? 'listed' : 'clear';
  const base: ListState = { ...previous, answeredAt: now, lastError: undefined, pending: undefined };
  if (answer.listed) Object.assign(base, { codes: answer.codes, reasons: answer.reasons });
  if (previous.state === seen) return { next: seen === 'listed' ? { ...base, lastSeen: now } : base };
  // Nothing was known yet: a clean answer is a fact, not a change; a listing still needs a second run.
  if (previous.state === 'unknown' && seen === 'clear') return { next: { ...base, state: 'clear', codes: undefined, reasons: undefined } };
  if (previous.pending?.state !== seen) return { next: { ...base, pending: { state: seen, since: now } } };
  if (seen === 'listed') return { next: { ...base, state: 'listed', firstSeen: previous.pending.since, lastSeen: now }, transition: 'listed' };
  // Delisted: first_seen stays, it names the listing that ended.
  return { next: { ...base, state: 'clear', codes: undefined, reasons: undefined }, transition: 'delisted' };
}

/**
 * A list's state as shown: an answer older than `staleAfterMs` no longer vouches for today, so a
 * list that has only errored since then reads `unknown` (a listing is still shown as listed).
 */
export function shownState(list: ListState, staleAfterMs: number, now = Date.now()): ListState['state'] {
  if (list.state !== 'clear') return list.state;
  return list.answeredAt && now - Date.parse(list.answeredAt) <= staleAfterMs ? 'clear' : 'unknown';
}

/** A subject's state: listed on any list, else unknown if any list is, else healthy. */
export function subjectState(states: ReadonlyArray<ListState['state']>): 'listed' | 'unknown' | 'healthy' {
  if (states.includes('listed')) return 'listed';
  if (!states.length || states.includes('unknown')) return 'unknown';
  return 'healthy';
}
