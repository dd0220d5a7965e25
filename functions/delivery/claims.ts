import { randomUUID } from 'node:crypto';
import { defineEntity } from '../data/key-registry';
import { deleteItemIf, getItem, putItem, updateItem, updateItemIf, type Key } from '../data/store';
import { recordEvents, type EventData } from '../events/event-store';
import type { MessageRecord } from '../messages/message-store';
import { mapLimit } from '../platform/concurrency';
import { failedEvent } from './outcome-events';
import { chunkReserveMs, CLAIM_GRACE_MS } from './send-timing';

/**
 * The delivery claim protocol. Each recipient of a message is claimed with a conditional write
 * before SES is called, so a redelivered job never sends the same message to the same recipient
 * twice. A claim moves one way only:
 *
 *   (absent) -> 'claimed' -> 'sending' -> 'done'
 *                   |            '-> 'failing' -> 'done' (taken over from a dead invocation: outcome unknown)
 *                   '-> (released: absent again, to be claimed by the job's next delivery)
 *
 * The send worker (send-worker.ts) claims, holds for sending and marks done; SES's notifications
 * (ses-notifications.ts) settle a claim its send left 'sending'; the dead-letter consumers fail
 * what is left. Nothing else reads or writes a claim.
 */

/** SES tags that let a notification find its message (values: letters, digits, _ and - only). */
export const TAG_ACCOUNT = 'mp_account';
export const TAG_STORAGE = 'mp_storage';
/** The dedicated IP a message was sent from, and the DIPP it was chosen through (functions/sending-ips). */
export const TAG_SENDING_IP = 'mp_ip';
export const TAG_IP_POOL = 'mp_pool';

/** A recipient's claim: beside its message's item, under the message's partition. */
const claimKey = defineEntity('delivery claims', {
  claim: {
    what: 'the claim of one recipient of a stored message (claimed, sending, failing, done)',
    pk: 'MSG#<storage key>',
    sk: 'RCPT#<recipient*>',
    key: (storageKey: string, recipient: string): Key => ({ pk: `MSG#${storageKey}`, sk: `RCPT#${recipient}` }),
  },
}).claim;

/** Claim updates in flight at once for one message (up to 1,000 recipients). */
const CLAIM_WRITES_AT_ONCE = 16;

/**
 * Claims written before claims carried their invocation's deadline: dead 5 minutes after they
 * were made, as the worker then assumed.
 */
const LEGACY_CLAIM_LIFETIME_MS = 5 * 60_000;

/**
 * A recipient's claim. 'claimed': an invocation has taken it and not yet called SES, so if that
 * invocation dies it may be sent again. 'sending': SES is being (or was) called for it, so if its
 * invocation dies the outcome is unknown, unless SES's notification settles it. 'failing': taken
 * over from a dead 'sending' one, its failure being recorded (SES's notification no longer
 * settles it). 'done': it has its final event, or SES has it.
 */
export interface Claim {
  state: 'claimed' | 'sending' | 'failing' | 'done';
  /** Done by the worker's "outcome unknown" failure (a dead invocation's send), not by SES's word. */
  unknownOutcome?: boolean;
  at: number;
  /** The invocation that holds it, and that invocation's deadline (ms since the epoch). */
  owner?: string;
  until?: number;
}

/** One run of the worker: who it is, and when Lambda (or local mode) will stop it. */
export interface Invocation {
  owner: string;
  deadline: number;
  /** Time kept back before the deadline for one SES chunk. */
  reserveMs: number;
}

/** Less time left than one SES chunk needs. */
export const outOfTime = (invocation: Invocation) => Date.now() + invocation.reserveMs > invocation.deadline;

export function invocationOf(remainingMs: number): Invocation {
  return { owner: randomUUID(), deadline: Date.now() + remainingMs, reserveMs: chunkReserveMs(remainingMs) };
}

/** When a claim is certainly abandoned: its invocation's deadline has passed, with a margin. */
const deadAt = (claim: Claim) => (claim.until ?? claim.at + LEGACY_CLAIM_LIFETIME_MS) + CLAIM_GRACE_MS;

export interface Claims {
  /** Taken by this invocation: not yet sent by anyone. */
  claimed: string[];
  /** Left 'sending' (or 'failing') by a dead invocation, now taken over: SES may or may not have them. */
  ambiguous: string[];
  /** When the claims another invocation still holds will be dead, if there are any. */
  busyUntil?: number;
}

type ClaimOutcome = { kind: 'claimed' | 'ambiguous' | 'handled' } | { kind: 'busy'; until: number };

/** Takes one recipient's claim for `invocation`, or says why not. */
async function claimOne(record: MessageRecord, recipient: string, invocation: Invocation): Promise<ClaimOutcome> {
  const key = claimKey(record.storageKey, recipient);
  const mine = { state: 'claimed', at: Date.now(), owner: invocation.owner, until: invocation.deadline };
  if (await putItem(key, { ...mine, ttl: record.ttl }, { ifAbsent: true })) return { kind: 'claimed' };
  const existing = await getItem<Claim>(key, { consistent: true });
  // Released between the two calls: this job comes back at once and takes it then.
  if (!existing) return { kind: 'busy', until: Date.now() };
  if (existing.state === 'done') return { kind: 'handled' };
  if (Date.now() < deadAt(existing)) return { kind: 'busy', until: deadAt(existing) };
  // Dead: taken over only if nobody else took it over first.
  const expected = { state: existing.state, at: existing.at };
  if (existing.state === 'claimed') return (await updateItemIf(key, expected, mine)) ? { kind: 'claimed' } : { kind: 'busy', until: Date.now() };
  // Now ours, 'failing': if recording its failure fails, it dies again and is retried.
  return (await updateItemIf(key, expected, { ...mine, state: 'failing' })) ? { kind: 'ambiguous' } : { kind: 'busy', until: Date.now() };
}

/**
 * Claims every recipient it can. Those done were handled by an earlier delivery; those another
 * invocation holds are left to it until its deadline has passed, and the job comes back then.
 */
export async function claim(record: MessageRecord, invocation: Invocation): Promise<Claims> {
  const outcomes = await mapLimit(record.recipients, CLAIM_WRITES_AT_ONCE, (recipient) => claimOne(record, recipient, invocation));
  const having = (kind: ClaimOutcome['kind']) => record.recipients.filter((_, i) => outcomes[i]!.kind === kind);
  const busy = outcomes.flatMap((outcome) => (outcome.kind === 'busy' ? [outcome.until] : []));
  return { claimed: having('claimed'), ambiguous: having('ambiguous'), busyUntil: busy.length ? Math.max(...busy) : undefined };
}

/**
 * Gives claims back unsent, so that the job, queued (or delivered) again, can take them: only
 * claims this invocation still holds in the given state.
 */
export const release = (storageKey: string, recipients: string[], invocation: Invocation, state: Claim['state']) =>
  mapLimit(recipients, CLAIM_WRITES_AT_ONCE, (recipient) => deleteItemIf(claimKey(storageKey, recipient), { owner: invocation.owner, state }));

/**
 * Moves the claims this invocation still holds from 'claimed' to 'sending', just before SES is
 * called for them: only those it still holds may be sent (a claim taken over meanwhile is not).
 */
export async function holdForSending(storageKey: string, recipients: string[], invocation: Invocation): Promise<string[]> {
  const held = await mapLimit(recipients, CLAIM_WRITES_AT_ONCE, (recipient) => updateItemIf(claimKey(storageKey, recipient), { owner: invocation.owner, state: 'claimed' }, { state: 'sending' }));
  return recipients.filter((_, i) => held[i]);
}

/** Marks claims this invocation holds as done: SES has them, or they have their final event. */
export const markDone = (storageKey: string, recipients: string[], also: Partial<Claim> = {}) =>
  mapLimit(recipients, CLAIM_WRITES_AT_ONCE, (recipient) => updateItem(claimKey(storageKey, recipient), { ...also, state: 'done' }));

/** Final events for these recipients in as few writes as the table allows, then their claims done. */
export async function settle(record: MessageRecord, recipients: string[], eventOf: (recipient: string) => EventData, also: Partial<Claim> = {}): Promise<void> {
  await recordEvents(record.accountId, record.domain, recipients.map(eventOf));
  await markDone(record.storageKey, recipients, also);
}

const UNKNOWN_OUTCOME = 'Delivery outcome unknown: an earlier attempt stopped while sending; not retried to avoid a duplicate';

/** Recipients a dead invocation left 'sending': SES may or may not have them, so they are not sent again. */
export const failUnknown = (record: MessageRecord, recipients: string[], attempt: number) =>
  settle(record, recipients, (recipient) => failedEvent(record, recipient, UNKNOWN_OUTCOME, attempt), { unknownOutcome: true });

/**
 * Settles, on SES's final word, a claim a dead invocation may have left 'sending', so that it is
 * not failed as unknown. True when SES's word is the recipient's final event: this write won the
 * claim, or the claim was done without the "outcome unknown" failure (its sender marked it). False
 * when a worker took it over first: its failure is the final event.
 */
export async function settleClaim(storageKey: string, recipient: string): Promise<boolean> {
  const key = settlingKey(storageKey, recipient);
  if (await updateItemIf(key, { state: 'sending' }, { state: 'done' })) return true;
  return !failedAsUnknown(await getItem<Claim>(key, { consistent: true }));
}

/** The claim settleClaims looks at, for a caller that reads claims in a batch read of its own first. */
export const settlingKey = (storageKey: string, recipient: string) => claimKey(storageKey, recipient.toLowerCase());

/**
 * Whether a claim, read strongly consistently once SES's notification about its recipient has
 * arrived, still needs settleClaims. SES reports only on a send it accepted, and the claim was
 * 'sending' before that send was made; from there it only moves on ('done', or 'failing' then
 * 'done'), never back. So a claim read in any other state (or gone with its ttl) would refuse
 * settleClaims' conditional write anyway, and only one read 'sending' is worth the write, which
 * stays conditional in case it moved on since the read.
 */
export const awaitsSettling = (claim: { state?: unknown } | undefined): boolean => claim?.state === 'sending';

/**
 * Whether a recipient's final event is the worker's "outcome unknown" failure (recorded, or being
 * recorded): SES's word on it, should it come after all, must not make a second final event.
 */
export const failedAsUnknown = (claim: { state?: unknown; unknownOutcome?: unknown } | undefined): boolean => claim?.state === 'failing' || claim?.unknownOutcome === true;
