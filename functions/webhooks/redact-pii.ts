import type { EventData } from '../events/event-store';
import { TtlCache } from './ttl-cache';
import { findAccount } from '../accounts/account-store';

/**
 * The account feature `webhooks_redact_pii` (PUT /v5/accounts/features): webhook payloads leave
 * out who the recipient is and where they were. What goes: the recipient's mailbox name (its
 * domain stays, as `recipient-domain` does), the same in `envelope.targets` and the To header,
 * the client's IP address, its user agent, and the city and region of its geolocation (the
 * country stays). The event itself, in events and logs, keeps everything.
 */
const REDACTED = 'redacted';

const maskAddress = (address: string) => address.replace(/[^\s<>,"@]+@/g, `${REDACTED}@`);

export function redactPii(event: EventData): EventData {
  const out: EventData = { ...event };
  if (typeof out['recipient'] === 'string') out['recipient'] = maskAddress(out['recipient']);
  const envelope = out['envelope'] as Record<string, unknown> | undefined;
  if (envelope && typeof envelope['targets'] === 'string') out['envelope'] = { ...envelope, targets: maskAddress(envelope['targets']) };
  const message = out['message'] as { headers?: Record<string, unknown> } | undefined;
  if (message?.headers && typeof message.headers['to'] === 'string') out['message'] = { ...message, headers: { ...message.headers, to: maskAddress(message.headers['to']) } };
  if ('ip' in out) out['ip'] = REDACTED;
  const client = out['client-info'] as Record<string, unknown> | undefined;
  if (client && 'user-agent' in client) out['client-info'] = { ...client, 'user-agent': REDACTED };
  const geo = out['geolocation'] as Record<string, unknown> | undefined;
  if (geo) out['geolocation'] = { ...geo, ...('city' in geo ? { city: REDACTED } : {}), ...('region' in geo ? { region: REDACTED } : {}) };
  return out;
}

const settings = new TtlCache<boolean>();

/** Whether the account's webhook payloads are redacted (cached like the webhook configuration). */
export function redactsPii(accountId: string): Promise<boolean> {
  return settings.get(`redact|${accountId}`, async () => (await findAccount(accountId))?.features?.['webhooks_redact_pii']?.enabled === true);
}

export const forgetRedaction = (accountId: string) => settings.forget(`redact|${accountId}`);
