import { GetObjectCommand } from '@aws-sdk/client-s3';
import { simpleParser } from 'mailparser';
import { findDomain, nameHolder, type DomainItem } from '../domains/domain-store';
import { eventWrites, type EventData } from '../events/event-store';
import { evaluateRoutes, type RouteMatch } from '../mailroutes/mailroutes';
import { routesOf } from '../mailroutes/route-store';
import { messageEventFields, storeMime, storeRecord, type MessageRecord } from '../messages/message-store';
import { s3Client } from '../platform/aws-clients';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { receivePreviewMail } from '../inspect/preview/inbound-preview';
import { receiveDmarcMail } from '../optimize/dmarc/intake';
import { receiveSeedTargetMail } from '../optimize/inbox/target-mail';
import { takeListRecipients } from '../lists/inbound-recipients';
import { enqueueAction, stableId, type ActionJob } from './action-job';
import { headerPairs } from './parsed-message';
import { STORED_INBOUND_SECONDS, type InboundDelivery, type SesReceipt } from './receipt';

/**
 * Received mail, from SES's receipt (or the local stand-in's) to route actions queued. Every step
 * can run again: a redelivered receipt derives the same storage key, event ids and action ids from
 * the S3 object key, so it rewrites the same items and its actions meet their own claims
 * (action-worker.ts) instead of running twice.
 */

/**
 * Who takes a recipient before routes are evaluated. Each handler answers the recipients it has
 * dealt with; the rest go on to routes. Mailing list addresses go to their members.
 */
export type RecipientHandler = (delivery: InboundDelivery) => Promise<string[]>;
const recipientHandlers: readonly RecipientHandler[] = [takeListRecipients];

/** Which recipients the handlers took, in order; what is left is routed. */
async function resolveRecipients(delivery: InboundDelivery): Promise<string[]> {
  let left = delivery.recipients;
  for (const handle of recipientHandlers) {
    if (!left.length) break;
    const taken = new Set((await handle({ ...delivery, recipients: left })).map((r) => r.toLowerCase()));
    left = left.filter((recipient) => !taken.has(recipient));
  }
  return left;
}

async function readObject(bucket: string, key: string): Promise<Buffer> {
  const out = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/** The account and domain that receive mail for a domain name in this region, if any. */
async function receivingDomain(name: string): Promise<{ accountId: string; domain: DomainItem } | undefined> {
  const holder = await nameHolder(name.toLowerCase());
  const domain = holder && (await findDomain(holder, name.toLowerCase()));
  return domain && !domain.isDisabled ? { accountId: holder, domain } : undefined;
}

type PlatformReceiver = (recipients: string[], mime: Buffer, objectKey: string) => Promise<void>;

/**
 * What takes the mail of the platform's own receiving domains: preview addresses (POST
 * /v2/preview/address) become preview tests, rua addresses (GET /v1/dmarc/records/{domain}) carry
 * aggregate reports, seed list targets (/v4/inbox/seedlists) start inbox placement results.
 */
function platformReceiver(name: string): PlatformReceiver | undefined {
  const { PREVIEW_INBOX_DOMAIN, DMARC_REPORTS_DOMAIN, SEED_INBOX_DOMAIN } = env();
  if (name === PREVIEW_INBOX_DOMAIN) return receivePreviewMail;
  if (name === DMARC_REPORTS_DOMAIN) return (recipients, mime) => receiveDmarcMail(recipients, mime);
  if (name === SEED_INBOX_DOMAIN) return (recipients, mime) => receiveSeedTargetMail(recipients, mime);
  return undefined;
}

/** Whether this region takes mail for a domain: one of the platform's own, or an account's receiving domain. */
export async function receivesFor(name: string): Promise<boolean> {
  return platformReceiver(name) !== undefined || (await receivingDomain(name)) !== undefined;
}

/** Handles one receipt: each of its domains' recipients are taken by a recipient handler or routed. */
export async function receive(receipt: SesReceipt): Promise<void> {
  const { bucketName, objectKey } = receipt.receipt.action;
  const byDomain = new Map<string, string[]>();
  for (const recipient of receipt.receipt.recipients.map((r) => r.trim().toLowerCase())) {
    const domain = recipient.split('@')[1] ?? '';
    byDomain.set(domain, [...new Set([...(byDomain.get(domain) ?? []), recipient])]);
  }
  let mime: Buffer | undefined;
  for (const [name, recipients] of byDomain) {
    const platformReceives = platformReceiver(name);
    if (platformReceives) {
      mime ??= await readObject(bucketName, objectKey);
      await platformReceives(recipients, mime, objectKey);
      continue;
    }
    const owner = await receivingDomain(name);
    if (!owner) {
      // SES receives for every verified domain of the AWS account; ours are the platform's domains.
      logger.info('inbound mail for a domain this region does not hold, dropped', { domain: name, sesMessageId: receipt.mail.messageId });
      continue;
    }
    mime ??= await readObject(bucketName, objectKey);
    // The domain's spam_action applies to everything after, list posts included.
    const delivered = applySpamAction({ ...owner, recipients, mime, receipt });
    if (!delivered) {
      logger.info("inbound mail judged spam, blocked by the domain's spam_action", { domain: name, sesMessageId: receipt.mail.messageId });
      continue;
    }
    const delivery: InboundDelivery = { ...owner, recipients, mime: delivered, receipt };
    await deliver({ ...delivery, recipients: await resolveRecipients(delivery) });
  }
}

const failed = (status: string) => status === 'FAIL';

/**
 * The domain's spam_action on SES's verdicts: `block` drops a message judged spam (or infected),
 * `tag` marks it with X-Mailgun-Sflag: Yes, `disabled` passes it as it came. The verdicts stay
 * with the message either way (the record, and SES's own X-SES-*-Verdict headers in the MIME).
 */
function applySpamAction(delivery: InboundDelivery): Buffer | undefined {
  const { spamVerdict, virusVerdict } = delivery.receipt.receipt;
  const spam = failed(spamVerdict.status) || failed(virusVerdict.status);
  if (!spam || delivery.domain.spamAction === 'disabled') return delivery.mime;
  if (delivery.domain.spamAction === 'block') return undefined;
  return Buffer.concat([Buffer.from('X-Mailgun-Sflag: Yes\r\n'), delivery.mime]);
}

async function deliver(delivery: InboundDelivery): Promise<void> {
  if (!delivery.recipients.length) return;
  const { accountId, domain, receipt, mime } = delivery;
  const parsed = await simpleParser(mime, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  const headers = headerPairs(parsed);
  const at = Date.parse(receipt.mail.timestamp) || Date.now();
  const storageKey = stableId('inbound', receipt.receipt.action.objectKey, domain.name).slice(0, 24);
  const record: MessageRecord = {
    storageKey,
    accountId,
    domain: domain.name,
    messageId: parsed.messageId ?? `<${receipt.mail.messageId}@${domain.name}>`,
    from: parsed.from?.text ?? receipt.mail.source,
    subject: parsed.subject ?? '',
    recipients: delivery.recipients,
    to: (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).map((a) => a.text).join(', '),
    tags: [],
    userVariables: {},
    attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? 'attachment', 'content-type': a.contentType, size: a.size })),
    size: mime.length,
    testMode: false,
    method: 'smtp',
    inbound: { sender: receipt.mail.source, spamVerdict: receipt.receipt.spamVerdict.status, virusVerdict: receipt.receipt.virusVerdict.status },
    createdAt: new Date(at).toISOString(),
    // Kept for store()'s 3 days (the spec's limit), which is also how long its URL answers.
    ttl: Math.ceil(at / 1000) + STORED_INBOUND_SECONDS,
  };
  const routes = await routesOf(accountId);
  const matches = delivery.recipients.map((recipient) => ({ recipient, matched: evaluateRoutes(routes, { recipient, headers }) }));
  const events = matches.map(({ recipient, matched }) => acceptedEvent(record, recipient, matched, at));
  if (matches.some(({ matched }) => matched.some((m) => m.actions.some((a) => a.kind === 'store')))) events.push(storedEvent(record, at));
  await storeMime(record, mime);
  await storeRecord(record, eventWrites(accountId, domain.name, events));
  await Promise.all(matches.flatMap(({ matched }) => actionJobs(record, matched)).map(enqueueAction));
}

const routesField = (matched: RouteMatch[]) => matched.map((m) => ({ expression: m.route.expression, id: m.route.id, match: { recipient: m.recipient } }));

/** accepted, as Mailgun records received mail: method smtp, is-routed when a route matched. */
function acceptedEvent(record: MessageRecord, recipient: string, matched: RouteMatch[], at: number): EventData {
  const common = messageEventFields(record, recipient);
  return {
    event: 'accepted',
    id: stableId(record.storageKey, 'accepted', recipient).slice(0, 22),
    timestamp: at / 1000,
    'log-level': 'info',
    method: 'smtp',
    ...common,
    envelope: { ...common.envelope, sender: record.inbound?.sender ?? record.from, transport: 'smtp' },
    flags: { 'is-authenticated': false, 'is-routed': matched.length > 0, 'is-test-mode': false },
    message: { ...common.message, recipients: record.recipients },
    routes: routesField(matched),
  };
}

/** stored: one per message, naming all its recipients and where it is kept (contract §6.3). */
function storedEvent(record: MessageRecord, at: number): EventData {
  const { recipient: _recipient, 'recipient-domain': _domain, envelope: _envelope, ...common } = messageEventFields(record, '');
  return {
    event: 'stored',
    id: stableId(record.storageKey, 'stored').slice(0, 22),
    timestamp: at / 1000,
    'log-level': 'info',
    ...common,
    flags: { 'is-routed': true, 'is-test-mode': false },
    message: { ...common.message, recipients: record.recipients },
  };
}

function actionJobs(record: MessageRecord, matched: RouteMatch[]): ActionJob[] {
  return matched.flatMap((match) =>
    match.actions.flatMap((action, index): ActionJob[] => {
      const target = action.kind === 'forward' ? action.destination : action.kind === 'store' ? action.notify : undefined;
      if (!target) return [];
      const kind = action.kind === 'store' ? 'notify' : /^https?:\/\//i.test(target) ? 'forward-url' : 'forward-address';
      return [
        {
          deliveryId: stableId(record.storageKey, match.route.id, match.recipient, String(index)),
          accountId: record.accountId,
          domain: record.domain,
          storageKey: record.storageKey,
          recipient: match.recipient,
          route: { id: match.route.id, expression: match.route.expression },
          kind,
          target,
          attempt: 0,
        },
      ];
    }),
  );
}
