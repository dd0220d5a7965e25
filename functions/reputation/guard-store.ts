import { getItem, putItem, type Key } from '../data/store';
import type { Figures, HourBaseline } from './figures';
import type { Level } from './verdict';
import { defineEntity } from '../data/key-registry';

const reputationKeys = defineEntity('reputation guard', {
  reputationState: { what: 'what the reputation guard last found of an account (functions/reputation): its state, since when, and the figures', pk: 'ACCT#<account>', sk: 'REPUTATION', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'REPUTATION' }) },
});

/**
 * What the guard last found of an account, one item each beside the account's (ACCT#<id>,
 * REPUTATION): its state, since when, from when its window may reach back, and the figures.
 *
 * - ok: within the levels (or too few messages to judge).
 * - warning: above a warning level (a primary account above a pause level stays here: it has no
 *   parent to turn it back on, and is told by alarm instead).
 * - paused: the guard turned the subaccount's sending off; it stays so until its parent turns it back on.
 */
export interface GuardState {
  accountId: string;
  state: 'ok' | 'warning' | 'paused';
  /** When the account entered this state (ISO 8601). */
  since: string;
  /**
   * The start of the first hour the window may count: the hour in which sending was last turned
   * back on (less `baseline`, what that hour held then), or, for a resume recorded without a
   * baseline, the hour after it.
   */
  judgedFrom?: string;
  baseline?: HourBaseline;
  /** The last verdict, and its figures. */
  level: Level;
  reason: string;
  figures: Figures;
  checkedAt: string;
}

export const getGuardState = (accountId: string) => getItem<GuardState>(reputationKeys.reputationState(accountId), { consistent: true });

export async function saveGuardState(state: GuardState): Promise<void> {
  await putItem(reputationKeys.reputationState(state.accountId), state);
}
