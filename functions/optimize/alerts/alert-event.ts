/**
 * The alert events the platform emits: blocklist monitoring's transitions, and nothing else yet
 * (`GET /v1/alerts/events` lists exactly these; optimize-contract 1.9 and 2.7).
 */
export const ALERT_EVENT_TYPES = ['ip_listed', 'ip_delisted', 'domain_listed', 'domain_delisted'] as const;
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[number];

/** One transition of one monitored subject on one list, as its producer hands it to alerts. */
export interface AlertEvent {
  accountId: string;
  event: AlertEventType;
  /** The IP address (`ip_*`) or domain (`domain_*`) the transition is about. */
  subject: string;
  /** The list's zone (`zen.spamhaus.org`) and its name (`Spamhaus ZEN`). */
  list: string;
  listName: string;
  /**
   * When the listing began (ISO 8601): with account, event, subject and list it identifies the
   * transition, so a retried or overlapping check raises it once.
   */
  firstSeen: string;
  /** When the transition was observed (ISO 8601). */
  timestamp: string;
}
