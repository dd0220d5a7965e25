import { createHash, randomUUID } from 'node:crypto';
import { keys } from '../../data/db';
import { getItem, putItem, updateItem } from '../../data/store';
import { ALERT_EVENT_TYPES, type AlertEvent } from './alert-event';
import { enqueueAlertJob } from './alert-queue';
import type { RaisedAlert } from './alert-message';
import { activeSettingsFor } from './settings-store';

/** The alert as stored under its transition's hash: what was raised, and whether its deliveries are queued. */
interface RaisedItem extends RaisedAlert {
  queued: boolean;
  raisedAt: string;
}

/** What identifies a transition: account, event, subject, list and when the listing began. */
export function transitionHash(event: AlertEvent): string {
  return createHash('sha256').update([event.accountId, event.event, event.subject, event.list, event.firstSeen].join('|')).digest('hex');
}

/**
 * Raises an alert for one blocklist transition: the entry producers call (optimize contract 2.7).
 *
 * The transition is recorded with a conditional put keyed by its hash, so it is alerted at most
 * once however often a retried or overlapping check raises it. Then one delivery per matching
 * setting (event type, not disabled) goes on the alerts queue. A raise that died between the two
 * is finished by the next raise of the same transition, under the same alert id; the deliveries'
 * claims (delivery-worker.ts) keep a setting from getting the alert twice when two raises race.
 */
export async function raiseAlert(event: AlertEvent): Promise<void> {
  if (!(ALERT_EVENT_TYPES as readonly string[]).includes(event.event)) throw new Error(`raiseAlert: unknown alert event ${String(event.event)}`);
  const key = keys.alertRaised(event.accountId, transitionHash(event));
  const fresh: RaisedItem = { ...event, id: randomUUID(), queued: false, raisedAt: new Date().toISOString() };
  let raised: RaisedItem = fresh;
  if (!(await putItem(key, fresh, { ifAbsent: true }))) {
    raised = (await getItem<RaisedItem>(key, { consistent: true }))!;
    if (raised.queued) return;
  }
  const { queued: _queued, raisedAt: _raisedAt, ...alert } = raised;
  for (const setting of await activeSettingsFor(event.accountId, event.event)) await enqueueAlertJob({ alert, settingId: setting.id, attempt: 0 });
  await updateItem(key, { queued: true });
}
