import type { DomainItem } from '../domains/domain-store';

/**
 * What SES's receipt rule publishes once its S3 action has stored a message (the action's SNS
 * notification, delivered to the inbound queue wrapped in SNS's envelope): the envelope, SES's
 * verdicts and where the raw message is. The local inbound SMTP stand-in publishes the same.
 * Only the fields the worker reads are typed.
 */
export interface SesReceipt {
  notificationType: 'Received';
  mail: {
    /** SES's id of the received message: also the last part of the S3 object key. */
    messageId: string;
    /** When SES received it (ISO 8601). */
    timestamp: string;
    /** The envelope sender (MAIL FROM). */
    source: string;
  };
  receipt: {
    /** The envelope recipients this rule matched (RCPT TO): only these, not every To/Cc. */
    recipients: string[];
    spamVerdict: { status: Verdict };
    virusVerdict: { status: Verdict };
    action: { type: 'S3'; bucketName: string; objectKey: string };
  };
}

/** One domain's share of a received message: its recipients there, and the message. */
export interface InboundDelivery {
  accountId: string;
  domain: DomainItem;
  recipients: string[];
  mime: Buffer;
  receipt: SesReceipt;
}

export type Verdict = 'PASS' | 'FAIL' | 'GRAY' | 'PROCESSING_FAILED' | 'DISABLED';

/** The receipt in a queue message: inside SNS's envelope, or bare. */
export function receiptOf(body: string): SesReceipt {
  const parsed = JSON.parse(body) as { Type?: string; Message?: string };
  return (parsed.Type === 'Notification' && parsed.Message ? JSON.parse(parsed.Message) : parsed) as SesReceipt;
}

/** Where SES's S3 action writes received mail in the bucket (and the local stand-in too). */
export const INBOUND_OBJECT_PREFIX = 'inbound/';

/** How long a route's store() keeps a message: the spec's limit (3 days). */
export const STORED_INBOUND_SECONDS = 3 * 86_400;
