import { randomUUID } from 'node:crypto';
import { type AlertEventType, isReputationEvent } from './alert-event';
import type { RaisedAlert } from './alert-message';

/**
 * What the test routes send: an alert of the asked type that says it is a test. Its subject is
 * from the documentation ranges (RFC 5737 192.0.2.1, RFC 2606 example.com) and its list is named
 * "Mailplane test list", so no reader mistakes it for a real listing; a reputation alert names the
 * asking account as "Mailplane test account" with figures that are plainly made up.
 */
export function sampleAlert(accountId: string, event: AlertEventType, now = new Date()): RaisedAlert {
  const at = now.toISOString();
  if (isReputationEvent(event)) {
    return {
      id: randomUUID(),
      accountId,
      event,
      subject: accountId,
      list: 'reputation',
      listName: 'Reputation guard',
      firstSeen: at,
      timestamp: at,
      reputation: { accountName: 'Mailplane test account', bounceRate: 0, complaintRate: 0, volume: 0, windowHours: 24, reason: 'a test of the alert settings, not a measurement' },
    };
  }
  return {
    id: randomUUID(),
    accountId,
    event,
    subject: event.startsWith('domain_') ? 'example.com' : '192.0.2.1',
    list: 'test.mailplane.invalid',
    listName: 'Mailplane test list',
    firstSeen: at,
    timestamp: at,
  };
}
