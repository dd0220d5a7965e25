import { mapLimit } from '../../platform/concurrency';
import { logger } from '../../platform/logger';
import { microsoftSpam, receiverAuthResults } from './auth-results';
import { findCopy, type FoundCopy } from './imap-search';
import { findResult, saveOutcome, type SeedOutcome } from './results';
import { seedLogin, seedMailboxes, type SeedMailboxItem } from './seed-mailboxes';
import type { PollInput } from './target-mail';

/**
 * The placement poll workflow's task (lib/workflows/placement-poll.asl.json). `poll`: every seed
 * still pending is searched once; past the deadline what is still not found is `missing` and the
 * result is complete. `finish`: the workflow's catch, when polling kept failing: pending seeds
 * become `missing` so every accepted test ends.
 */
export type PollTaskEvent = { step: 'poll' | 'finish'; input: PollInput };

/** Seeds searched at once: each is its own IMAP connection. */
const SEED_CONCURRENCY = 8;

/** The sending platform's own Authentication-Results (the seeds' copies carry ours too): not the receiver's verdict. */
const OUR_AUTHSERV_IDS = ['amazonses.com', 'mailplane'];

/**
 * The seeds' headers a result keeps: a result is one item, and DynamoDB takes at most 400 KB, the
 * body (MAX_BODY_CHARS) included. Each seed gets an equal share, at most 4 KB.
 */
const HEADER_BYTES_PER_RESULT = 200 * 1024;
const MAX_HEADER_BYTES_PER_SEED = 4 * 1024;

/** The verdict headers first, then the rest in order, each value cut at 1,000 characters, within `budget` bytes; kept in the receiver's order. */
export function keptHeaders(headers: ReadonlyArray<{ key: string; value: string }>, budget: number): Array<{ key: string; value: string }> {
  const verdict = /^(authentication-results|received-spf|arc-authentication-results|x-forefront-antispam-report|x-microsoft-antispam|x-ms-exchange-organization-scl)$/i;
  const cut = headers.map((h) => ({ key: h.key, value: h.value.slice(0, 1000) }));
  const priority = [...cut.keys()].sort((a, b) => Number(verdict.test(cut[b]!.key)) - Number(verdict.test(cut[a]!.key)) || a - b);
  const keep = new Set<number>();
  let used = 0;
  for (const i of priority) {
    const size = Buffer.byteLength(cut[i]!.key) + Buffer.byteLength(cut[i]!.value);
    if (used + size > budget) continue;
    used += size;
    keep.add(i);
  }
  return cut.filter((_, i) => keep.has(i));
}

function delivered(seed: SeedOutcome, copy: FoundCopy, headerBudget = MAX_HEADER_BYTES_PER_SEED): SeedOutcome {
  const auth = receiverAuthResults(copy.headers, OUR_AUTHSERV_IDS);
  const ms = microsoftSpam(copy.headers);
  return {
    email: seed.email,
    provider: seed.provider,
    state: 'delivered',
    destination: copy.destination,
    folder: copy.folder,
    ...auth,
    headers: keptHeaders(copy.headers, headerBudget),
    ...(copy.category ? { category: copy.category } : {}),
    ...(ms ? { msSpam: ms } : {}),
    receivedAt: copy.receivedAt,
  };
}

async function pollSeed(seed: SeedOutcome, mailbox: SeedMailboxItem | undefined, messageId: string, headerBudget: number): Promise<SeedOutcome> {
  if (!mailbox) return { ...seed, lastError: 'the seed mailbox is no longer configured' };
  try {
    const copy = await findCopy(await seedLogin(mailbox), messageId);
    return copy ? delivered(seed, copy, headerBudget) : withoutError({ ...seed, lastError: undefined });
  } catch (error) {
    // The mailbox could not be read this round (sign-in refused, server down): tried again next round.
    const reason = (error as { responseText?: string }).responseText ?? (error as Error).message;
    logger.warn('a seed mailbox could not be searched', { seed: seed.email, reason });
    return { ...seed, lastError: reason };
  }
}

/** The outcome without a read error: DynamoDB takes no undefined attributes. */
function withoutError(seed: SeedOutcome): SeedOutcome {
  const { lastError, ...rest } = seed;
  return lastError === undefined ? rest : seed;
}

const missingFrom = (seeds: SeedOutcome[]) => seeds.map((s): SeedOutcome => (s.state === 'pending' ? { ...withoutError({ ...s, lastError: undefined }), state: 'missing' } : s));

export async function handler(event: PollTaskEvent): Promise<{ done: boolean }> {
  const result = await findResult(event.input.accountId, event.input.resultId);
  // Deleted meanwhile, or already complete: nothing left to poll.
  if (!result || result.status === 'complete') return { done: true };
  if (event.step === 'finish') {
    await saveOutcome(result, missingFrom(result.seeds), 'complete');
    return { done: true };
  }
  const headerBudget = Math.min(MAX_HEADER_BYTES_PER_SEED, Math.floor(HEADER_BYTES_PER_RESULT / Math.max(1, result.seeds.length)));
  // The seed mailboxes in one read a round, not one read a seed.
  const mailboxes = new Map((await seedMailboxes()).map((mailbox) => [mailbox.email, mailbox]));
  const seeds = await mapLimit(result.seeds, SEED_CONCURRENCY, (seed) => (seed.state === 'pending' ? pollSeed(seed, mailboxes.get(seed.email.toLowerCase()), result.messageId, headerBudget) : Promise.resolve(seed)));
  const cleaned = seeds.map(withoutError);
  const pastDeadline = Date.now() >= Date.parse(result.deadline);
  const done = pastDeadline || cleaned.every((s) => s.state !== 'pending');
  const saved = await saveOutcome(result, pastDeadline ? missingFrom(cleaned) : cleaned, done ? 'complete' : 'processing');
  return { done: done || !saved };
}
