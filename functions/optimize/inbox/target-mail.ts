import { createHash } from 'node:crypto';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { RESOLUTIONS, bucketStart } from '../../analytics/buckets';
import { addToCounters } from '../../analytics/counter-store';
import { defineEntity } from '../../data/key-registry';
import { getItem, updateItemIf, type Key } from '../../data/store';
import { sfnClient } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { logger } from '../../platform/logger';
import { contentScore, type ContentScore } from './content-score';
import { headerList } from './imap-search';
import { createResult, keptBody, newResult, resultKeys, type ResultItem } from './results';
import { findSeedList, markListResult, seedListOwner, type SeedListItem } from './seed-lists';
import { seedMailboxes } from './seed-mailboxes';

export const placementSendKeys = defineEntity('placement sends', {
  placementSend: {
    what: 'a placement test sent by POST /v4/inbox/tests, by its Message-ID, until its copy reaches the target',
    pk: 'PLACEMENTSEND#<message id*>',
    sk: 'SEND',
    key: (messageId: string): Key => ({ pk: `PLACEMENTSEND#${messageId}`, sk: 'SEND' }),
  },
});

/** What POST /v4/inbox/tests left for its copy's arrival at the target: the result's id and the seeds sent to. */
export interface PlacementSend {
  accountId: string;
  resultId: string;
  targetEmail: string;
  seeds: Array<{ email: string; provider: string }>;
  /**
   * The test made its result and started its poll itself; the target's copy only adds what that
   * copy alone tells (the sending IP, the content score, the body as sent). Absent on sends
   * recorded before tests made their own results: those are started by the copy, as before.
   */
  resultOpened?: boolean;
}

/** The poll workflow's input (lib/workflows/placement-poll.asl.json). */
export interface PollInput {
  accountId: string;
  resultId: string;
  pollSeconds: number;
}

/**
 * A result's id, the same for every delivery of one copy to one target (a retried receipt): the
 * arrival time in hex first, as objectIds, so results list in the order they came.
 */
function resultIdFor(messageId: string, target: string, at: number): string {
  return Math.floor(at / 1000).toString(16).padStart(8, '0') + createHash('sha256').update(`${messageId}\n${target}`).digest('hex').slice(0, 16);
}

/** The sending server's address: the first bracketed IP in the Received header our receiver added on top. */
function originatingIp(headers: ReadonlyArray<{ key: string; value: string }>): string {
  const received = headers.filter((h) => h.key.toLowerCase() === 'received');
  for (const header of received) {
    const ip = /\[([0-9a-f.:]+)\]/i.exec(header.value)?.[1];
    if (ip) return ip;
  }
  return '';
}

async function scoreOf(mime: Buffer): Promise<ContentScore | null> {
  try {
    return await contentScore(mime);
  } catch (error) {
    // No score is reported rather than a guessed one.
    logger.warn('the content scorer failed; the result has no spamassassin score', { error: (error as Error).message });
    return null;
  }
}

async function startPolling(input: Omit<PollInput, 'pollSeconds'>): Promise<void> {
  const stateMachineArn = env().PLACEMENT_STATE_MACHINE_ARN;
  if (!stateMachineArn) throw new Error('PLACEMENT_STATE_MACHINE_ARN is not configured');
  try {
    const poll: PollInput = { ...input, pollSeconds: env().PLACEMENT_POLL_SECONDS };
    await sfnClient().send(new StartExecutionCommand({ stateMachineArn, name: `placement-${input.resultId}`, input: JSON.stringify(poll) }));
  } catch (error) {
    // A retried receipt: this result's poll already ran or runs.
    if ((error as Error).name !== 'ExecutionAlreadyExists') throw error;
  }
}

/** Counts one placement test in the account's stats (`seed_test`), once per result. */
async function countSeedTest(accountId: string, resultId: string, at: number): Promise<void> {
  await addToCounters(RESOLUTIONS.map((resolution) => ({ accountId, kind: [], values: [], resolution, bucket: bucketStart(at, resolution), counts: { seed_test: 1 } })), `placement:${resultId}`);
}

/** A result just made: counted in the stats, marked on its seed list, and polled until every seed is found or its deadline passes. */
export async function resultStarted(result: ResultItem, list: SeedListItem): Promise<void> {
  await countSeedTest(result.accountId, result.id, Date.parse(result.createdAt));
  await markListResult(list, result.createdAt);
  if (result.seeds.length) await startPolling({ accountId: result.accountId, resultId: result.id });
}

/** What only the target's copy tells a test's result; nothing when the result was deleted meanwhile. */
async function addTargetCopy(accountId: string, resultId: string, details: Pick<ResultItem, 'originatingIp' | 'spamassassin' | 'body'>): Promise<void> {
  await updateItemIf(resultKeys.placementResult(accountId, resultId), { id: resultId }, details);
}

async function seedsFor(list: SeedListItem, send: PlacementSend | undefined): Promise<Array<{ email: string; provider: string }>> {
  if (send) return send.seeds;
  const configured = new Map((await seedMailboxes()).map((s) => [s.email, s.provider]));
  // A seed the operator has removed since the list was made can no longer be read: it is left out.
  return list.seeds.filter((email) => configured.has(email)).map((email) => ({ email, provider: configured.get(email)! }));
}

/** A message as every target it reached reads it: parsed once, scored once (on first need). */
interface ReceivedMessage {
  mime: Buffer;
  parsed: import('mailparser').ParsedMail;
  score: () => Promise<ContentScore | null>;
}

/** One copy at one target address: its result, and the poll that fills it in. */
async function receiveAtTarget(target: string, { mime, parsed, score }: ReceivedMessage): Promise<void> {
  const accountId = await seedListOwner(target);
  const list = accountId && (await findSeedList(accountId, target));
  if (!accountId || !list) {
    logger.info('mail for an unknown seed list target, dropped', { target });
    return;
  }
  const messageId = parsed.messageId ?? '';
  if (!messageId) {
    logger.info('mail at a seed list target without a Message-ID cannot be found in the seeds, dropped', { target });
    return;
  }
  const send = await getItem<PlacementSend>(placementSendKeys.placementSend(messageId));
  const sentHere = send && send.accountId === accountId && send.targetEmail === target ? send : undefined;
  const headers = headerList(mime);
  const body = keptBody(parsed);
  if (sentHere?.resultOpened) return addTargetCopy(accountId, sentHere.resultId, { originatingIp: originatingIp(headers), spamassassin: await score(), body });
  const now = Date.now();
  const id = sentHere?.resultId ?? resultIdFor(messageId, target, now);
  const seeds = await seedsFor(list, sentHere);
  const result = newResult(
    {
      accountId,
      id,
      targetEmail: target,
      seedlistId: list.id,
      seedlistName: list.name,
      sender: parsed.from?.value[0]?.address ?? parsed.from?.text ?? '',
      subject: parsed.subject ?? '',
      messageId,
      originatingIp: originatingIp(headers),
      spamassassin: await score(),
      body,
    },
    seeds,
    now,
  );
  // A retried receipt finds the result made and only makes sure its poll runs.
  if (await createResult(result)) await resultStarted(result, list);
  else if (seeds.length) await startPolling({ accountId, resultId: id });
}

/**
 * Mail for SEED_INBOX_DOMAIN, from the inbound path: each recipient is a seed list's target, and
 * the copy that reaches it starts (or, for POST /v4/inbox/tests, completes the start of) a result.
 */
export async function receiveSeedTargetMail(recipients: readonly string[], mime: Buffer): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- mailparser only for mail at targets (large; the API path never needs it)
  const { simpleParser } = require('mailparser') as typeof import('mailparser');
  const parsed = await simpleParser(mime, { skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true });
  let scored: Promise<ContentScore | null> | undefined;
  const message: ReceivedMessage = { mime, parsed, score: () => (scored ??= scoreOf(mime)) };
  for (const target of recipients) await receiveAtTarget(target.toLowerCase(), message);
}
