import { createHmac, randomBytes } from 'node:crypto';
import { eventData, type RaisedAlert } from './alert-message';

/**
 * The alerts webhook body and its signature (contract 1.9). The body is compact JSON (Mailgun's
 * own verifier re-serialises the parsed JSON before hashing, so there must be no spaces), and
 * `X-Sign` is the hex HMAC-SHA256 of exactly those bytes under the account's alerts signing key.
 */
export function webhookBody(alert: RaisedAlert, now = Date.now()): string {
  return JSON.stringify({ signature: { timestamp: Math.floor(now / 1000), token: randomBytes(25).toString('hex') }, event_data: eventData(alert) });
}

export function xSign(signingKey: string, body: string): string {
  return createHmac('sha256', signingKey).update(body).digest('hex');
}
