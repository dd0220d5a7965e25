import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { DomainItem } from '../data/db';
import { requireDomain } from '../domains/domains';
import { newEvent, recordEvent } from '../events/event-store';
import { sqsClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { BadRequest, Forbidden } from '../platform/errors';
import { messageId as newMessageId } from '../platform/ids';
import { logger } from '../platform/logger';
import { composeMime } from './compose';
import { newStorageKey, storeMessage, type MessageRecord } from './message-store';
import { MAX_RECIPIENTS, parseMailboxes, type Mailbox } from './recipients';
import type { SendParams } from './send-params';

/** What the send worker receives for one accepted message. */
export interface SendJob {
  storageKey: string;
  /** Delivery attempts so far (the queue's own receive count restarts when a retry is re-queued). */
  attempt: number;
  firstAttemptAt?: number;
}

export interface Accepted {
  id: string;
  record: MessageRecord;
}

export async function sendingDomain(accountId: string, name: string): Promise<DomainItem> {
  const domain = await requireDomain(accountId, name);
  if (domain.isDisabled) throw new Forbidden(`Domain ${domain.name} is not allowed to send: it is disabled`);
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
  return newEvent(
    'accepted',
    {
      method: 'http',
      envelope: { targets: recipient, transport: 'smtp', sender: record.from },
      flags: { 'is-authenticated': true, 'is-test-mode': record.testMode },
      message: {
        headers: { to: record.to, 'message-id': record.messageId.replace(/^<|>$/g, ''), from: record.from, subject: record.subject },
        attachments: record.attachments,
        recipients: record.recipients,
        size: record.size,
      },
      storage: { key: record.storageKey, region: env().AWS_REGION, env: 'production' },
      recipient,
      'recipient-domain': recipient.split('@')[1],
      tags: record.tags,
      campaigns: [],
      'user-variables': record.userVariables,
      ...(record.template ? { template: record.template } : {}),
    },
    at,
  );
}

/**
 * Stores the message, records an accepted event per recipient, then queues it. If queuing fails
 * the recipients get a final failed event, so no accepted message is left without one.
 */
export async function acceptMessage(record: Omit<MessageRecord, 'size' | 'createdAt' | 'ttl'>, mime: Buffer, domain: DomainItem): Promise<Accepted> {
  // Scheduled delivery waits in a workflow, which is not built yet: refused, never sent early.
  if (record.deliverAt) throw new BadRequest("'o:deliverytime' is not available on this server yet");
  const now = Date.now();
  const full: MessageRecord = { ...record, size: mime.length, createdAt: new Date(now).toISOString(), ttl: Math.ceil(now / 1000) + domain.messageTtl };
  await storeMessage(full, mime);
  await Promise.all(full.recipients.map((recipient) => recordEvent(full.accountId, full.domain, acceptedEvent(full, recipient, now))));
  const queueUrl = env().SEND_QUEUE_URL;
  try {
    if (!queueUrl) throw new Error('SEND_QUEUE_URL is not configured');
    const job: SendJob = { storageKey: full.storageKey, attempt: 0 };
    await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job) }));
  } catch (error) {
    logger.error('could not queue an accepted message', { storageKey: full.storageKey, error: error as Error });
    await Promise.all(
      full.recipients.map((recipient) =>
        recordEvent(full.accountId, full.domain, newEvent('failed', { severity: 'permanent', reason: 'generic', recipient, message: { headers: { 'message-id': full.messageId.replace(/^<|>$/g, '') } }, 'delivery-status': { code: 500, message: 'The message could not be queued', description: '', 'attempt-no': 0 } })),
      ),
    ).catch(() => undefined);
    throw error;
  }
  return { id: full.messageId, record: full };
}

export function newMessageIdentity(domain: string) {
  return { messageId: newMessageId(domain), storageKey: newStorageKey() };
}

export { composeMime };
