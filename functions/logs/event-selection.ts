import type { EventData } from '../events/event-store';
import { countsOfEvent, derivedCounts, STORED_COUNTS, type StoredCount } from '../analytics/counts';
import { BadRequest } from '../platform/errors';

/**
 * Which events a logs query wants: `events` by name and `metric_events` by the analytics
 * definitions (OpenAPI MetricEvent descriptions), together a union; neither means all.
 */
const EVENT_NAMES = [
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

/** unique_opened and unique_clicked depend on earlier events of the message, which a page cannot see. */
const NEEDS_HISTORY = ['unique_opened', 'unique_clicked'];

/**
 * The metric events that one recorded event decides alone. An event is one of them exactly when
 * it adds to that count in the analytics counters (functions/analytics/counts.ts): logs and
 * metrics agree on what, say, `sent` or `processed` means. Every count is a sum of stored counts,
 * so each metric is worked out once here as the stored counts that feed it.
 */
/**
 * An event's stored counts, worked out once per event however many metric tests (the page filter,
 * then each metric's total) ask.
 */
const countsCache = new WeakMap<EventData, ReturnType<typeof countsOfEvent>>();
function storedCountsOf(data: EventData): ReturnType<typeof countsOfEvent> {
  let counts = countsCache.get(data);
  if (!counts) countsCache.set(data, (counts = countsOfEvent(data)));
  return counts;
}

let builtMetricTests: Record<string, Test> | undefined;

/**
 * Built on the first query with metric_events, not at load: most queries name none, and building
 * them (a derivedCounts per stored count) is a measurable part of the logs Lambda's cold start.
 */
function metricTests(): Record<string, Test> {
  if (builtMetricTests) return builtMetricTests;
  const feeding = new Map<string, Set<StoredCount>>();
  for (const stored of STORED_COUNTS) {
    for (const [name, value] of Object.entries(derivedCounts({ [stored]: 1 }))) {
      if (value > 0) feeding.set(name, (feeding.get(name) ?? new Set()).add(stored));
    }
  }
  return (builtMetricTests = Object.fromEntries(
    Object.keys(derivedCounts({}))
      .filter((name) => !NEEDS_HISTORY.includes(name))
      .map((name): [string, Test] => {
        const counts = feeding.get(name) ?? new Set();
        return [name, (data) => storedCountsOf(data).some((count) => counts.has(count))];
      }),
  ));
}

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
    const test = metricTests()[name];
    if (!test) throw new BadRequest(`Invalid parameter 'metric_events': ${name} is not supported; supported: ${Object.keys(metricTests()).join(', ')}`);
    return [name, test];
  });
  const tests = [...(events.length ? [named(...events)] : []), ...metrics.map(([, test]) => test)];
  return { wants: (data) => !tests.length || tests.some((test) => test(data)), metrics };
}
