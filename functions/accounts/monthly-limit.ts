import { randomInt } from 'node:crypto';
import { defineEntity } from '../data/key-registry';
import { addToCounter, deleteItem, getItem, getItems, keyId, moveAttribute, putItem, updateItem, type Key } from '../data/store';
import { ApiError, Forbidden } from '../platform/errors';
import { env } from '../platform/env';
import { sendingRefusal } from './sending';
import { findAccount } from './account-store';

export const monthlyLimitKeys = defineEntity('monthly limit', {
  monthlyLimit: { what: "an account's custom monthly message limit (`/v5/accounts/limit/custom/monthly`)", pk: 'ACCT#<account>', sk: 'LIMIT#MONTHLY', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'LIMIT#MONTHLY' }) },
  monthlyCount: {
    what: 'recipients accepted in one calendar month (UTC, `2026-11`) while a monthly limit is set: its shard 0',
    pk: 'ACCT#<account>',
    sk: 'LIMIT#MONTHLY#<month>',
    key: (accountId: string, month: string): Key => ({ pk: `ACCT#${accountId}`, sk: `LIMIT#MONTHLY#${month}` }),
  },
  monthlyCountShard: {
    what: "the month's other shards (1 to MONTHLY_LIMIT_SHARDS - 1), each a partition of its own: one item takes about 1,000 writes a second",
    pk: 'ACCT#<account>#MONTHLYCOUNT#<month>#<shard>',
    sk: 'COUNT',
    key: (accountId: string, month: string, shard: number): Key => ({ pk: `ACCT#${accountId}#MONTHLYCOUNT#${month}#${shard}`, sk: 'COUNT' }),
  },
});

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

/** Mailgun's wording for a send refused on its domain's or account's standing. */
export const notAllowedToSend = (domain: string, reason: string) => `Domain ${domain} is not allowed to send: ${reason}`;

class MonthlyLimitReached extends ApiError {
  constructor(domain: string, limit: number, at: number) {
    super(429, notAllowedToSend(domain, `the account's custom monthly limit of ${limit} messages is reached for this month`), { 'retry-after': String(secondsToNextMonth(at)) });
  }
}

export function getMonthlyLimit(accountId: string): Promise<MonthlyLimit | undefined> {
  return getItem<MonthlyLimit>(monthlyLimitKeys.monthlyLimit(accountId), { consistent: true });
}

export async function setMonthlyLimit(accountId: string, limit: number): Promise<void> {
  await putItem(monthlyLimitKeys.monthlyLimit(accountId), { limit, enabled: true } satisfies MonthlyLimit);
  // A subaccount's cached caps name its parent's too: any change clears them all (in this container; others within MONTHLY_LIMIT_CACHE_SECONDS).
  forgetCaps();
}

export async function enableMonthlyLimit(accountId: string): Promise<boolean> {
  if (!(await getMonthlyLimit(accountId))) return false;
  await updateItem(monthlyLimitKeys.monthlyLimit(accountId), { enabled: true });
  forgetCaps();
  return true;
}

export async function removeMonthlyLimit(accountId: string): Promise<void> {
  await deleteItem(monthlyLimitKeys.monthlyLimit(accountId));
  forgetCaps();
}

/**
 * The month's count of an account is spread over MONTHLY_LIMIT_SHARDS items (1 by default), each
 * holding at most its share of the limit, so that together they never pass it: DynamoDB takes about
 * 1,000 writes a second on one item, and every capped send writes one (docs/capacity.md). Shard 0
 * is the item a single count always was; read, the count is every shard's sum, up to
 * MAX_SHARDS (the setting may have been larger earlier in the month).
 */
const MAX_SHARDS = 32;

const shardKey = (accountId: string, month: string, shard: number) => (shard === 0 ? monthlyLimitKeys.monthlyCount(accountId, month) : monthlyLimitKeys.monthlyCountShard(accountId, month, shard));

/** Each shard's share of `total`: equal, the remainder one each to the first, summing to `total`. */
function shardShares(total: number, shards: number): number[] {
  const base = Math.floor(total / shards);
  return Array.from({ length: shards }, (_, k) => base + (k < total % shards ? 1 : 0));
}

async function shardCounts(accountId: string, month: string, shards: number): Promise<number[]> {
  const shardKeys = Array.from({ length: shards }, (_, k) => shardKey(accountId, month, k));
  const items = await getItems<{ count?: number }>(shardKeys, { consistent: true });
  const counts = new Map(items.map((item) => [keyId(item), item.count ?? 0]));
  return shardKeys.map((key) => counts.get(keyId(key)) ?? 0);
}

/** Recipients counted this month; counting runs while a limit is set. */
export async function monthlyCount(accountId: string, at = Date.now()): Promise<number> {
  return (await shardCounts(accountId, monthOf(at), MAX_SHARDS)).reduce((sum, n) => sum + n, 0);
}

/**
 * Raises the month's count to at least `accepted` (a limit set mid-month starts from what the month
 * has accepted), spread over the shards as their shares are: each only ever moves up, so
 * reservations made meanwhile are never lost.
 */
export async function raiseMonthlyCount(accountId: string, accepted: number, at = Date.now()): Promise<void> {
  const month = monthOf(at);
  const parts = shardShares(accepted, env().MONTHLY_LIMIT_SHARDS);
  await Promise.all(
    parts.map(async (part, k) => {
      const key = shardKey(accountId, month, k);
      if (!(await putItem(key, { count: part }, { ifAbsent: true }))) await moveAttribute(key, 'count', part, 'max');
    }),
  );
}

/** A part of a send's recipients counted on one shard: what giving the reservation back subtracts. */
interface Piece {
  key: ReturnType<typeof shardKey>;
  amount: number;
}

/** Tries at reading the shards and taking a send in pieces, when others take the room meanwhile. */
const SPREAD_ATTEMPTS = 3;

const giveBack = async (pieces: Piece[]) => {
  for (const piece of pieces) await addToCounter(piece.key, 'count', -piece.amount);
};

/** Pieces of `recipients` from the shards with room, the roomiest first. */
function piecesOf(room: number[], recipients: number): Array<{ shard: number; amount: number }> {
  const pieces: Array<{ shard: number; amount: number }> = [];
  let left = recipients;
  for (const shard of room.map((_, k) => k).sort((a, b) => room[b]! - room[a]!)) {
    if (!left) break;
    const amount = Math.min(left, room[shard]!);
    if (amount) pieces.push({ shard, amount });
    left -= amount;
  }
  return pieces;
}

/**
 * Counts `recipients` on an account-month within its limit, or answers undefined when they do not
 * fit. Most sends are one conditional write on a shard picked at random that has room for the
 * whole send; near the limit, or for a send larger than a shard's share, the shards are read and
 * the send taken in pieces from those with room (a piece refused because another send took the
 * room first gives the others back, and the shards are read again). No shard passes its share, so
 * the month never passes the limit.
 */
async function take(accountId: string, month: string, limit: number, recipients: number): Promise<Piece[] | undefined> {
  const shards = env().MONTHLY_LIMIT_SHARDS;
  const shares = shardShares(limit, shards);
  const first = randomInt(shards);
  if (shares[first]! >= recipients) {
    const key = shardKey(accountId, month, first);
    if ((await addToCounter(key, 'count', recipients, { atMost: shares[first] })) !== undefined) return [{ key, amount: recipients }];
    if (shards === 1) return undefined;
  }
  for (let attempt = 0; attempt < SPREAD_ATTEMPTS; attempt++) {
    const counts = await shardCounts(accountId, month, shards);
    const room = shares.map((share, k) => Math.max(0, share - counts[k]!));
    if (room.reduce((sum, n) => sum + n, 0) < recipients) return undefined;
    const taken: Piece[] = [];
    for (const { shard, amount } of piecesOf(room, recipients)) {
      const key = shardKey(accountId, month, shard);
      if ((await addToCounter(key, 'count', amount, { atMost: shares[shard] })) === undefined) break;
      taken.push({ key, amount });
    }
    if (taken.reduce((sum, piece) => sum + piece.amount, 0) === recipients) return taken;
    await giveBack(taken);
  }
  return undefined;
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
  const account = await findAccount(accountId);
  const owners = [accountId, ...(account?.parentId ? [account.parentId] : [])];
  const limits = await Promise.all(owners.map((id) => getItem<MonthlyLimit>(monthlyLimitKeys.monthlyLimit(id))));
  const caps: Caps = {
    at: now,
    chain: owners.flatMap((id, i) => (limits[i]?.enabled ? [{ accountId: id, limit: limits[i]!.limit }] : [])),
    sendingOff: account && sendingRefusal(account),
  };
  cache.set(accountId, caps);
  return caps;
}

/**
 * Why a send of this account is refused while its `sending` is off (read with the caps, from the
 * same cache), or undefined: for sends that reserve nothing but must still stop, such as received
 * mail a route forwards or a mailing list relays.
 */
export async function sendingOffFor(accountId: string, domain: string): Promise<string | undefined> {
  const { sendingOff } = await capsOf(accountId);
  return sendingOff && notAllowedToSend(domain, sendingOff);
}

/**
 * Reserves `recipients` of this month's allowance before a send is accepted: on each capped account
 * (the subaccount's, then its parent's, which its sends also count toward) within its limit
 * (take), so concurrent sends can never pass it together. A send that would cross a limit is
 * refused whole (429) and nothing of it is counted. Answers how to give the reservation back, for a
 * send that then fails before anything of it was accepted.
 */
async function reserveMonthly(accountId: string, domain: string, recipients: number, at = Date.now()): Promise<() => Promise<void>> {
  const { chain, sendingOff } = await capsOf(accountId);
  // Read with the caps (the same item, the same cache), so the check costs a send nothing more.
  if (sendingOff) throw new Forbidden(notAllowedToSend(domain, sendingOff));
  const month = monthOf(at);
  const taken: Piece[] = [];
  const release = () => giveBack(taken);
  for (const cap of chain) {
    const pieces = await take(cap.accountId, month, cap.limit, recipients);
    if (!pieces) {
      await release();
      throw new MonthlyLimitReached(domain, cap.limit, at);
    }
    taken.push(...pieces);
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
