import { createHash } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { getItems, keyId, putItems, type Key } from '../data/store';
import { messageEventFields, messageKey, messageOf, type MessageRecord } from '../messages/message-store';
import { awaitsSettling, failedAsUnknown, settleClaim, settlingKey, TAG_IP_POOL, TAG_SENDING_IP, TAG_STORAGE } from './claims';
import { addBounce, addComplaint } from '../suppressions/sending';
import { mapLimit } from '../platform/concurrency';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { eventWrites, type EventData, type EventName } from '../events/event-store';

/** The parts of an SES event-publishing record this worker reads. */
interface SesEvent {
  eventType: string;
  mail: { messageId: string; timestamp: string; destination: string[]; tags?: Record<string, string[]> };
  delivery?: { timestamp: string; recipients: string[]; smtpResponse?: string; reportingMTA?: string; processingTimeMillis?: number };
  bounce?: {
    timestamp: string;
    bounceType: 'Permanent' | 'Transient' | 'Undetermined';
    bounceSubType: string;
    bouncedRecipients: Array<{ emailAddress: string; status?: string; diagnosticCode?: string }>;
  };
  complaint?: { timestamp: string; complainedRecipients: Array<{ emailAddress: string }>; complaintFeedbackType?: string };
  reject?: { reason: string };
  deliveryDelay?: { timestamp: string; delayType: string; delayedRecipients: Array<{ emailAddress: string; status?: string; diagnosticCode?: string }> };
}

/** The same notification always yields the same event id, so a duplicate overwrites itself. */
function stableId(...parts: string[]): string {
  return createHash('sha256').update(parts.join('|')).digest('base64url').slice(0, 22);
}

/**
 * The dedicated IP the send worker chose (SES tag values cannot hold dots, so it wrote them as
 * underscores) and the DIPP it chose it through; nothing for SES's shared addresses, which SES
 * does not name.
 */
function sendingIpFields(ses: SesEvent): Record<string, string> {
  const ip = ses.mail.tags?.[TAG_SENDING_IP]?.[0];
  const pool = ses.mail.tags?.[TAG_IP_POOL]?.[0];
  return { ...(ip ? { 'sending-ip': ip.replace(/_/g, '.') } : {}), ...(pool ? { 'i-ip-pool-id': pool } : {}) };
}

function event(record: MessageRecord, ses: SesEvent, name: EventName, recipient: string, at: string, fields: Record<string, unknown>): EventData {
  const lower = recipient.toLowerCase();
  const common = messageEventFields(record, lower);
  return {
    event: name,
    id: stableId(ses.mail.messageId, ses.eventType, lower, at),
    timestamp: Date.parse(at) / 1000,
    'log-level': name === 'failed' ? 'error' : name === 'complained' ? 'warn' : 'info',
    // Test-mode messages never reach SES, so is-test-mode comes out false here as before.
    ...common,
    envelope: { ...common.envelope, ...sendingIpFields(ses) },
    ...fields,
  };
}

/** SES tags every record with the configuration set the send named. */
function sentWithRequiredTls(ses: SesEvent): boolean {
  const tlsSet = env().SES_TLS_CONFIGURATION_SET;
  const used = ses.mail.tags?.['ses:configuration-set']?.[0];
  // The twin sets of each dedicated IP (functions/sending-ips/ses-resources.ts) carry the name on.
  return Boolean(tlsSet) && (used === tlsSet || Boolean(used?.startsWith(`${tlsSet}-ip-`)));
}

/** The SMTP reply class of an enhanced status (5.1.1 → 550, 4.4.7 → 450). */
const smtpCode = (status: string | undefined, fallback: number) => {
  const match = /^([245])\./.exec(status ?? '');
  return match ? Number(match[1]) * 100 + 50 : fallback;
};

/** Only the recipients SES names in the notification get an event. */
function eventsOf(record: MessageRecord, ses: SesEvent): Array<{ data: EventData; recipient: string; hardBounce?: { code: string; error: string }; complaint?: boolean }> {
  switch (ses.eventType) {
    case 'Delivery': {
      const d = ses.delivery!;
      // SES does not say which MX it reached (reportingMTA is its own host), whether TLS was used
      // or whether a certificate was checked. TLS is known only when the configuration set
      // required it; the rest is left out rather than guessed.
      const tls = sentWithRequiredTls(ses) ? { tls: true } : {};
      return d.recipients.map((recipient) => ({
        recipient,
        data: event(record, ses, 'delivered', recipient, d.timestamp, {
          'delivery-status': { code: 250, message: d.smtpResponse ?? 'OK', description: '', 'attempt-no': 1, ...tls, utf8: true, 'session-seconds': (d.processingTimeMillis ?? 0) / 1000 },
        }),
      }));
    }
    case 'Bounce': {
      const b = ses.bounce!;
      const permanent = b.bounceType !== 'Transient';
      return b.bouncedRecipients.map((r) => {
        const code = smtpCode(r.status, permanent ? 550 : 450);
        const message = r.diagnosticCode ?? `${b.bounceType} bounce (${b.bounceSubType})`;
        return {
          recipient: r.emailAddress,
          hardBounce: b.bounceType === 'Permanent' ? { code: String(code), error: message } : undefined,
          data: event(record, ses, 'failed', r.emailAddress, b.timestamp, {
            'log-level': permanent ? 'error' : 'warn',
            severity: permanent ? 'permanent' : 'temporary',
            reason: permanent ? 'bounce' : 'generic',
            'delivery-status': { code, 'enhanced-code': r.status ?? '', message, description: b.bounceSubType, 'attempt-no': 1, 'bounce-code': r.status ?? '' },
          }),
        };
      });
    }
    case 'Complaint': {
      const c = ses.complaint!;
      return c.complainedRecipients.map((r) => ({ recipient: r.emailAddress, complaint: true, data: event(record, ses, 'complained', r.emailAddress, c.timestamp, {}) }));
    }
    case 'Reject':
      return ses.mail.destination.map((recipient) => ({
        recipient,
        data: event(record, ses, 'failed', recipient, ses.mail.timestamp, {
          severity: 'permanent',
          reason: 'generic',
          'delivery-status': { code: 550, message: ses.reject?.reason ?? 'Rejected', description: 'Rejected by Amazon SES', 'attempt-no': 1 },
        }),
      }));
    case 'DeliveryDelay': {
      const d = ses.deliveryDelay!;
      return d.delayedRecipients.map((r) => ({
        recipient: r.emailAddress,
        data: event(record, ses, 'failed', r.emailAddress, d.timestamp, {
          'log-level': 'warn',
          severity: 'temporary',
          reason: 'generic',
          'delivery-status': { code: smtpCode(r.status, 421), message: r.diagnosticCode ?? d.delayType, description: d.delayType, 'attempt-no': 1 },
        }),
      }));
    }
    default:
      // Send, Open, Click, Subscription and rendering notices carry no Mailgun event of their own.
      return [];
  }
}

/** Notifications that say SES took the message and reached an outcome for these recipients. */
const FINAL_FOR_SENDER = new Set(['Delivery', 'Bounce', 'Reject']);

/** Reads an SQS body: an SNS envelope (raw delivery off) or the SES record itself (raw delivery on). */
function sesEventOf(body: string): SesEvent {
  const parsed = JSON.parse(body) as { Type?: string; Message?: string } & Partial<SesEvent>;
  return (parsed.Type === 'Notification' && parsed.Message ? JSON.parse(parsed.Message) : parsed) as SesEvent;
}

/** One notification of a batch, as far as the batch got with it. */
interface Notice {
  messageId: string;
  ses?: SesEvent;
  storageKey?: string;
  record?: MessageRecord;
  items?: ReturnType<typeof eventsOf>;
  failed?: unknown;
}

/** Notifications handled at once, at most, where each needs calls of its own. */
const FOLLOW_UPS_AT_ONCE = 8;

/**
 * Ingests a batch of notifications in as few calls as the table allows: one strongly consistent
 * BatchGetItem for every message they name and every claim they may settle, one BatchWriteItem
 * (25 events a call) for all their events, with a conditional write before it only for the
 * claims still 'sending' (awaitsSettling in claims.ts: normally none), and writes for bounces and
 * complaints after it. Such a claim is settled before its event is written, because a worker
 * taking over the dead claim at the same moment writes the "outcome unknown" failure: only the
 * side that wins the claim writes the recipient's final event.
 * What fails fails only the notifications it concerns (a shared call that fails is tried again
 * per notification), and a redelivered one does it all again harmlessly: event ids come from the
 * notification, so a repeat overwrites; settling is conditional; suppression entries are keyed by
 * address.
 */
async function ingestBatch(notices: Notice[]): Promise<void> {
  const live = () => notices.filter((n) => !n.failed);
  // Whom each notification names, before its record is read: the claims are read in the same call.
  const claimKeysOf = new Map<Notice, Key[]>();
  for (const notice of live()) {
    try {
      const ses = notice.ses!;
      notice.storageKey = ses.mail.tags?.[TAG_STORAGE]?.[0];
      claimKeysOf.set(notice, notice.storageKey && FINAL_FOR_SENDER.has(ses.eventType) ? namedRecipients(ses).map((recipient) => settlingKey(notice.storageKey!, recipient)) : []);
    } catch (error) {
      notice.failed = error;
    }
  }
  const named = live().filter((n) => n.storageKey);
  const found = new Map<string, Record<string, unknown>>();
  await isolated(named, async (notices) => {
    const keys = notices.flatMap((n) => [messageKey(n.storageKey!), ...claimKeysOf.get(n)!]);
    for (const item of await getItems<Record<string, unknown>>(keys, { consistent: true })) found.set(keyId(item), item);
  });
  for (const notice of live()) {
    notice.record = notice.storageKey ? messageOf(found.get(keyId(messageKey(notice.storageKey))) as (MessageRecord & Key) | undefined) : undefined;
    if (!notice.record) {
      logger.warn('SES notification for an unknown or expired message', { sesMessageId: notice.ses!.mail.messageId, eventType: notice.ses!.eventType });
      continue;
    }
    try {
      notice.items = eventsOf(notice.record, notice.ses!);
      if (FINAL_FOR_SENDER.has(notice.ses!.eventType)) notice.items = withoutSettledAsUnknown(notice, found);
    } catch (error) {
      notice.failed = error;
    }
  }
  await mapLimit(
    live().filter((n) => n.items?.length && FINAL_FOR_SENDER.has(n.ses!.eventType)),
    FOLLOW_UPS_AT_ONCE,
    async (notice) => {
      try {
        notice.items = await withClaimsSettled(notice, found);
      } catch (error) {
        notice.failed = error;
      }
    },
  );
  await isolated(
    live().filter((n) => n.items?.length),
    (notices) => putItems(notices.flatMap((n) => eventWrites(n.record!.accountId, n.record!.domain, n.items!.map((item) => item.data)))),
  );
  const recording = live().filter((n) => n.items?.length);
  await mapLimit(recording, FOLLOW_UPS_AT_ONCE, async (notice) => {
    try {
      await followUp(notice);
    } catch (error) {
      notice.failed = error;
    }
  });
}

/**
 * One call for the whole batch; if it fails, one per notification, so that a notification the
 * table refuses (or a lasting fault) fails alone rather than taking its batch mates back to the
 * queue with it, again and again, until the dead-letter queue.
 */
async function isolated(notices: Notice[], call: (notices: Notice[]) => Promise<void>): Promise<void> {
  if (!notices.length) return;
  try {
    await call(notices);
    return;
  } catch (error) {
    if (notices.length === 1) {
      notices[0]!.failed = error;
      return;
    }
  }
  await mapLimit(notices, FOLLOW_UPS_AT_ONCE, async (notice) => {
    try {
      await call([notice]);
    } catch (error) {
      notice.failed = error;
    }
  });
}

/**
 * A recipient a dead send was failed for as "outcome unknown" already has its final event: SES's
 * later word on it (the send did reach SES after all) is logged, not made a second final event.
 */
function withoutSettledAsUnknown(notice: Notice, claims: Map<string, Record<string, unknown>>): NonNullable<Notice['items']> {
  return notice.items!.filter((item) => {
    const settled = failedAsUnknown(claims.get(keyId(settlingKey(notice.record!.storageKey, item.recipient))));
    if (settled) logger.warn('SES reported on a recipient already failed with an unknown outcome: its final event stands', { storageKey: notice.record!.storageKey, eventType: notice.ses!.eventType });
    return !settled;
  });
}

/**
 * SES has the message: a claim its send left 'sending' (the worker died before marking it) is
 * settled, and the recipient keeps its event only if that settling made SES's word the final one.
 */
async function withClaimsSettled(notice: Notice, claims: Map<string, Record<string, unknown>>): Promise<NonNullable<Notice['items']>> {
  const { storageKey } = notice.record!;
  const kept = await mapLimit(notice.items!, FOLLOW_UPS_AT_ONCE, async (item) => {
    if (!awaitsSettling(claims.get(keyId(settlingKey(storageKey, item.recipient))))) return true;
    if (await settleClaim(storageKey, item.recipient)) return true;
    logger.warn('SES reported on a recipient a worker failed with an unknown outcome meanwhile: its final event stands', { storageKey, eventType: notice.ses!.eventType });
    return false;
  });
  return notice.items!.filter((_, i) => kept[i]);
}

/** What comes after a notification's events are recorded: its suppressions added. */
async function followUp({ record, items }: Notice): Promise<void> {
  for (const item of items!) {
    // Hard bounces join the domain's bounce list (unless allowlisted), complaints its complaint list.
    if (item.hardBounce) await addBounce(record!.accountId, record!.domain, { address: item.recipient, code: item.hardBounce.code, error: item.hardBounce.error });
    if (item.complaint) await addComplaint(record!.accountId, record!.domain, { address: item.recipient });
  }
}

/** The recipients eventsOf gives events to, from the notification alone. */
function namedRecipients(ses: SesEvent): string[] {
  switch (ses.eventType) {
    case 'Delivery':
      return ses.delivery?.recipients ?? [];
    case 'Bounce':
      return ses.bounce?.bouncedRecipients.map((r) => r.emailAddress) ?? [];
    case 'Reject':
      return ses.mail.destination;
    default:
      return [];
  }
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const notices: Notice[] = event.Records.map((message) => {
    try {
      return { messageId: message.messageId, ses: sesEventOf(message.body) };
    } catch (error) {
      return { messageId: message.messageId, failed: error };
    }
  });
  await ingestBatch(notices);
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const notice of notices) {
    if (!notice.failed) continue;
    logger.error('could not ingest an SES notification', { messageId: notice.messageId, error: notice.failed as Error });
    failures.push({ itemIdentifier: notice.messageId });
  }
  return { batchItemFailures: failures };
}
