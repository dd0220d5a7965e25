import { keys, type AccountItem } from '../data/db';
import { addToCounter, deleteItem, getItem, putItem, updateItem } from '../data/store';
import { ApiError, Forbidden } from '../platform/errors';
import { env } from '../platform/env';
import { sendingRefusal } from './sending';

/** An account's custom monthly message limit: a hard cap on recipients accepted per calendar month (UTC). */
export interface MonthlyLimit {
  limit: number;
  enabled: boolean;
}

/** Mailgun's minimum for a custom monthly limit. */
export const MIN_MONTHLY_LIMIT = 1000;

export const monthOf = (at: number) => new Date(at).toISOString().slice(0, 7);

/** Seconds until the next calendar month (UTC) begins: when a refused send could be tried again. */
function secondsToNextMonth(at: number): number {
  const d = new Date(at);
  return Math.ceil((Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - at) / 1000);
}

export class MonthlyLimitReached extends ApiError {
  constructor(domain: string, limit: number, at: number) {
    super(429, `Domain ${domain} is not allowed to send: the account's custom monthly limit of ${limit} messages is reached for this month`, { 'retry-after': String(secondsToNextMonth(at)) });
  }
}

export function getMonthlyLimit(accountId: string): Promise<MonthlyLimit | undefined> {
  return getItem<MonthlyLimit>(keys.monthlyLimit(accountId), { consistent: true });
}

export async function setMonthlyLimit(accountId: string, limit: number): Promise<void> {
  await putItem(keys.monthlyLimit(accountId), { limit, enabled: true } satisfies MonthlyLimit);
  // A subaccount's cached caps name its parent's too: any change clears them all (in this container; others within MONTHLY_LIMIT_CACHE_SECONDS).
  forgetCaps();
}

export async function enableMonthlyLimit(accountId: string): Promise<boolean> {
  if (!(await getMonthlyLimit(accountId))) return false;
  await updateItem(keys.monthlyLimit(accountId), { enabled: true });
  forgetCaps();
  return true;
}

export async function removeMonthlyLimit(accountId: string): Promise<void> {
  await deleteItem(keys.monthlyLimit(accountId));
  forgetCaps();
}

/** Recipients counted this month; counting runs while a limit is set. */
export async function monthlyCount(accountId: string, at = Date.now()): Promise<number> {
  return (await getItem<{ count?: number }>(keys.monthlyCount(accountId, monthOf(at)), { consistent: true }))?.count ?? 0;
}

/**
 * What an account's sends are capped by: its own limit and, for a subaccount, its parent's; and
 * why its sending is off, when its parent or the reputation guard turned it off (functions/accounts/sending.ts).
 */
interface Caps {
  at: number;
  chain: Array<{ accountId: string; limit: number }>;
  sendingOff?: string;
}

const cache = new Map<string, Caps>();

/** Drops this process's cached caps (a limit or a feature changed here). */
export const forgetCaps = () => cache.clear();

async function capsOf(accountId: string): Promise<Caps> {
  const now = Date.now();
  const cached = cache.get(accountId);
  if (cached && now - cached.at < env().MONTHLY_LIMIT_CACHE_SECONDS * 1000) return cached;
  const account = await getItem<AccountItem>(keys.account(accountId));
  const owners = [accountId, ...(account?.parentId ? [account.parentId] : [])];
  const limits = await Promise.all(owners.map((id) => getItem<MonthlyLimit>(keys.monthlyLimit(id))));
  const caps: Caps = {
    at: now,
    chain: owners.flatMap((id, i) => (limits[i]?.enabled ? [{ accountId: id, limit: limits[i]!.limit }] : [])),
    sendingOff: account && sendingRefusal(account),
  };
  cache.set(accountId, caps);
  return caps;
}

/**
 * Reserves `recipients` of this month's allowance before a send is accepted: one conditional
 * UpdateItem per capped account (the subaccount's, then its parent's, which its sends also count
 * toward), never above the limit, so concurrent sends can never pass it together. A send that
 * would cross a limit is refused whole (429) and nothing of it is counted. Answers how to give
 * the reservation back, for a send that then fails before anything of it was accepted.
 */
export async function reserveMonthly(accountId: string, domain: string, recipients: number, at = Date.now()): Promise<() => Promise<void>> {
  const { chain, sendingOff } = await capsOf(accountId);
  // Read with the caps (the same item, the same cache), so the check costs a send nothing more.
  if (sendingOff) throw new Forbidden(`Domain ${domain} is not allowed to send: ${sendingOff}`);
  const month = monthOf(at);
  const taken: string[] = [];
  const release = async () => {
    for (const id of taken) await addToCounter(keys.monthlyCount(id, month), 'count', -recipients);
  };
  for (const cap of chain) {
    const counted = await addToCounter(keys.monthlyCount(cap.accountId, month), 'count', recipients, { atMost: cap.limit });
    if (counted === undefined) {
      await release();
      throw new MonthlyLimitReached(domain, cap.limit, at);
    }
    taken.push(cap.accountId);
  }
  return release;
}

/**
 * Runs a send within the month's allowance: its recipients reserved first (reserveMonthly), given
 * back when the send is refused before acceptance (a client error: a bad template, a bad field).
 * A failure of ours after some copies may have been accepted keeps the reservation: a hard cap
 * errs towards counting.
 */
export async function withinMonthlyLimit<T>(accountId: string, domain: string, recipients: number, send: () => Promise<T>): Promise<T> {
  const release = await reserveMonthly(accountId, domain, recipients);
  try {
    return await send();
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) await release();
    throw error;
  }
}
