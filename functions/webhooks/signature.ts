import { createHmac, randomBytes } from 'node:crypto';
import type { EventData } from '../events/event-store';

export interface WebhookSignature {
  /** Epoch seconds as a string: mailgun-go's Signature.TimeStamp is a string. */
  timestamp: string;
  /** 50 random characters (hex), as in Mailgun's payloads. */
  token: string;
  /** Lowercase hex HMAC-SHA256 of timestamp + token, keyed with the account's signing key. */
  signature: string;
}

export interface WebhookPayload {
  signature: WebhookSignature;
  'event-data': EventData;
}

function hmacHex(key: string, timestamp: string, token: string): string {
  return createHmac('sha256', key).update(timestamp + token).digest('hex');
}

/** Signs at the time of sending: receivers (mailgun-python) refuse timestamps older than 5 minutes. */
export function sign(key: string, now = Date.now()): WebhookSignature {
  const timestamp = String(Math.floor(now / 1000));
  const token = randomBytes(25).toString('hex');
  return { timestamp, token, signature: hmacHex(key, timestamp, token) };
}

export function payloadOf(key: string, event: EventData, now = Date.now()): WebhookPayload {
  return { signature: sign(key, now), 'event-data': event };
}
