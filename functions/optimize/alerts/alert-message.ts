import type { AlertEvent } from './alert-event';

/** An alert as it was raised: its transition, and the id every channel names it by. */
export interface RaisedAlert extends AlertEvent {
  id: string;
}

const isDomainEvent = (event: AlertEvent['event']) => event.startsWith('domain_');
const isListing = (event: AlertEvent['event']) => event.endsWith('_listed');

/** The sentence every channel carries, worded as Mailgun's samples: "IP 49.0.2.1 was blocklisted by Barracuda". */
export function alertText(alert: AlertEvent): string {
  const what = isDomainEvent(alert.event) ? 'Domain' : 'IP';
  return `${what} ${alert.subject} ${isListing(alert.event) ? 'was blocklisted by' : 'was removed by'} ${alert.listName}`;
}

/** A short subject line for email and a Slack notification's fallback text. */
export function alertTitle(alert: AlertEvent): string {
  const what = isDomainEvent(alert.event) ? 'Domain' : 'IP';
  return `${what} ${alert.subject} ${isListing(alert.event) ? 'listed on' : 'removed from'} ${alert.listName}`;
}

/**
 * The webhook payload's `event_data` (contract 1.9): `ip` for IP events, `domain` for domain events
 * (the contract's proposal: Mailgun documents IP events only).
 */
export function eventData(alert: RaisedAlert) {
  return {
    id: alert.id,
    timestamp: alert.timestamp,
    log_level: 'warn',
    event: alert.event,
    ...(isDomainEvent(alert.event) ? { domain: alert.subject } : { ip: alert.subject }),
    blocklist: alert.listName,
    message: alertText(alert),
  };
}
