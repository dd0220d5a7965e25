import { createHash } from 'node:crypto';
import type { EventData } from '../events/event-store';
import type { WebhookName } from './names';

/**
 * One delivery: one event for one URL, and a queue message carrying it. It carries the event
 * itself (not a reference), so a retry hours later sends what the event was, whatever the table
 * holds by then. Fan-out puts all of an event's URLs in one message (`alsoTo`), so an event costs
 * one message and one duplicate-guard write however many URLs it goes to; retries are per URL.
 */
export interface DeliveryJob {
  /** Stable per (event, URL): the duplicate guard's key when a stream batch is replayed. */
  deliveryId: string;
  accountId: string;
  domain: string;
  url: string;
  webhook: WebhookName;
  event: EventData;
  /** Attempts made so far (0 for the first). */
  attempt: number;
  /** Epoch ms before which the job must not be sent: SQS delays stop at 15 minutes, the schedule does not. */
  notBefore?: number;
  /** Epoch ms of the first attempt. */
  firstAttemptAt?: number;
  /** What the previous attempt got, for the failure record. */
  lastOutcome?: string;
  /** The event's other URLs at this attempt, delivered from the same message. */
  alsoTo?: Array<{ url: string; deliveryId: string }>;
}

/** The deliveries one queue message carries: its own, then those it names in `alsoTo`. */
export function jobsOf(message: DeliveryJob): DeliveryJob[] {
  const { alsoTo, ...first } = message;
  return [first, ...(alsoTo ?? []).map((target) => ({ ...first, url: target.url, deliveryId: target.deliveryId }))];
}

export function deliveryIdOf(eventId: string, url: string): string {
  return createHash('sha256').update(`${eventId}\n${url}`).digest('base64url').slice(0, 32);
}

/** Mailgun's retry intervals after each failed attempt: 10m, 10m, 15m, 30m, 1h, 2h, 4h (8 hours in all). */
export const RETRY_SCHEDULE_SECONDS = [600, 600, 900, 1800, 3600, 7200, 14400] as const;

/** The wait after failed attempt `attempt` (0-based) on a schedule (webhooks' by default), scaled (tests), or undefined when it is spent. */
export function retryDelayMs(attempt: number, scale: number, schedule: readonly number[] = RETRY_SCHEDULE_SECONDS): number | undefined {
  const seconds = schedule[attempt];
  return seconds === undefined ? undefined : Math.max(1, Math.round(seconds * 1000 * scale));
}

/** SQS's longest message delay. */
const MAX_SQS_DELAY_SECONDS = 900;

/** The DelaySeconds that brings a job back at `notBefore`, or as close as one hop can. */
export function hopDelaySeconds(notBefore: number, now = Date.now()): number {
  return Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil((notBefore - now) / 1000)));
}
