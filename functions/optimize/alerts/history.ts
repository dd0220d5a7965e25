import { putItem, queryPage, setMapEntry, type Key } from '../../data/store';
import { boundsWithin } from '../../platform/http/paging';
import { defineEntity } from '../../data/key-registry';
import { alertText, type RaisedAlert } from './alert-message';
import type { AlertChannel } from './settings-store';

/**
 * The account's alert history (`GET /v1/alerts/history`): each alert raised, what it said, and
 * per setting where its delivery stands. Written beside the at-most-once guard of raise.ts (whose
 * items are keyed by hash, not by time) and kept up to date by the delivery worker.
 */
export const alertHistoryKeys = defineEntity(
  'alert history',
  {
    alertHistory: {
      what: 'an alert raised, by its time and id, with each setting’s delivery state',
      pk: 'ACCT#<account>#ALERTHISTORY',
      sk: '<time>#<alert id>',
      key: (accountId: string, alert?: Pick<RaisedAlert, 'timestamp' | 'id'>): Key => ({ pk: `ACCT#${accountId}#ALERTHISTORY`, sk: alert ? sortKeyOf(alert) : '' }),
    },
  },
  [{ what: "an account's raised alerts by time (pages)", pk: 'ACCT#<account>#ALERTHISTORY' }],
);

const sortKeyOf = (alert: Pick<RaisedAlert, 'timestamp' | 'id'>) => `${alert.timestamp}#${alert.id}`;

/**
 * Where one setting's delivery of an alert stands: queued (not tried yet), retrying (an attempt
 * failed, another is due at `nextAttemptAt`), delivered, partial (Slack took it in some channels
 * and refused the others for good), failed (given up: the setting is disabled), skipped (the
 * setting was deleted or disabled before its turn).
 */
export type DeliveryState = 'queued' | 'retrying' | 'delivered' | 'partial' | 'failed' | 'skipped';

export interface DeliveryRecord {
  channel: AlertChannel;
  state: DeliveryState;
  /** Attempts made so far. */
  attempts: number;
  lastError?: string;
  nextAttemptAt?: string;
  updatedAt: string;
}

export interface AlertHistoryItem extends RaisedAlert {
  message: string;
  /** Why it was not delivered at all: the dedupe window held it back. */
  suppressed?: string;
  /** By setting id. */
  deliveries: Record<string, DeliveryRecord>;
}

/**
 * Records a raised alert with its deliveries queued, once: a raise finished again after a crash
 * finds the record there and leaves it (and what the worker wrote into it) alone.
 */
export async function recordRaised(alert: RaisedAlert, settings: ReadonlyArray<{ id: string; channel: AlertChannel }>, suppressed?: string): Promise<void> {
  const updatedAt = new Date().toISOString();
  const deliveries = Object.fromEntries(settings.map((s): [string, DeliveryRecord] => [s.id, { channel: s.channel, state: 'queued', attempts: 0, updatedAt }]));
  const item: AlertHistoryItem = { ...alert, message: alertText(alert), deliveries, ...(suppressed ? { suppressed } : {}) };
  await putItem(alertHistoryKeys.alertHistory(alert.accountId, alert), item, { ifAbsent: true });
}

/** Where a setting's delivery of an alert stands now. An alert raised before the history was kept has no record to update. */
export async function recordDelivery(alert: RaisedAlert, settingId: string, delivery: Omit<DeliveryRecord, 'updatedAt'>): Promise<void> {
  const record: DeliveryRecord = { ...delivery, updatedAt: new Date().toISOString() };
  // Absent fields stay absent: the document client leaves undefined values out (removeUndefinedValues).
  await setMapEntry(alertHistoryKeys.alertHistory(alert.accountId, alert), 'deliveries', settingId, record);
}

export interface HistoryQuery {
  /** ISO bounds: inclusive start, exclusive end. */
  from?: string;
  to?: string;
  event?: string;
  limit: number;
  ascending: boolean;
  after?: string;
  before?: string;
}

/** One page of the account's alerts, each with its sort key (the page pivot); the time range bounds the key range. */
export function historyPage(accountId: string, q: HistoryQuery): Promise<Array<AlertHistoryItem & { sk: string }>> {
  return queryPage<AlertHistoryItem & { sk: string }>(alertHistoryKeys.alertHistory(accountId).pk, {
    prefix: '',
    ascending: q.ascending,
    ...boundsWithin(q, q.from, q.to),
    limit: q.limit,
    withSortKey: true,
    keep: (item) => q.event === undefined || item['event'] === q.event,
  });
}
