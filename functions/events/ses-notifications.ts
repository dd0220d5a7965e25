import { createHash } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { findMessage, messageEventFields, type MessageRecord } from '../messages/message-store';
import { settleClaims, TAG_STORAGE } from '../messages/send-worker';
import { addBounce, addComplaint } from '../suppressions/sending';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import { recordEvents, type EventData, type EventName } from './event-store';

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

function event(record: MessageRecord, ses: SesEvent, name: EventName, recipient: string, at: string, fields: Record<string, unknown>): EventData {
  const lower = recipient.toLowerCase();
  return {
    event: name,
    id: stableId(ses.mail.messageId, ses.eventType, lower, at),
    timestamp: Date.parse(at) / 1000,
    'log-level': name === 'failed' ? 'error' : name === 'complained' ? 'warn' : 'info',
    // Test-mode messages never reach SES, so is-test-mode comes out false here as before.
    ...messageEventFields(record, lower),
    ...fields,
  };
}

/** SES tags every record with the configuration set the send named. */
function sentWithRequiredTls(ses: SesEvent): boolean {
  const tlsSet = env().SES_TLS_CONFIGURATION_SET;
  return Boolean(tlsSet) && ses.mail.tags?.['ses:configuration-set']?.[0] === tlsSet;
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
export function sesEventOf(body: string): SesEvent {
  const parsed = JSON.parse(body) as { Type?: string; Message?: string } & Partial<SesEvent>;
  return (parsed.Type === 'Notification' && parsed.Message ? JSON.parse(parsed.Message) : parsed) as SesEvent;
}

export async function ingest(ses: SesEvent): Promise<void> {
  const storageKey = ses.mail.tags?.[TAG_STORAGE]?.[0];
  const record = storageKey ? await findMessage(storageKey) : undefined;
  if (!record) {
    logger.warn('SES notification for an unknown or expired message', { sesMessageId: ses.mail.messageId, eventType: ses.eventType });
    return;
  }
  const items = eventsOf(record, ses);
  // Events have ids derived from the notification, so a redelivered one overwrites, not duplicates.
  await recordEvents(record.accountId, record.domain, items.map((item) => item.data));
  // SES has the message: a claim its send left 'sending' (the worker died before marking it) is settled.
  if (FINAL_FOR_SENDER.has(ses.eventType)) await settleClaims(record.storageKey, items.map((item) => item.recipient));
  for (const item of items) {
    // Hard bounces join the domain's bounce list (unless allowlisted), complaints its complaint list.
    if (item.hardBounce) await addBounce(record.accountId, record.domain, { address: item.recipient, code: item.hardBounce.code, error: item.hardBounce.error });
    if (item.complaint) await addComplaint(record.accountId, record.domain, { address: item.recipient });
  }
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    try {
      await ingest(sesEventOf(message.body));
    } catch (error) {
      logger.error('could not ingest an SES notification', { messageId: message.messageId, error: error as Error });
      failures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures: failures };
}
