import { randomUUID } from 'node:crypto';
import { deleteIfPresent, getItem, putItem, queryAll, updateItem, updateItemIf, type Key } from '../../data/store';
import { env } from '../../platform/env';
import { NotFound } from '../../platform/errors';
import type { AuthVerdict, MsSpam } from './auth-results';
import type { ContentScore } from './content-score';
import { defineEntity } from '../../data/key-registry';

export const resultKeys = defineEntity(
  'placement results',
  {
    placementResult: { what: "an account's placement results, by id (objectIds: creation order)", pk: 'ACCT#<account>#PLACEMENT', sk: '<id>', key: (accountId: string, id = ''): Key => ({ pk: `ACCT#${accountId}#PLACEMENT`, sk: id }) },
    placementShare: { what: 'a shared result, by its share id (the unguessable part of the public link)', pk: 'PLACEMENTSHARE#<share id>', sk: 'SHARE', key: (shareId: string): Key => ({ pk: `PLACEMENTSHARE#${shareId}`, sk: 'SHARE' }) },
  },
  [{ what: "an account's placement results", pk: 'ACCT#<account>#PLACEMENT' }],
);

/**
 * Placement results (optimize contract 1.3): one per message that reached a seed list's target,
 * with what each seed's mailbox did with its copy. Only the poll task writes `seeds` and
 * `status`; sharing has attributes of its own, so neither overwrites the other.
 */
export type SeedState = 'pending' | 'delivered' | 'missing';

export interface SeedOutcome {
  email: string;
  provider: string;
  state: SeedState;
  destination: '' | 'inbox' | 'spam';
  folder: string;
  spf: AuthVerdict;
  dkim: AuthVerdict;
  dmarc: AuthVerdict;
  headers: Array<{ key: string; value: string }>;
  category?: string;
  msSpam?: MsSpam;
  receivedAt?: string;
  /** Why the last poll could not read this mailbox (kept, never a secret); cleared once read. */
  lastError?: string;
}

export interface Sharing {
  id: string;
  enabled: boolean;
  expiresAt: string;
}

export interface ResultItem {
  accountId: string;
  id: string;
  targetEmail: string;
  seedlistId: string;
  seedlistName: string;
  sender: string;
  subject: string;
  messageId: string;
  originatingIp: string;
  status: 'processing' | 'complete';
  /** When seeds still not found are `missing`. */
  deadline: string;
  seeds: SeedOutcome[];
  spamassassin: ContentScore | null;
  /** The message's HTML (or text), for `GET /v4/inbox/results/{id}` only, at most MAX_BODY_CHARS. */
  body: string;
  sharing?: Sharing;
  createdAt: string;
  updatedAt: string;
}

/** The body a result keeps: a whole item must stay under DynamoDB's 400 KB with every seed's headers. */
export const MAX_BODY_CHARS = 64_000;

/** How long a share link lives once enabled. */
const SHARE_DAYS = 30;

export const pendingSeed = (email: string, provider: string): SeedOutcome => ({ email, provider, state: 'pending', destination: '', folder: '', spf: 'missing/not-set', dkim: 'missing/not-set', dmarc: 'missing/not-set', headers: [] });

/** The body a result keeps of a message: its HTML, else its text, at most MAX_BODY_CHARS. */
export const keptBody = (message: { html?: string | false; text?: string }): string => (message.html || message.text || '').slice(0, MAX_BODY_CHARS);

/**
 * A result as it starts: every seed pending, processing while there is a seed to look for, and
 * its deadline PLACEMENT_DEADLINE_SECONDS from `now`, when the seeds not found become `missing`.
 */
export function newResult(fields: Omit<ResultItem, 'status' | 'deadline' | 'seeds' | 'createdAt' | 'updatedAt' | 'sharing'>, seeds: ReadonlyArray<{ email: string; provider: string }>, now = Date.now()): ResultItem {
  const at = new Date(now).toISOString();
  return {
    ...fields,
    status: seeds.length ? 'processing' : 'complete',
    deadline: new Date(now + env().PLACEMENT_DEADLINE_SECONDS * 1000).toISOString(),
    seeds: seeds.map((s) => pendingSeed(s.email, s.provider)),
    createdAt: at,
    updatedAt: at,
  };
}

/** Creates the result once: a copy delivered twice to the target (a retried receipt) finds it there. */
export async function createResult(result: ResultItem): Promise<boolean> {
  return putItem(resultKeys.placementResult(result.accountId, result.id), result, { ifAbsent: true });
}

export async function findResult(accountId: string, id: string): Promise<ResultItem | undefined> {
  return getItem<ResultItem>(resultKeys.placementResult(accountId, id), { consistent: true });
}

export async function requireResult(accountId: string, id: string): Promise<ResultItem> {
  const result = await findResult(accountId, id);
  if (!result) throw new NotFound('result not found');
  return result;
}

export async function accountResults(accountId: string): Promise<ResultItem[]> {
  return queryAll<ResultItem>(resultKeys.placementResult(accountId), '');
}

/** Records a poll's outcome; false when the result was deleted meanwhile. */
export async function saveOutcome(result: ResultItem, seeds: SeedOutcome[], status: ResultItem['status']): Promise<boolean> {
  return updateItemIf(resultKeys.placementResult(result.accountId, result.id), { id: result.id }, { seeds, status, updatedAt: new Date().toISOString() });
}

export async function deleteResult(result: ResultItem): Promise<void> {
  if (result.sharing) await deleteIfPresent(resultKeys.placementShare(result.sharing.id));
  await deleteIfPresent(resultKeys.placementResult(result.accountId, result.id));
}

/** Turns sharing on (a fresh link, valid SHARE_DAYS) or off (the link stops answering). */
export async function setSharing(result: ResultItem, enabled: boolean): Promise<Sharing> {
  const now = Date.now();
  const sharing: Sharing = enabled
    ? { id: result.sharing?.enabled && Date.parse(result.sharing.expiresAt) > now ? result.sharing.id : randomUUID(), enabled: true, expiresAt: new Date(now + SHARE_DAYS * 86_400_000).toISOString() }
    : { id: result.sharing?.id ?? randomUUID(), enabled: false, expiresAt: result.sharing?.expiresAt ?? new Date(now).toISOString() };
  if (result.sharing && result.sharing.id !== sharing.id) await deleteIfPresent(resultKeys.placementShare(result.sharing.id));
  if (enabled) await putItem(resultKeys.placementShare(sharing.id), { accountId: result.accountId, resultId: result.id });
  else await deleteIfPresent(resultKeys.placementShare(sharing.id));
  await updateItem(resultKeys.placementResult(result.accountId, result.id), { sharing });
  return sharing;
}

/** The result a share id opens, while its sharing is on and unexpired. */
export async function sharedResult(shareId: string): Promise<ResultItem> {
  const owner = await getItem<{ accountId: string; resultId: string }>(resultKeys.placementShare(shareId));
  const result = owner && (await findResult(owner.accountId, owner.resultId));
  if (!result?.sharing?.enabled || result.sharing.id !== shareId || Date.parse(result.sharing.expiresAt) <= Date.now()) throw new NotFound('shared result not found');
  return result;
}

export interface ProviderStats {
  delivered: number;
  missing: number;
  pending: number;
  spam: number;
  inbox: number;
  total: number;
  provider: string;
  categories: Record<string, number>;
}

/** `delivery_stats`: counts per provider and over all (`all`), from the seeds' outcomes. */
export function deliveryStats(seeds: readonly SeedOutcome[]): Record<string, ProviderStats> {
  const stats: Record<string, ProviderStats> = {};
  const bucket = (provider: string) => (stats[provider] ??= { delivered: 0, missing: 0, pending: 0, spam: 0, inbox: 0, total: 0, provider, categories: {} });
  for (const seed of seeds) {
    for (const s of [bucket('all'), bucket(seed.provider)]) {
      s.total += 1;
      s[seed.state] += 1;
      if (seed.state === 'delivered') s[seed.destination === 'spam' ? 'spam' : 'inbox'] += 1;
      if (seed.category) s.categories[seed.category] = (s.categories[seed.category] ?? 0) + 1;
    }
  }
  bucket('all');
  return stats;
}
