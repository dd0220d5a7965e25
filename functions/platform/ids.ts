import { randomBytes } from 'node:crypto';

/** A 24-hex id in the ObjectId style Mailgun uses for domains, routes, webhooks: 4 bytes of time, 8 random. */
export function objectId(now = Date.now()): string {
  const time = Math.floor(now / 1000).toString(16).padStart(8, '0');
  return time + randomBytes(8).toString('hex');
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** 22 url-safe base64 characters, the shape of Mailgun event ids. */
export function eventId(): string {
  return randomBytes(16).toString('base64url');
}

/** `<YYYYMMDDhhmmss.hex@domain>` with the brackets, as the send reply carries it. */
export function messageId(domain: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `<${stamp}.${randomBytes(8).toString('hex')}@${domain}>`;
}
