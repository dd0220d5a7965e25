import { streamHandler, type EventConsumer } from './process-batch';

/**
 * The table stream's consumer (INSERTs of kind=event): every event the platform records reaches
 * each of these exactly as it was stored.
 */
export const EVENT_CONSUMERS: EventConsumer[] = [];

export const handler = streamHandler(EVENT_CONSUMERS);
