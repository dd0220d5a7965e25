import { authorizedRecipients } from '../accounts/sandbox-recipients';
import { findDomain } from '../domains/domain-store';
import type { EventData } from '../events/event-store';
import type { MessageRecord } from '../messages/message-store';
import { mapLimit } from '../platform/concurrency';
import { env } from '../platform/env';
import { suppressionFor, type SuppressionVerdict } from '../suppressions/sending';
import { failedEvent, outcomeEvent } from './outcome-events';

/**
 * The policy gates a message's claimed recipients pass before SES: the domain's queue (cleared, or
 * the domain deleted), the sandbox's authorized recipients, test mode and the suppression lists.
 * Recipients in; out, each refused recipient's final event and the recipients that may be sent.
 * The gates only decide: the send worker records the events and settles the claims.
 */

/** Suppression lookups in flight at once for one message (up to 1,000 recipients). */
const SUPPRESSION_CHECKS_AT_ONCE = 16;

const SUPPRESSED: Record<SuppressionVerdict, string> = {
  'suppress-bounce': 'Not delivering to previously bounced address',
  'suppress-complaint': 'Not delivering to a user who marked your messages as spam',
  'suppress-unsubscribe': 'Not delivering to unsubscribed address',
};

/** Mailgun's words for a sandbox message to an address that is not an authorized recipient. */
const SANDBOX_REFUSAL = 'Sandbox subdomains are for test purposes only. Please add your own domain or add the address to authorized recipients in Account Settings.';

/** The sending domain's item, as its store returns it. */
export type SendingDomain = NonNullable<Awaited<ReturnType<typeof findDomain>>>;

export interface GateResult {
  /** The sending domain, when it still exists. */
  domain?: SendingDomain;
  /** Recipients that are not sent, each with its final event (test mode's "delivered" among them). */
  refused: Map<string, EventData>;
  /** Recipients that passed every gate. */
  sendable: string[];
}

/** Runs the gates, in order, over the recipients a send invocation claimed. */
export async function passGates(record: MessageRecord, recipients: string[]): Promise<GateResult> {
  const refused = new Map<string, EventData>();
  const refuse = (list: string[], eventOf: (recipient: string) => EventData) => list.forEach((recipient) => refused.set(recipient, eventOf(recipient)));

  const domain = await findDomain(record.accountId, record.domain);
  if (!domain || (domain.queueClearedAt && record.createdAt <= domain.queueClearedAt)) {
    const why = domain ? "Cancelled: the domain's queue was cleared" : 'Cancelled: the domain was deleted';
    refuse(recipients, (recipient) => failedEvent(record, recipient, why, 0));
    return { domain, refused, sendable: [] };
  }

  // A sandbox domain reaches its account's authorized recipients only (its confirmation mail and placement test copies excepted).
  if (domain.type === 'sandbox' && !record.purpose && env().SANDBOX_RECIPIENTS === 'authorized') {
    const authorized = await authorizedRecipients(record.accountId);
    refuse(
      recipients.filter((recipient) => !authorized.has(recipient)),
      (recipient) => outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: 'generic', 'delivery-status': { code: 550, message: SANDBOX_REFUSAL, description: SANDBOX_REFUSAL, 'attempt-no': 1, 'session-seconds': 0 } }),
    );
    recipients = recipients.filter((recipient) => authorized.has(recipient));
    if (!recipients.length) return { domain, refused, sendable: [] };
  }
  if (record.testMode) {
    refuse(recipients, (recipient) => outcomeEvent(record, recipient, 'delivered', { 'delivery-status': { code: 250, message: 'OK', description: 'Test mode: accepted, not sent', 'attempt-no': 1, tls: false, utf8: true, 'certificate-verified': false, 'session-seconds': 0 } }));
    return { domain, refused, sendable: [] };
  }
  // Checked at send time, so a bounce recorded after acceptance still stops the message.
  const verdicts = new Map(await mapLimit(recipients, SUPPRESSION_CHECKS_AT_ONCE, async (recipient) => [recipient, await suppressionFor(record.accountId, record.domain, recipient, record.tags)] as const));
  refuse(
    recipients.filter((recipient) => verdicts.get(recipient)),
    (recipient) => {
      const verdict = verdicts.get(recipient)!;
      return outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: verdict, 'delivery-status': { code: 605, message: '', description: SUPPRESSED[verdict], 'attempt-no': 1, 'session-seconds': 0 } });
    },
  );
  return { domain, refused, sendable: recipients.filter((recipient) => !verdicts.get(recipient)) };
}
