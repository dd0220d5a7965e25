import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { notAllowedToSend } from '../accounts/monthly-limit';
import { requireDomain, type DomainItem } from '../domains/domain-store';
import { eventWrites, newEvent, recordEvents } from '../events/event-store';
import { sfnClient, sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { BadRequest, Forbidden } from '../platform/errors';
import { messageId as newMessageId } from '../platform/ids';
import { logger } from '../platform/logger';
import { messageEventFields, type MessageRecord, newStorageKey, storeMime, storeRecord } from './message-store';
import { MAX_RECIPIENTS, parseMailboxes, type Mailbox } from './recipients';
import type { SendParams } from './send-params';
import { assertOwnSender } from './sender-domains';

/** What the send worker receives for one accepted message. */
export interface SendJob {
  storageKey: string;
  /** Delivery attempts so far (the queue's own receive count restarts when a retry is re-queued). */
  attempt: number;
  firstAttemptAt?: number;
  /** Times in a row the worker handed the job back unsent for want of time (functions/delivery/ses-chunks.ts). */
  handBacks?: number;
}

/**
 * The input of a scheduled-delivery execution (lib/workflows/scheduled-delivery.asl.json): the
 * send job it puts on the send queue once `deliverAt` (RFC 3339) has come.
 */
export interface ScheduledJob extends SendJob {
  deliverAt: string;
}

/** One execution per stored message, named by its storage key: a retried start cannot make a second. */
export const scheduleExecutionName = (storageKey: string) => `deliver-${storageKey}`;

export interface Accepted {
  id: string;
  record: MessageRecord;
}

export async function sendingDomain(accountId: string, name: string): Promise<DomainItem> {
  return canSend(await requireDomain(accountId, name));
}

/** The domain, if it may send now: else why not (403 disabled, 400 unverified). */
export function canSend(domain: DomainItem): DomainItem {
  if (domain.isDisabled) throw new Forbidden(notAllowedToSend(domain.name, 'it is disabled'));
  if (domain.state !== 'active') {
    throw new BadRequest(`Domain ${domain.name} is not verified: publish its DNS records, then PUT /v4/domains/${domain.name}/verify`);
  }
  return domain;
}

export function envelopeRecipients(params: Pick<SendParams, 'to' | 'cc' | 'bcc'>): { to: Mailbox[]; cc: Mailbox[]; all: string[] } {
  if (!params.to.length) throw new BadRequest("Missing parameter 'to'.");
  const to = parseMailboxes('to', params.to);
  const cc = parseMailboxes('cc', params.cc);
  const bcc = parseMailboxes('bcc', params.bcc);
  const all = [...new Set([...to, ...cc, ...bcc].map((m) => m.address.toLowerCase()))];
  if (all.length > MAX_RECIPIENTS) throw new BadRequest(`Too many recipients: at most ${MAX_RECIPIENTS} per request`);
  return { to, cc, all };
}

/** The accepted event of one recipient (contract §6.3); the storage URL is added when read. */
function acceptedEvent(record: MessageRecord, recipient: string, at: number) {
  const common = messageEventFields(record, recipient);
  return newEvent(
    'accepted',
    {
      method: record.method ?? 'http',
      ...common,
      flags: { ...common.flags, 'is-authenticated': true },
      message: {
        ...common.message,
        recipients: record.recipients,
        ...(record.deliverAt ? { 'scheduled-for': Math.floor(Date.parse(record.deliverAt) / 1000) } : {}),
      },
      ...(record.template ? { template: record.template } : {}),
    },
    at,
  );
}

/**
 * Hands the accepted message to the send worker: on the send queue now, or, when it is scheduled,
 * through a scheduled-delivery execution that waits until its time and then queues the same job.
 */
export async function queueForSending(record: MessageRecord): Promise<void> {
  const job: SendJob = { storageKey: record.storageKey, attempt: 0 };
  if (record.deliverAt) {
    const input: ScheduledJob = { ...job, deliverAt: record.deliverAt };
    try {
      await sfnClient().send(
        new StartExecutionCommand({ stateMachineArn: env().SCHEDULE_STATE_MACHINE_ARN, name: scheduleExecutionName(record.storageKey), input: JSON.stringify(input) }),
      );
    } catch (error) {
      // An earlier attempt of this very start got through (Step Functions answers so once that
      // execution has ended; while it runs, the same name and input just succeed again).
      if ((error as Error).name !== 'ExecutionAlreadyExists') throw error;
    }
    return;
  }
  const queueUrl = env().SEND_QUEUE_URL;
  if (!queueUrl) throw new Error('SEND_QUEUE_URL is not configured');
  await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job) }));
}

/**
 * The record and every event of the message repeat its subject, addresses and attachment list,
 * and DynamoDB refuses an item over 400 KB. Checked before anything is stored, so a message that
 * could not be recorded is refused whole rather than left half-accepted.
 */
const MAX_RECORDED_BYTES = 300 * 1024;

function checkRecordable(record: MessageRecord): void {
  const event = acceptedEvent(record, record.recipients[0] ?? '', 0);
  const size = Math.max(Buffer.byteLength(JSON.stringify(record)), Buffer.byteLength(JSON.stringify(event)));
  if (size > MAX_RECORDED_BYTES) {
    throw new BadRequest(`The message's subject, addresses and attachment names together exceed ${MAX_RECORDED_BYTES / 1024} KB`);
  }
}

/**
 * Stores the message, records an accepted event per recipient, then queues it (or schedules it,
 * with o:deliverytime). If recording or queuing fails, the recipients get a final failed event
 * (as far as the table takes it), so no accepted event is left without one.
 */
export async function acceptMessage(record: Omit<MessageRecord, 'size' | 'createdAt' | 'ttl'>, mime: Buffer, domain: DomainItem): Promise<Accepted> {
  const now = Date.now();
  // A delivery time already past (a resend of a message whose time has come) means now.
  const deliverAt = record.deliverAt && Date.parse(record.deliverAt) > now ? record.deliverAt : undefined;
  if (deliverAt && !env().SCHEDULE_STATE_MACHINE_ARN) throw new BadRequest("'o:deliverytime' is not available on this server: no scheduling workflow is configured");
  // A scheduled message is kept for its domain's message_ttl from the time it is due, so it is
  // still there when it is sent.
  const dueAt = deliverAt ? Date.parse(deliverAt) : now;
  const full: MessageRecord = { ...record, deliverAt, size: mime.length, createdAt: new Date(now).toISOString(), ttl: Math.ceil(dueAt / 1000) + domain.messageTtl };
  checkRecordable(full);
  // Every path that builds mail (the API, SMTP, lists, forwards, resends, the platform's own
  // mail) comes through here, so none can send as another account's domain.
  await assertOwnSender(full.accountId, domain.name, mime);
  // Nothing is recorded yet if this fails: the caller's 500 is the whole story.
  await storeMime(full, mime);
  await settleOnFailure(full, 'The message could not be recorded', () =>
    storeRecord(full, eventWrites(full.accountId, full.domain, full.recipients.map((recipient) => acceptedEvent(full, recipient, now)))),
  );
  await settleOnFailure(full, deliverAt ? 'The message could not be scheduled' : 'The message could not be queued', () => queueForSending(full));
  return { id: full.messageId, record: full };
}

/**
 * Runs a step after which accepted events may exist; if it fails, gives every recipient a
 * permanent failed event (best effort: the table may be what failed) and rethrows.
 */
async function settleOnFailure(full: MessageRecord, why: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    logger.error('an accepted message could not be handed on', { storageKey: full.storageKey, why, error: error as Error });
    await recordEvents(
      full.accountId,
      full.domain,
      full.recipients.map((recipient) => newEvent('failed', { severity: 'permanent', reason: 'generic', recipient, message: { headers: { 'message-id': full.messageId.replace(/^<|>$/g, '') } }, 'delivery-status': { code: 500, message: why, description: '', 'attempt-no': 0 } })),
    ).catch(() => undefined);
    throw error;
  }
}

export function newMessageIdentity(domain: string) {
  return { messageId: newMessageId(domain), storageKey: newStorageKey() };
}

