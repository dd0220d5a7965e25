import { patchAccountIf, type AccountItem } from './account-store';
import { logger } from '../platform/logger';
import { hourBaseline } from '../reputation/figures';

/**
 * A subaccount's `sending` feature: on unless its parent (PUT /v5/accounts/subaccounts/{id}/features)
 * or the reputation guard (functions/reputation) turned it off. Off, its sends are refused where
 * they are accepted (functions/accounts/monthly-limit.ts) with the reason; everything else (signing
 * in, logs, events, suppressions) goes on, and what was accepted before is still sent.
 */
export const sendingEnabled = (account: Pick<AccountItem, 'features'>) => account.features?.['sending']?.enabled !== false;

/** Why a send of this account is refused, or undefined when it may send. */
export function sendingRefusal(account: Pick<AccountItem, 'features' | 'sendingPause'>): string | undefined {
  if (sendingEnabled(account)) return undefined;
  return account.sendingPause ? `sending is turned off for this account: ${account.sendingPause.reason}` : 'sending is turned off for this account';
}

/**
 * What setting the feature to `enabled` changes beside the feature itself, or undefined when it
 * changes nothing: turned off by the parent, no guard's reason stays (the parent's word is the
 * latest); turned back on, the pause is cleared and the moment kept, with what the account's
 * counters hold of that hour then, so the guard judges only what is sent from that moment on.
 */
export async function sendingChanges(account: AccountItem, enabled: boolean, now: Date): Promise<Pick<AccountItem, 'sendingPause' | 'sendingResumedAt' | 'sendingResumedBaseline'> | undefined> {
  if (enabled === sendingEnabled(account)) return undefined;
  if (!enabled) return { sendingPause: undefined };
  return { sendingPause: undefined, sendingResumedAt: now.toISOString(), sendingResumedBaseline: await hourBaseline(account.accountId, now.getTime()) };
}

/** The line each change of an account's sending leaves in the log, whoever made it. */
export function auditSending(account: AccountItem, enabled: boolean, by: string, reason?: string): void {
  logger.info('sending feature changed', { audit: 'sending', accountId: account.accountId, parentId: account.parentId, enabled, by, reason });
}

/**
 * Turns a subaccount's sending off for the reputation guard, with the reason its sends will be
 * refused with. Only if the account is as the guard read it (its `updatedAt`): a parent's change
 * made meanwhile wins, and the guard judges again at its next run. Answers the account as it now
 * is, or undefined when it changed meanwhile.
 */
export async function pauseSending(account: AccountItem, reason: string, now: Date): Promise<AccountItem | undefined> {
  const sendingPause: NonNullable<AccountItem['sendingPause']> = { reason, by: 'reputation-guard', at: now.toISOString() };
  const changes = { features: { ...account.features, sending: { enabled: false } }, sendingPause, updatedAt: now.toISOString() };
  // Every subaccount has an updatedAt from its creation on.
  if (!(await patchAccountIf(account.accountId, { updatedAt: account.updatedAt }, changes))) return undefined;
  auditSending(account, false, 'reputation-guard', reason);
  return { ...account, ...changes };
}
