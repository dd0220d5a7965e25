import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { configurationSetOf, routeFor, sendingAddressesOf, type SendingRoute } from '../sending-ips/sending-route';
import { authorizedRecipients } from '../accounts/sandbox-recipients';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deleteItemIf, getItem, putItem, updateItem, updateItemIf } from '../data/store';
import { findDomain } from '../domains/domain-store';
import { suppressionFor, type SuppressionVerdict } from '../suppressions/sending';
import { newEvent, recordEvents, type EventData } from '../events/event-store';
import { mapLimit } from '../platform/concurrency';
import { sesSendClient, sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import type { SendJob } from './accept';
import { findMessage, loadMime, messageEventFields, type MessageRecord } from './message-store';
import { allHeaderValues, withoutFields } from './mime-headers';
import { foreignSenderDomain, foreignSenderMessage, SENDER_FIELDS } from './sender-domains';
import { chunkReserveMs, CLAIM_GRACE_MS, SEND_WORKER_TIMEOUT_SECONDS, SES_REQUEST_TIMEOUT_MS } from './send-timing';

/**
 * Consumes the send queue. Each recipient is claimed with a conditional write before SES is
 * called, so a redelivered job never sends the same message to the same recipient twice; the
 * final event comes from SES's notifications (delivered, bounced) or from here (test mode,
 * rejections, retries exhausted).
 */
export const MAX_ATTEMPTS = 8;
export const RETRY_WINDOW_MS = 8 * 3600_000;
/** SES's limit on recipients per SendEmail call. */
export const SES_MAX_RECIPIENTS = 50;

/** Claim updates and suppression lookups in flight at once for one message (up to 1,000 recipients). */
const CLAIM_WRITES_AT_ONCE = 16;
const SUPPRESSION_CHECKS_AT_ONCE = 16;

/** SES tags that let a notification find its message (values: letters, digits, _ and - only). */
export const TAG_ACCOUNT = 'mp_account';
export const TAG_STORAGE = 'mp_storage';
/** The dedicated IP a message was sent from, and the DIPP it was chosen through (functions/sending-ips). */
export const TAG_SENDING_IP = 'mp_ip';
export const TAG_IP_POOL = 'mp_pool';

const claimKey = (storageKey: string, recipient: string) => ({ pk: `MSG#${storageKey}`, sk: `RCPT#${recipient}` });

/**
 * How a failed SES call ends. SES answered that it did not send: retry later (throttling, its own
 * 5xx) or give up (a rejection). No answer at all (connection lost, timeout) is ambiguous: SES may
 * have sent, so the recipient is not sent again; its notification, if any, still arrives.
 */
type Failure = 'retry' | 'reject' | 'unknown';

const RETRYABLE = new Set(['TooManyRequestsException', 'LimitExceededException', 'ThrottlingException', 'InternalFailure', 'ServiceUnavailable']);

function classify(error: unknown): Failure {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined) return 'unknown';
  if (RETRYABLE.has(e.name ?? '') || status === 429 || status >= 500) return 'retry';
  return 'reject';
}

function outcomeEvent(record: MessageRecord, recipient: string, name: 'delivered' | 'failed', fields: Record<string, unknown>) {
  return newEvent(name, { ...messageEventFields(record, recipient), ...fields });
}

const SUPPRESSED: Record<SuppressionVerdict, string> = {
  'suppress-bounce': 'Not delivering to previously bounced address',
  'suppress-complaint': 'Not delivering to a user who marked your messages as spam',
  'suppress-unsubscribe': 'Not delivering to unsubscribed address',
};

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
interface Claim {
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
const outOfTime = (invocation: Invocation) => Date.now() + invocation.reserveMs > invocation.deadline;

export function invocationOf(remainingMs: number): Invocation {
  return { owner: randomUUID(), deadline: Date.now() + remainingMs, reserveMs: chunkReserveMs(remainingMs) };
}

/** When a claim is certainly abandoned: its invocation's deadline has passed, with a margin. */
const deadAt = (claim: Claim) => (claim.until ?? claim.at + LEGACY_CLAIM_LIFETIME_MS) + CLAIM_GRACE_MS;

interface Claims {
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
async function claim(record: MessageRecord, invocation: Invocation): Promise<Claims> {
  const outcomes = await mapLimit(record.recipients, CLAIM_WRITES_AT_ONCE, (recipient) => claimOne(record, recipient, invocation));
  const having = (kind: ClaimOutcome['kind']) => record.recipients.filter((_, i) => outcomes[i]!.kind === kind);
  const busy = outcomes.flatMap((outcome) => (outcome.kind === 'busy' ? [outcome.until] : []));
  return { claimed: having('claimed'), ambiguous: having('ambiguous'), busyUntil: busy.length ? Math.max(...busy) : undefined };
}

/**
 * Gives claims back unsent, so that the job, queued (or delivered) again, can take them: only
 * claims this invocation still holds in the given state.
 */
const release = (storageKey: string, recipients: string[], invocation: Invocation, state: Claim['state']) =>
  mapLimit(recipients, CLAIM_WRITES_AT_ONCE, (recipient) => deleteItemIf(claimKey(storageKey, recipient), { owner: invocation.owner, state }));

/** The claims SES has a final word on are settled, so a dead invocation's claim is not failed as unknown. */
export async function settleClaims(storageKey: string, recipients: string[]): Promise<void> {
  await mapLimit(recipients, CLAIM_WRITES_AT_ONCE, (recipient) => updateItemIf(settlingKey(storageKey, recipient), { state: 'sending' }, { state: 'done' }));
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

const retryDelay = (attempt: number) => Math.min(900, env().SEND_RETRY_BASE_SECONDS * 2 ** attempt);

/** SQS delays a message by at most 15 minutes. */
const MAX_DELAY_SECONDS = 900;

async function requeue(job: SendJob, delaySeconds: number): Promise<void> {
  const DelaySeconds = Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.ceil(delaySeconds)));
  await sqsClient().send(new SendMessageCommand({ QueueUrl: env().SEND_QUEUE_URL!, MessageBody: JSON.stringify(job), DelaySeconds }));
}

const retryLater = (job: SendJob) => requeue({ ...job, attempt: job.attempt + 1, firstAttemptAt: job.firstAttemptAt ?? Date.now() }, retryDelay(job.attempt));

const UNKNOWN_OUTCOME = 'Delivery outcome unknown: an earlier attempt stopped while sending; not retried to avoid a duplicate';

const failedEvent = (record: MessageRecord, recipient: string, why: string, attempt: number) =>
  outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: 'generic', 'delivery-status': { code: 550, message: why, description: why, 'attempt-no': attempt } });

async function sendOne(job: SendJob, invocation: Invocation): Promise<void> {
  const record = await findMessage(job.storageKey);
  if (!record) {
    logger.warn('send job for a message that no longer exists', { storageKey: job.storageKey });
    return;
  }
  const { claimed, ambiguous, busyUntil } = await claim(record, invocation);
  // Another invocation holds some recipients: the job comes back once its claims are certainly
  // dead, never dropping a recipient that may still need sending.
  if (busyUntil !== undefined) await requeue(job, (busyUntil - Date.now()) / 1000);
  await failUnknown(record, ambiguous, job.attempt + 1);
  try {
    await sendClaimed(job, record, claimed, invocation);
  } catch (error) {
    // What was claimed and never handed to SES goes back at once, so the queue's redelivery
    // (and in the end its dead-letter consumer) finds it free, not held until the deadline.
    await release(record.storageKey, claimed, invocation, 'claimed');
    throw error;
  }
}

/** Marks claims this invocation holds as done: SES has them, or they have their final event. */
const markDone = (storageKey: string, recipients: string[], also: Partial<Claim> = {}) =>
  mapLimit(recipients, CLAIM_WRITES_AT_ONCE, (recipient) => updateItem(claimKey(storageKey, recipient), { ...also, state: 'done' }));

/** Final events for these recipients in as few writes as the table allows, then their claims done. */
async function settle(record: MessageRecord, recipients: string[], eventOf: (recipient: string) => EventData, also: Partial<Claim> = {}): Promise<void> {
  await recordEvents(record.accountId, record.domain, recipients.map(eventOf));
  await markDone(record.storageKey, recipients, also);
}

/** Recipients a dead invocation left 'sending': SES may or may not have them, so they are not sent again. */
const failUnknown = (record: MessageRecord, recipients: string[], attempt: number) =>
  settle(record, recipients, (recipient) => failedEvent(record, recipient, UNKNOWN_OUTCOME, attempt), { unknownOutcome: true });

/**
 * Whether a recipient's final event is the worker's "outcome unknown" failure (recorded, or being
 * recorded): SES's word on it, should it come after all, must not make a second final event.
 */
export const failedAsUnknown = (claim: { state?: unknown; unknownOutcome?: unknown } | undefined): boolean => claim?.state === 'failing' || claim?.unknownOutcome === true;

/** Settles or sends the recipients this invocation claimed. */
async function sendClaimed(job: SendJob, record: MessageRecord, recipients: string[], invocation: Invocation): Promise<void> {
  if (!recipients.length) return;

  const domain = await findDomain(record.accountId, record.domain);
  if (!domain || (domain.queueClearedAt && record.createdAt <= domain.queueClearedAt)) {
    const why = domain ? "Cancelled: the domain's queue was cleared" : 'Cancelled: the domain was deleted';
    await settle(record, recipients, (recipient) => failedEvent(record, recipient, why, 0));
    return;
  }

  // A sandbox domain reaches its account's authorized recipients only (its confirmation mail and placement test copies excepted).
  if (domain.type === 'sandbox' && !record.purpose && env().SANDBOX_RECIPIENTS === 'authorized') {
    const authorized = await authorizedRecipients(record.accountId);
    const refused = recipients.filter((recipient) => !authorized.has(recipient));
    await settle(record, refused, (recipient) => outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: 'generic', 'delivery-status': { code: 550, message: SANDBOX_REFUSAL, description: SANDBOX_REFUSAL, 'attempt-no': 1, 'session-seconds': 0 } }));
    recipients = recipients.filter((recipient) => authorized.has(recipient));
    if (!recipients.length) return;
  }
  if (record.testMode) {
    await settle(record, recipients, (recipient) => outcomeEvent(record, recipient, 'delivered', { 'delivery-status': { code: 250, message: 'OK', description: 'Test mode: accepted, not sent', 'attempt-no': 1, tls: false, utf8: true, 'certificate-verified': false, 'session-seconds': 0 } }));
    return;
  }
  // Checked at send time, so a bounce recorded after acceptance still stops the message.
  const verdicts = new Map(await mapLimit(recipients, SUPPRESSION_CHECKS_AT_ONCE, async (recipient) => [recipient, await suppressionFor(record.accountId, record.domain, recipient, record.tags)] as const));
  const sendable = recipients.filter((recipient) => !verdicts.get(recipient));
  await settle(
    record,
    recipients.filter((recipient) => verdicts.get(recipient)),
    (recipient) => {
      const verdict = verdicts.get(recipient)!;
      return outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: verdict, 'delivery-status': { code: 605, message: '', description: SUPPRESSED[verdict], 'attempt-no': 1, 'session-seconds': 0 } });
    },
  );
  if (!sendable.length) return;
  const stored = await loadMime(record);
  if (!stored) throw new Error(`MIME of ${record.storageKey} is missing`);
  // Checked again here, the one door to SES, for mail accepted before the rule or by a path
  // that missed it: SES signs with the key of whichever identity the From names.
  const foreign = await foreignSenderDomain(record.accountId, allHeaderValues(stored, SENDER_FIELDS), [domain.name]);
  if (foreign) {
    await settle(record, sendable, (recipient) => failedEvent(record, recipient, foreignSenderMessage(foreign), job.attempt + 1));
    return;
  }
  const mime = withoutSesHeaders(stored);
  const requireTls = record.requireTls ?? domain.requireTls;
  const sharedSet = configurationSetFor(requireTls);
  const addresses = await sendingAddressesOf(domain, record);
  // SES takes at most 50 recipients per call; each chunk succeeds or fails on its own.
  for (let i = 0; i < sendable.length; ) {
    // Too close to the deadline for another SES call: what is left goes back, unsent, to a fresh
    // invocation, so no claim is ever 'sending' past its deadline. A job that gets no chunk out
    // in several invocations in a row fails instead, so the queue's receive count applies.
    if (outOfTime(invocation)) {
      const handBacks = i === 0 ? (job.handBacks ?? 0) + 1 : 0;
      if (handBacks > MAX_HAND_BACKS) throw new Error(`no time left to send in ${MAX_HAND_BACKS + 1} invocations in a row`);
      await release(record.storageKey, sendable.slice(i), invocation, 'claimed');
      await requeue({ ...job, handBacks }, 0);
      return;
    }
    const wanted = sendable.slice(i, i + SES_MAX_RECIPIENTS);
    const route = await routeFor(addresses, wanted.length);
    // Every address the domain may use is warming and has sent its hour's share: the rest waits
    // for the next hour, unsent and not counted as an attempt.
    if (!route.granted) {
      await release(record.storageKey, sendable.slice(i), invocation, 'claimed');
      await requeue(job, (route.heldUntil! - Date.now()) / 1000);
      return;
    }
    // Only what this invocation still holds is sent: a claim taken over meanwhile is not.
    const chunk = wanted.slice(0, route.granted);
    const held = await mapLimit(chunk, CLAIM_WRITES_AT_ONCE, (recipient) => updateItemIf(claimKey(record.storageKey, recipient), { owner: invocation.owner, state: 'claimed' }, { state: 'sending' }));
    const sending = chunk.filter((_, j) => held[j]);
    if (sending.length) await sendChunk(job, record, mime, configurationSetOf(route, requireTls, sharedSet), route, sending, invocation);
    i += chunk.length;
  }
}

/**
 * SES reads X-SES-* fields of a raw message as instructions (configuration set, message tags,
 * sending-authorization ARNs): the platform decides those, never the message's author.
 */
const withoutSesHeaders = (mime: Buffer) => withoutFields(mime, (name) => name.startsWith('x-ses-'));

/** Mailgun's words for a sandbox message to an address that is not an authorized recipient. */
const SANDBOX_REFUSAL = 'Sandbox subdomains are for test purposes only. Please add your own domain or add the address to authorized recipients in Account Settings.';

/** Hand-backs in a row with nothing sent before a job is failed (and so counted by the queue). */
const MAX_HAND_BACKS = 3;

/**
 * SES applies a TLS policy per configuration set, so a message that must go over TLS names the
 * twin set whose policy is Require. Without that set it is not sent at all: sending it through
 * the opportunistic set would break the promise.
 */
function configurationSetFor(requireTls: boolean): string | undefined {
  if (!requireTls) return env().SES_CONFIGURATION_SET;
  const name = env().SES_TLS_CONFIGURATION_SET;
  if (!name) throw new Error('SES_TLS_CONFIGURATION_SET is not configured: a message that requires TLS cannot be sent');
  return name;
}

async function sendChunk(
  job: SendJob,
  record: MessageRecord,
  mime: Buffer,
  configurationSet: string | undefined,
  route: SendingRoute,
  recipients: string[],
  invocation: Invocation,
): Promise<void> {
  try {
    await sesSendClient(SES_REQUEST_TIMEOUT_MS).send(
      new SendEmailCommand({
        Destination: { ToAddresses: recipients },
        Content: { Raw: { Data: mime } },
        ConfigurationSetName: configurationSet,
        EmailTags: [
          { Name: TAG_ACCOUNT, Value: record.accountId },
          { Name: TAG_STORAGE, Value: record.storageKey },
          ...(route.ip ? [{ Name: TAG_SENDING_IP, Value: route.ip.replace(/[.:]/g, '_') }] : []),
          ...(route.poolId ? [{ Name: TAG_IP_POOL, Value: route.poolId }] : []),
        ],
      }),
    );
  } catch (error) {
    await afterFailedSend(job, record, recipients, error, invocation);
    return;
  }
  // SES has them. Outside the try: a failed write here must not pass for a failed send (and be
  // sent again); the claims stay 'sending' and SES's notification settles them.
  await markDone(record.storageKey, recipients);
}

/**
 * What follows an SES call that did not succeed. No answer at all: SES may have the message, so
 * the claims stay 'sending' and the job comes back once they are dead, by when SES's notification
 * has usually settled them; those it has not fail as unknown then. SES said it did not send:
 * retried later (released, with a temporary failure) or given up (a permanent one).
 */
async function afterFailedSend(job: SendJob, record: MessageRecord, recipients: string[], error: unknown, invocation: Invocation): Promise<void> {
  const failure = classify(error);
  if (failure === 'unknown') {
    logger.warn('SES call ended without an answer; its outcome is settled later', { storageKey: record.storageKey, error: error as Error });
    await requeue(job, (invocation.deadline + CLAIM_GRACE_MS - Date.now()) / 1000);
    return;
  }
  const age = Date.now() - (job.firstAttemptAt ?? Date.now());
  const giveUp = failure === 'reject' || job.attempt + 1 >= MAX_ATTEMPTS || age >= RETRY_WINDOW_MS;
  const description = (error as Error).message;
  await recordEvents(
    record.accountId,
    record.domain,
    recipients.map((recipient) =>
      outcomeEvent(record, recipient, 'failed', {
        'log-level': giveUp ? 'error' : 'warn',
        severity: giveUp ? 'permanent' : 'temporary',
        reason: giveUp && failure === 'retry' ? 'old' : 'generic',
        'delivery-status': { code: giveUp ? 550 : 421, message: description, description, 'attempt-no': job.attempt + 1, ...(giveUp ? {} : { 'retry-seconds': retryDelay(job.attempt) }) },
      }),
    ),
  );
  if (giveUp) await markDone(record.storageKey, recipients);
  else {
    // SES answered that it did not send them: released, so the retry can claim them again.
    await release(record.storageKey, recipients, invocation, 'sending');
    await retryLater(job);
  }
}

/**
 * Gives every recipient not yet sent a final failed event, claiming it so that a late send job
 * cannot send it after all; a recipient a dead invocation left 'sending' fails as unknown. For a
 * message that could not be handed to the send queue (schedule-undelivered.ts) or whose job the
 * queue gave up on (send-dead-letters.ts). `busyUntil` says another invocation still holds some
 * recipients, and when its claims will be dead: ask again then.
 */
export async function abandonUnsent(storageKey: string, why: string): Promise<{ failed: number; busyUntil?: number }> {
  const record = await findMessage(storageKey);
  if (!record) return { failed: 0 };
  const invocation = invocationOf(SEND_WORKER_TIMEOUT_SECONDS * 1000);
  const { claimed, ambiguous, busyUntil } = await claim(record, invocation);
  await failUnknown(record, ambiguous, 0);
  await settle(record, claimed, (recipient) => failedEvent(record, recipient, why, 0));
  return { failed: claimed.length + ambiguous.length, busyUntil };
}

export async function handler(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  // Without a Lambda context (a direct call), the deployed timeout is assumed.
  const invocation = invocationOf(context?.getRemainingTimeInMillis() ?? SEND_WORKER_TIMEOUT_SECONDS * 1000);
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records as SQSRecord[]) {
    try {
      const job = JSON.parse(message.body) as SendJob;
      // Too late in this invocation to start another message: it goes back to the queue as it
      // is, rather than being cut off by the timeout (which would count against the whole batch).
      if (outOfTime(invocation)) await requeue(job, 0);
      else await sendOne(job, invocation);
    } catch (error) {
      logger.error('send job failed; the queue will redeliver it', { messageId: message.messageId, error: error as Error });
      failures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures: failures };
}
