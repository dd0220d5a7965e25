import { putItem, queryAll, isLive, type Key } from '../data/store';
import { dayOf, eventSortKey } from '../events/event-store';
import { env } from '../platform/env';
import { logger } from '../platform/logger';
import type { DeliveryJob } from './delivery-job';
import { defineEntity } from '../data/key-registry';

const failedDeliveryKeys = defineEntity(
  'failed webhook deliveries',
  {
    webhookFailure: {
      what: 'a delivery given up (retries exhausted, or 406), per account and UTC day, newest last',
      pk: 'ACCT#<account>#WHFAILED#<yyyymmdd>',
      sk: '<13-digit ms>#<delivery id>',
      key: (accountId: string, day: string, at?: number, deliveryId = ''): Key => ({ pk: `ACCT#${accountId}#WHFAILED#${day}`, sk: at === undefined ? '' : eventSortKey(at, deliveryId) }),
    },
  },
  [{ what: 'failed webhook deliveries of a day', pk: 'ACCT#<account>#WHFAILED#<yyyymmdd>' }],
);

/**
 * Deliveries given up on: every retry failed, the receiver answered 406, or its address is one
 * webhooks may not reach. Each is kept as an item (expiring with the events) and logged as an error
 * line, so nothing is dropped unseen. The log names the URL's origin only: paths and query strings
 * of webhook URLs often carry credentials.
 */
export interface FailedDelivery {
  accountId: string;
  domain: string;
  url: string;
  webhook: string;
  eventId: string;
  event: string;
  attempts: number;
  /** `406`, `500`, `timed out`, `169.254.169.254 is a cloud metadata address, ...`: what the last attempt got. */
  lastOutcome: string;
  reason: 'rejected' | 'retries-exhausted' | 'refused-address';
  firstAttemptAt: string;
  failedAt: string;
  ttl: number;
}

export async function recordFailedDelivery(job: DeliveryJob, reason: FailedDelivery['reason'], lastOutcome: string, now = Date.now()): Promise<void> {
  const item: FailedDelivery = {
    accountId: job.accountId,
    domain: job.domain,
    url: job.url,
    webhook: job.webhook,
    eventId: job.event.id,
    event: job.event.event,
    attempts: job.attempt + 1,
    lastOutcome,
    reason,
    firstAttemptAt: new Date(job.firstAttemptAt ?? now).toISOString(),
    failedAt: new Date(now).toISOString(),
    ttl: Math.ceil(now / 1000) + env().EVENT_TTL_DAYS * 86_400,
  };
  await putItem(failedDeliveryKeys.webhookFailure(job.accountId, dayOf(now), now, job.deliveryId), item);
  logger.error('webhook delivery given up', {
    accountId: job.accountId,
    domain: job.domain,
    origin: new URL(job.url).origin,
    webhook: job.webhook,
    eventId: job.event.id,
    attempts: item.attempts,
    lastOutcome,
    reason,
  });
}

/** The deliveries given up on one UTC day (yyyymmdd), in time order. */
export async function failedDeliveries(accountId: string, day: string, now = Date.now()): Promise<FailedDelivery[]> {
  const partition = failedDeliveryKeys.webhookFailure(accountId, day);
  return (await queryAll<FailedDelivery>({ pk: partition.pk }, '')).filter((item) => isLive(item, now));
}
