import { GetObjectCommand, NoSuchKey, PutObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { getItem, isLive, putItems, type ItemWrite, type Key } from '../data/store';
import { defineEntity } from '../data/key-registry';
import { s3Client } from '../platform/aws-clients';
import { env } from '../platform/env';
import { NotFound } from '../platform/errors';

/**
 * Accepted messages: the MIME in S3 (kept by the bucket's lifecycle), and a record in the table
 * that expires with the domain's message_ttl, after which the message is gone for the API too.
 *
 * The storage key is the only handle clients have (from events), so the record is found by it;
 * the account and domain inside are checked on every read.
 */
export interface MessageRecord {
  storageKey: string;
  accountId: string;
  domain: string;
  /** With brackets, as the send reply gives it. */
  messageId: string;
  from: string;
  subject: string;
  /** Every envelope recipient (to, cc, bcc). */
  recipients: string[];
  to: string;
  tags: string[];
  userVariables: Record<string, string>;
  attachments: Array<{ filename: string; 'content-type': string; size: number }>;
  size: number;
  testMode: boolean;
  /** ISO instant of o:deliverytime: the message is scheduled until then. */
  deliverAt?: string;
  /** o:require-tls as sent; absent, the domain's require_tls at send time decides. */
  requireTls?: boolean;
  /** o:sending-ip / o:sending-ip-pool, checked at accept: the send worker uses them over the domain's IPs or pool. */
  sendingIp?: string;
  sendingPoolId?: string;
  sendingPoolOwnerId?: string;
  /**
   * A message the platform sends for itself: a sandbox recipient's confirmation may reach that
   * address before it is authorized; a placement test's copies may reach the operator's seed
   * mailboxes and the seed list's target, which no account authorizes.
   */
  purpose?: 'sandbox-confirmation' | 'placement-test';
  /**
   * Mail the platform sends in an account's name for its own reasons (an alert, a sandbox
   * confirmation: messages/platform-mail.ts): its events carry Mailgun's `is-system-test` flag, and
   * the account's analytics do not count it, so the platform's mail is not the tenant's usage.
   */
  platformMail?: true;
  /** How it was submitted, when not over HTTP: SMTP (functions/smtp). */
  method?: 'smtp';
  /** Received mail (functions/inbound): the envelope sender and SES's verdicts, as SES gave them. */
  inbound?: { sender: string; spamVerdict: string; virusVerdict: string };
  /** The stored template the message was rendered from. */
  template?: { name: string; version: string; 'is-text': boolean };
  createdAt: string;
  ttl: number;
}

export const messageKey = defineEntity('messages', {
  message: { what: 'a stored message by its storage key (its recipients\' delivery claims share the partition: delivery/claims.ts)', pk: 'MSG#<storage key>', sk: 'MSG', key: (storageKey: string): Key => ({ pk: `MSG#${storageKey}`, sk: 'MSG' }) },
}).message;

export function newStorageKey(): string {
  return randomBytes(18).toString('base64url');
}

export const objectKey = (record: Pick<MessageRecord, 'accountId' | 'domain' | 'storageKey'>) => `${record.accountId}/${record.domain}/${record.storageKey}.eml`;

/** Stores the MIME; its record comes after (storeRecord), so a record never points at a missing object. */
export async function storeMime(record: MessageRecord, mime: Buffer): Promise<void> {
  await s3Client().send(
    new PutObjectCommand({ Bucket: env().MESSAGES_BUCKET, Key: objectKey(record), Body: mime, ContentType: 'message/rfc822' }),
  );
}

/**
 * The record, with `alongside` (the accepted events) in the same batch write: one round trip.
 * Unconditional: a storage key is 144 random bits, so no earlier record holds it.
 */
export async function storeRecord(record: MessageRecord, alongside: ItemWrite[] = []): Promise<void> {
  await putItems([{ key: messageKey(record.storageKey), item: record }, ...alongside]);
}

export async function findMessage(storageKey: string): Promise<MessageRecord | undefined> {
  const record = await getItem<MessageRecord>(messageKey(storageKey));
  return record && isLive(record) ? record : undefined;
}

/**
 * A message record as a caller's own batch read (getItems of messageKey) returned it, as
 * findMessage would: without its keys, and undefined when absent or expired.
 */
export function messageOf(item: (MessageRecord & Partial<Key>) | undefined, now = Date.now()): MessageRecord | undefined {
  if (!item || !isLive(item, now)) return undefined;
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

export async function loadMime(record: MessageRecord): Promise<Buffer | undefined> {
  try {
    const out = await s3Client().send(new GetObjectCommand({ Bucket: env().MESSAGES_BUCKET, Key: objectKey(record) }));
    return Buffer.from(await out.Body!.transformToByteArray());
  } catch (error) {
    if (error instanceof NoSuchKey) return undefined;
    throw error;
  }
}

/** A stored message of this account and domain, with its MIME; anything else is not found. */
export async function storedMessage(accountId: string, domain: string, storageKey: string) {
  const record = await findMessage(storageKey);
  if (!record || record.accountId !== accountId || record.domain !== domain.toLowerCase()) throw new NotFound('Message not found');
  const mime = await loadMime(record);
  if (!mime) throw new NotFound('Message not found');
  return { record, mime };
}

/**
 * The fields every event about one recipient of a stored message carries (contract §6.2):
 * accepted, delivered, failed and complained all build on these. The storage URL is added when
 * events are read, from the host the client used.
 */
export function messageEventFields(record: MessageRecord, recipient: string) {
  return {
    recipient,
    'recipient-domain': recipient.split('@')[1],
    message: {
      headers: { to: record.to, 'message-id': record.messageId.replace(/^<|>$/g, ''), from: record.from, subject: record.subject },
      attachments: record.attachments,
      size: record.size,
    },
    storage: { key: record.storageKey, region: env().AWS_REGION, env: 'production' },
    envelope: { targets: recipient, transport: 'smtp', sender: record.from },
    flags: { 'is-test-mode': record.testMode, ...(record.platformMail ? { 'is-system-test': true } : {}) },
    tags: record.tags,
    campaigns: [],
    'user-variables': record.userVariables,
  };
}

/** A header field by name, any case, with its folded continuation lines. */
const headerField = (name: string) => new RegExp(`^${name.replace(/-/g, '\\-')}:[^\\r\\n]*(\\r?\\n[ \\t][^\\r\\n]*)*`, 'im');

/** The top header block of a message (up to the first blank line): edits touch nothing below it. */
function splitHeaders(text: string): [string, string] {
  const end = text.search(/\r?\n\r?\n/);
  return end < 0 ? [text, ''] : [text.slice(0, end), text.slice(end)];
}

/** The message with a header field set: the first one of that name replaced, else one added on top. */
export function withHeader(mime: Buffer, name: string, value: string): Buffer {
  const [head, body] = splitHeaders(mime.toString('utf8'));
  const field = headerField(name);
  const line = `${name}: ${value}`;
  return Buffer.from((field.test(head) ? head.replace(field, () => line) : `${line}\r\n${head}`) + body, 'utf8');
}

/** Whether the message's header block has a field of that name. */
export function hasHeader(mime: Buffer, name: string): boolean {
  return headerField(name).test(splitHeaders(mime.toString('utf8'))[0]);
}

/** The message under a new Message-ID (a resend, a route's forward): a new message with the same content. */
export function withMessageId(mime: Buffer, messageId: string): Buffer {
  return withHeader(mime, 'Message-ID', messageId);
}
