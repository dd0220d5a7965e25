import type { EventData } from '../events/event-store';

/** The webhook types of every level (contract §4), in the order Mailgun lists them. */
export const WEBHOOK_NAMES = ['accepted', 'clicked', 'complained', 'delivered', 'opened', 'permanent_fail', 'temporary_fail', 'unsubscribed'] as const;
export type WebhookName = (typeof WEBHOOK_NAMES)[number];

/**
 * Input spellings beyond the names themselves: mailgun.js's `WebhooksIds.UNSUBSCRIBED` is the
 * string `unsubscribe` (contract §17: accept it, answer `unsubscribed`).
 */
const ALIASES: Record<string, WebhookName> = { unsubscribe: 'unsubscribed' };

/** The canonical name of a type as given by a client, or undefined when it names none. */
export function webhookName(raw: string): WebhookName | undefined {
  const lower = raw.trim().toLowerCase();
  if ((WEBHOOK_NAMES as readonly string[]).includes(lower)) return lower as WebhookName;
  return ALIASES[lower];
}

/**
 * The webhook type an event triggers: `failed` splits by severity into permanent_fail and
 * temporary_fail; `rejected` and `stored` have no webhook.
 */
export function webhookNameOf(event: EventData): WebhookName | undefined {
  if (event.event === 'failed') return event['severity'] === 'temporary' ? 'temporary_fail' : 'permanent_fail';
  return (WEBHOOK_NAMES as readonly string[]).includes(event.event) ? (event.event as WebhookName) : undefined;
}

/** Mailgun's limit of URLs per webhook type, at each level. */
export const MAX_URLS_PER_TYPE = 3;
