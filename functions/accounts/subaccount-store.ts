import { updateItem } from '../data/store';
import { createSandboxDomain } from '../domains/sandbox-domain';
import { listKeys } from '../keys/api-keys';
import { apiKeyKeys, type ApiKeyItem } from '../keys/key-store';
import { objectId } from '../platform/ids';
import { addSubaccount, findAccount, patchAccount, patchAccountIf, saveAccount, type AccountItem } from './account-store';
import { ensureMasterUser } from './bootstrap';
import { forgetCaps } from './monthly-limit';
import { auditSending, sendingChanges } from './sending';

/** The features a subaccount has (contract 12.3), and what a new one starts with. */
export const SUBACCOUNT_FEATURES = ['email_preview', 'inbox_placement', 'sending', 'validations', 'validations_bulk'] as const;
export type SubaccountFeature = (typeof SUBACCOUNT_FEATURES)[number];

export const DEFAULT_FEATURES: Record<SubaccountFeature, { enabled: boolean }> = {
  email_preview: { enabled: true },
  inbox_placement: { enabled: true },
  sending: { enabled: true },
  validations: { enabled: false },
  validations_bulk: { enabled: false },
};

/**
 * A child account with its own sandbox domain, keys and data (a parent's user key acts on it with
 * X-Mailgun-On-Behalf-Of). Subaccounts have no subaccounts of their own.
 */
export async function createSubaccount(parentId: string, name: string, now = new Date()): Promise<AccountItem> {
  const account: AccountItem = { accountId: objectId(now.getTime()), name, parentId, status: 'open', createdAt: now.toISOString(), updatedAt: now.toISOString(), features: { ...DEFAULT_FEATURES } };
  await saveAccount(account);
  await createSandboxDomain(account.accountId);
  await ensureMasterUser(account.accountId, name);
  // Listed once it exists whole: a list never shows a subaccount without its sandbox domain.
  await addSubaccount(parentId, account.accountId);
  return account;
}

/** The parent's subaccount with this id, or undefined (another account's is never found). */
export async function findSubaccount(parentId: string, subaccountId: string): Promise<AccountItem | undefined> {
  if (!/^[0-9a-f]{24}$/.test(subaccountId)) return undefined;
  const account = await findAccount(subaccountId, { consistent: true });
  return account?.parentId === parentId ? account : undefined;
}

/**
 * Sets a subaccount's status. Leaving `open`, its API keys are disabled with it (its SMTP logins
 * are refused at AUTH, the parent's On-Behalf-Of at the pipeline), so no request of its own is
 * accepted without an extra read on every authorization; reopening enables those keys, and only
 * those. Answers the subaccount as it now is, or undefined when the status was already `to` (or
 * the subaccount changed meanwhile).
 */
export async function setSubaccountStatus(account: AccountItem, to: AccountItem['status'], details: { reason?: string; note?: string } = {}, now = new Date()): Promise<AccountItem | undefined> {
  if (account.status === to) return undefined;
  const changes = { status: to, updatedAt: now.toISOString(), disabledReason: to === 'open' ? undefined : details.reason, disabledNote: to === 'open' ? undefined : details.note };
  if (!(await patchAccountIf(account.accountId, { status: account.status }, changes))) return undefined;
  await applyToKeys(account.accountId, to === 'open');
  return { ...account, ...changes };
}

async function applyToKeys(accountId: string, open: boolean): Promise<void> {
  for (const key of await listKeys(accountId)) {
    if (!open && !key.isDisabled) {
      await updateItem<ApiKeyItem>(apiKeyKeys.apiKey(key.secretHash), { isDisabled: true, disabledReason: 'subaccount disabled', disabledWithAccount: true });
    } else if (open && key.disabledWithAccount) {
      await updateItem<ApiKeyItem>(apiKeyKeys.apiKey(key.secretHash), { isDisabled: false, disabledReason: undefined, disabledWithAccount: undefined });
    }
  }
}

/**
 * `sending` is enforced where a send is accepted (functions/accounts/monthly-limit.ts reads it with
 * the caps): at once in this process, within MONTHLY_LIMIT_CACHE_SECONDS in other Lambdas. It is
 * also how a parent turns back on what the reputation guard turned off: what the account's counters
 * hold of that hour then is kept, so the guard judges what it sends from that moment on.
 */
export async function setFeatures(account: AccountItem, changes: Partial<Record<SubaccountFeature, { enabled: boolean }>>, now = new Date()): Promise<AccountItem> {
  const features = { ...DEFAULT_FEATURES, ...account.features, ...changes };
  const sending = changes.sending ? await sendingChanges(account, changes.sending.enabled, now) : undefined;
  const updated = await patchAccount(account.accountId, { features, ...sending, updatedAt: now.toISOString() });
  if (sending) auditSending(account, changes.sending!.enabled, 'parent account');
  forgetCaps();
  return updated;
}
