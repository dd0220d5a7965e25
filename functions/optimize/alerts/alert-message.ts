import { type AlertEvent, isReputationEvent, type ReputationFigures } from './alert-event';

/** An alert as it was raised: its transition, and the id every channel names it by. */
export interface RaisedAlert extends AlertEvent {
  id: string;
}

const isDomainEvent = (event: AlertEvent['event']) => event.startsWith('domain_');
const isListing = (event: AlertEvent['event']) => event.endsWith('_listed');

/** A reputation event's figures; a producer that raised one without them made a mistake of ours. */
function figuresOf(alert: AlertEvent): ReputationFigures {
  if (!alert.reputation) throw new Error(`Alert ${alert.event} of ${alert.subject} carries no reputation figures`);
  return alert.reputation;
}

const percent = (rate: number) => `${Number(rate.toFixed(2))}%`;

/** The sentence for a reputation transition, naming the account by name and id. */
function reputationText(alert: AlertEvent): string {
  const f = figuresOf(alert);
  const who = `${f.accountName} (${alert.subject})`;
  switch (alert.event) {
    case 'sending_paused':
      return `Sending of ${who} was turned off: ${f.reason}`;
    case 'sending_resumed':
      return `Sending of ${who} was turned back on: ${f.reason}`;
    case 'reputation_recovered':
      return `${who} is back within the reputation levels: ${f.reason}`;
    default:
      return `${who} is above a reputation warning level: ${f.reason}`;
  }
}

/** The sentence every channel carries, worded as Mailgun's samples: "IP 49.0.2.1 was blocklisted by Barracuda". */
export function alertText(alert: AlertEvent): string {
  if (isReputationEvent(alert.event)) return reputationText(alert);
  const what = isDomainEvent(alert.event) ? 'Domain' : 'IP';
  return `${what} ${alert.subject} ${isListing(alert.event) ? 'was blocklisted by' : 'was removed by'} ${alert.listName}`;
}

const REPUTATION_TITLES: Record<string, string> = {
  reputation_warning: 'above a reputation warning level',
  reputation_recovered: 'back within the reputation levels',
  sending_paused: 'sending turned off by the reputation guard',
  sending_resumed: 'sending turned back on',
};

/** A short subject line for email and a Slack notification's fallback text. */
export function alertTitle(alert: AlertEvent): string {
  if (isReputationEvent(alert.event)) return `${figuresOf(alert).accountName}: ${REPUTATION_TITLES[alert.event]}`;
  const what = isDomainEvent(alert.event) ? 'Domain' : 'IP';
  return `${what} ${alert.subject} ${isListing(alert.event) ? 'listed on' : 'removed from'} ${alert.listName}`;
}

/** The details beneath the sentence: which list, or the account's figures over the window. */
export function alertDetails(alert: AlertEvent): string {
  if (!isReputationEvent(alert.event)) return `Observed at ${alert.timestamp}; listed since ${alert.firstSeen} (${alert.list}).`;
  const f = figuresOf(alert);
  return `Observed at ${alert.timestamp}: bounce rate ${percent(f.bounceRate)} and complaint rate ${percent(f.complaintRate)} over ${f.volume} messages delivered or bounced in the last ${f.windowHours} hours.`;
}

/** What a test alert of this event says it is not. */
export function testNote(alert: AlertEvent): string {
  return isReputationEvent(alert.event) ? "This is a test alert: no account's reputation or sending changed." : 'This is a test alert: nothing was listed or delisted.';
}

/**
 * The webhook payload's `event_data` (contract 1.9): `ip` for IP events, `domain` for domain events
 * (the contract's proposal: Mailgun documents IP events only); for reputation events the account
 * and its figures (rates in percent).
 */
export function eventData(alert: RaisedAlert) {
  const common = { id: alert.id, timestamp: alert.timestamp, event: alert.event };
  if (isReputationEvent(alert.event)) {
    const f = figuresOf(alert);
    const calm = alert.event === 'reputation_recovered' || alert.event === 'sending_resumed';
    return {
      ...common,
      log_level: calm ? 'info' : 'warn',
      account_id: alert.subject,
      account_name: f.accountName,
      bounce_rate: Number(f.bounceRate.toFixed(4)),
      complaint_rate: Number(f.complaintRate.toFixed(4)),
      volume: f.volume,
      window_hours: f.windowHours,
      message: alertText(alert),
    };
  }
  return {
    ...common,
    log_level: 'warn',
    ...(isDomainEvent(alert.event) ? { domain: alert.subject } : { ip: alert.subject }),
    blocklist: alert.listName,
    message: alertText(alert),
  };
}
