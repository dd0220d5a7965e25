import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { SendJob } from '../messages/accept';
import type { MessageRecord } from '../messages/message-store';
import { withoutFields } from '../messages/mime-headers';
import { recordEvents } from '../events/event-store';
import { configurationSetOf, routeFor, sendingAddressesOf, type SendingRoute } from '../sending-ips/sending-route';
import { sesSendClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { holdForSending, markDone, outOfTime, release, settle, TAG_ACCOUNT, TAG_IP_POOL, TAG_SENDING_IP, TAG_STORAGE, type Invocation } from './claims';
import type { SendingDomain } from './gates';
import { outcomeEvent } from './outcome-events';
import { requeue, retryDelay, retryLater } from './send-queue';
import { CLAIM_GRACE_MS, SES_REQUEST_TIMEOUT_MS } from './send-timing';

/**
 * Hands a message's sendable recipients to SES: at most 50 a call, each call through the route
 * (dedicated IP, pool, configuration set) the domain's sending addresses grant within their
 * warm-up limits, each chunk's claims held 'sending' just before its call. What does not fit in
 * the invocation's time or the hour's warm-up share goes back to the queue unsent.
 */
const MAX_ATTEMPTS = 8;
const RETRY_WINDOW_MS = 8 * 3600_000;
/** SES's limit on recipients per SendEmail call. */
const SES_MAX_RECIPIENTS = 50;

/** Hand-backs in a row with nothing sent before a job is failed (and so counted by the queue). */
const MAX_HAND_BACKS = 3;

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

/**
 * SES reads X-SES-* fields of a raw message as instructions (configuration set, message tags,
 * sending-authorization ARNs): the platform decides those, never the message's author.
 */
const withoutSesHeaders = (mime: Buffer) => withoutFields(mime, (name) => name.startsWith('x-ses-'));

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

/** Sends `sendable` (claimed by `invocation`) in chunks SES and the warm-up limits accept. */
export async function sendInChunks(job: SendJob, record: MessageRecord, domain: SendingDomain, stored: Buffer, sendable: string[], invocation: Invocation): Promise<void> {
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
    const sending = await holdForSending(record.storageKey, chunk, invocation);
    if (sending.length) await sendChunk(job, record, mime, configurationSetOf(route, requireTls, sharedSet), route, sending, invocation);
    i += chunk.length;
  }
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
  const eventOf = (recipient: string) =>
    outcomeEvent(record, recipient, 'failed', {
      'log-level': giveUp ? 'error' : 'warn',
      severity: giveUp ? 'permanent' : 'temporary',
      reason: giveUp && failure === 'retry' ? 'old' : 'generic',
      'delivery-status': { code: giveUp ? 550 : 421, message: description, description, 'attempt-no': job.attempt + 1, ...(giveUp ? {} : { 'retry-seconds': retryDelay(job.attempt) }) },
    });
  if (giveUp) await settle(record, recipients, eventOf);
  else {
    await recordEvents(record.accountId, record.domain, recipients.map(eventOf));
    // SES answered that it did not send them: released, so the retry can claim them again.
    await release(record.storageKey, recipients, invocation, 'sending');
    await retryLater(job);
  }
}
