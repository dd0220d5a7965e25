/** Blocklist monitoring's transitions of a monitored IP or domain on one list (optimize-contract 1.9 and 2.7). */
const BLOCKLIST_ALERT_EVENTS = ['ip_listed', 'ip_delisted', 'domain_listed', 'domain_delisted'] as const;

/**
 * The reputation guard's transitions of an account (functions/reputation): the threshold alerts
 * of Mailgun's newer documentation, for an account's own bounce and complaint rates.
 */
const REPUTATION_ALERT_EVENTS = ['reputation_warning', 'reputation_recovered', 'sending_paused', 'sending_resumed'] as const;

/** The alert events the platform emits (`GET /v1/alerts/events` lists exactly these). */
export const ALERT_EVENT_TYPES = [...BLOCKLIST_ALERT_EVENTS, ...REPUTATION_ALERT_EVENTS] as const;
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[number];

export const isReputationEvent = (event: AlertEventType): event is (typeof REPUTATION_ALERT_EVENTS)[number] => (REPUTATION_ALERT_EVENTS as readonly string[]).includes(event);

/** The figures behind a reputation transition, as the guard found them. */
export interface ReputationFigures {
  accountName: string;
  /** Percentages over the window: hard bounces, and complaints, over delivered plus bounced. */
  bounceRate: number;
  complaintRate: number;
  /** Delivered plus bounced in the window. */
  volume: number;
  windowHours: number;
  /** What the transition is about, in words (`bounce rate 6.25% over the last 24 hours is above the pause level of 4%`). */
  reason: string;
}

/**
 * One transition of one subject, as its producer hands it to alerts: a monitored IP or domain on
 * one list, or an account's reputation (its list then is the guard's, `reputation`).
 */
export interface AlertEvent {
  accountId: string;
  event: AlertEventType;
  /** The IP address (`ip_*`), domain (`domain_*`) or account id (reputation events) the transition is about. */
  subject: string;
  /** The list's zone (`zen.spamhaus.org`) and its name (`Spamhaus ZEN`). */
  list: string;
  listName: string;
  /**
   * When the listing (or the account's new state) began (ISO 8601): with account, event, subject
   * and list it identifies the transition, so a retried or overlapping check raises it once.
   */
  firstSeen: string;
  /** When the transition was observed (ISO 8601). */
  timestamp: string;
  /** Reputation events: the figures behind the transition. */
  reputation?: ReputationFigures;
}
