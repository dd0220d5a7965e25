import { createHash, randomUUID } from 'node:crypto';
import { getItem, putItem, updateItem, updateItemIf } from '../../data/store';
import { env } from '../../platform/env';
import { ALERT_EVENT_TYPES, type AlertEvent } from './alert-event';
import { enqueueAlertJob } from './alert-queue';
import { recordRaised } from './history';
import type { RaisedAlert } from './alert-message';
import { activeSettingsFor, alertKeys } from './settings-store';

/** The alert as stored under its transition's hash: what was raised, and whether its deliveries are queued. */
interface RaisedItem extends RaisedAlert {
  queued: boolean;
  raisedAt: string;
  /** Why it was not delivered: another alert for the same event, subject and list was, within the window. */
  suppressed?: string;
}

interface WindowItem {
  /** The transition last delivered for a subject on a list, its event, and until when (epoch ms) the same event is held back. */
  hash: string;
  event: string;
  until: number;
}

/** What identifies a transition: account, event, subject, list and when the listing began. */
export function transitionHash(event: AlertEvent): string {
  return createHash('sha256').update([event.accountId, event.event, event.subject, event.list, event.firstSeen].join('|')).digest('hex');
}

/**
 * Claims the dedupe window of a subject on a list: the same alert again (a listing that came back
 * soon after the last one was alerted, with no delisting alerted between) is recorded but not
 * delivered until ALERT_DEDUPE_WINDOW_SECONDS have passed. The opposite alert is never held back,
 * so the last message a subscriber got always matches the subject's state. The same transition
 * raised again keeps its claim, so a raise finished after a crash still delivers. One conditional
 * write decides a race; a lost race is decided again against the winner.
 */
async function claimWindow(event: AlertEvent, hash: string, now: number): Promise<boolean> {
  const windowMs = env().ALERT_DEDUPE_WINDOW_SECONDS * 1000;
  if (!windowMs) return true;
  const pair = createHash('sha256').update([event.subject, event.list].join('|')).digest('hex');
  const key = alertKeys.alertWindow(event.accountId, pair);
  const claim: WindowItem = { hash, event: event.event, until: now + windowMs };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await putItem(key, claim, { ifAbsent: true })) return true;
    const current = await getItem<WindowItem>(key, { consistent: true });
    if (!current) continue;
    if (current.hash === hash) return true;
    if (current.event === event.event && current.until > now) return false;
    if (await updateItemIf(key, { hash: current.hash }, { ...claim })) return true;
  }
  return true;
}

/**
 * Raises an alert for one blocklist transition: the entry producers call (optimize contract 2.7).
 *
 * The transition is recorded with a conditional put keyed by its hash, so it is alerted at most
 * once however often a retried or overlapping check raises it. Within the dedupe window after an
 * alert for the same event, subject and list it is recorded, not delivered. Then one delivery per matching
 * setting (event type, not disabled) goes on the alerts queue. A raise that died between the two
 * is finished by the next raise of the same transition, under the same alert id; the deliveries'
 * claims (delivery-worker.ts) keep a setting from getting the alert twice when two raises race.
 * Each raised alert, delivered or held back, goes into the account's history (history.ts).
 */
export async function raiseAlert(event: AlertEvent): Promise<void> {
  if (!(ALERT_EVENT_TYPES as readonly string[]).includes(event.event)) throw new Error(`raiseAlert: unknown alert event ${String(event.event)}`);
  const hash = transitionHash(event);
  const key = alertKeys.alertRaised(event.accountId, hash);
  const fresh: RaisedItem = { ...event, id: randomUUID(), queued: false, raisedAt: new Date().toISOString() };
  let raised: RaisedItem = fresh;
  if (!(await putItem(key, fresh, { ifAbsent: true }))) {
    raised = (await getItem<RaisedItem>(key, { consistent: true }))!;
    if (raised.queued) return;
  }
  const { queued: _queued, raisedAt: _raisedAt, suppressed: _suppressed, ...alert } = raised;
  if (!(await claimWindow(event, hash, Date.now()))) {
    const suppressed = `the same alert (${event.event} of ${event.subject} on ${event.list}) was delivered less than ${env().ALERT_DEDUPE_WINDOW_SECONDS} s before`;
    await recordRaised(alert, [], suppressed);
    await updateItem(key, { queued: true, suppressed });
    return;
  }
  const settings = await activeSettingsFor(event.accountId, event.event);
  await recordRaised(alert, settings);
  for (const setting of settings) await enqueueAlertJob({ alert, settingId: setting.id, channel: setting.channel, attempt: 0 });
  await updateItem(key, { queued: true });
}
