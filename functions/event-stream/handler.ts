import { eventCounter, type CountSource } from '../analytics/count-events';
import { trapHitCounts } from '../optimize/spamtraps/trap-hits';
import { registerTags } from '../tags/tag-registry';
import { fanOutWebhooks } from '../webhooks/fan-out';
import { streamHandler, type EventConsumer } from './process-batch';

/** What other areas count of the events analytics counts (its counters hold them beside its own). */
export const COUNT_SOURCES: CountSource[] = [trapHitCounts];

/**
 * The table stream's consumer (INSERTs of kind=event): every event the platform records reaches
 * each of these exactly as it was stored. They run side by side; each marks the batches it
 * finished, so a retry caused by one does not repeat the others.
 */
export const EVENT_CONSUMERS: EventConsumer[] = [
  { name: 'analytics', consume: eventCounter(COUNT_SOURCES) },
  { name: 'tags', consume: registerTags },
  { name: 'webhooks', consume: fanOutWebhooks },
];

export const handler = streamHandler(EVENT_CONSUMERS);
