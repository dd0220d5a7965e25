import type { EventData } from '../events/event-store';
import { BadRequest } from '../platform/errors';

/**
 * Which events a logs query wants: `events` by name and `metric_events` by the analytics
 * definitions (OpenAPI MetricEvent descriptions), together a union; neither means all.
 */
export const EVENT_NAMES = [
  'accepted',
  'delivered',
  'failed',
  'opened',
  'unique_opened',
  'clicked',
  'unique_clicked',
  'unsubscribed',
  'complained',
  'rejected',
  'stored',
  'email_validation',
  'list_uploaded',
  'list_member_uploaded',
  'list_member_upload_error',
  'trapped',
] as const;

type Test = (data: EventData) => boolean;
const named = (...names: string[]): Test => (data) => names.includes(data.event);
const flag = (data: EventData, name: string) => (data['flags'] as Record<string, unknown> | undefined)?.[name] === true;
const isSuppression = (data: EventData) => String(data['reason'] ?? '').startsWith('suppress-');

/** The metric events that one recorded event decides alone (the unique_* ones need history). */
const METRIC_EVENTS: Record<string, Test> = {
  accepted: named('accepted'),
  accepted_incoming: (data) => data.event === 'accepted' && !flag(data, 'is-authenticated'),
  accepted_outgoing: (data) => data.event === 'accepted' && flag(data, 'is-authenticated'),
  delivered: named('delivered'),
  delivered_smtp: (data) => data.event === 'delivered' && (data['envelope'] as Record<string, unknown> | undefined)?.['transport'] === 'smtp',
  delivered_http: (data) => data.event === 'delivered' && (data['envelope'] as Record<string, unknown> | undefined)?.['transport'] === 'http',
  stored: named('stored'),
  opened: named('opened'),
  clicked: named('clicked'),
  complained: named('complained'),
  unsubscribed: named('unsubscribed'),
  failed: named('failed'),
  processed: named('delivered', 'failed'),
  sent: (data) => data.event === 'delivered' || (data.event === 'failed' && !isSuppression(data)),
  temporary_failed: (data) => data.event === 'failed' && data['severity'] === 'temporary',
  permanent_failed: (data) => data.event === 'failed' && data['severity'] === 'permanent',
  suppressed_bounces: (data) => data.event === 'failed' && data['reason'] === 'suppress-bounce',
  suppressed_unsubscribed: (data) => data.event === 'failed' && data['reason'] === 'suppress-unsubscribe',
  suppressed_complaints: (data) => data.event === 'failed' && data['reason'] === 'suppress-complaint',
};

/** unique_opened and unique_clicked depend on earlier events of the message, which a page cannot see. */
const NEEDS_HISTORY = ['unique_opened', 'unique_clicked'];

export interface EventSelection {
  wants(data: EventData): boolean;
  /** The metric events asked for, each with its test, for the aggregates. */
  metrics: Array<[string, Test]>;
}

export function eventSelection(events: string[] = [], metricEvents: string[] = []): EventSelection {
  for (const name of events) {
    if (!(EVENT_NAMES as readonly string[]).includes(name)) throw new BadRequest(`Invalid parameter 'events': ${name} is not one of ${EVENT_NAMES.join(', ')}`);
    if (NEEDS_HISTORY.includes(name)) throw new BadRequest(`Invalid parameter 'events': ${name} is not supported by this server's logs; ask for ${name.slice(7)}`);
  }
  const metrics = metricEvents.map((name): [string, Test] => {
    const test = METRIC_EVENTS[name];
    if (!test) throw new BadRequest(`Invalid parameter 'metric_events': ${name} is not supported; supported: ${Object.keys(METRIC_EVENTS).join(', ')}`);
    return [name, test];
  });
  const tests = [...(events.length ? [named(...events)] : []), ...metrics.map(([, test]) => test)];
  return { wants: (data) => !tests.length || tests.some((test) => test(data)), metrics };
}
