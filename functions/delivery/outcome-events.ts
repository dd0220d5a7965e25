import { newEvent } from '../events/event-store';
import { messageEventFields, type MessageRecord } from '../messages/message-store';

/** A recipient's final event written by delivery itself (not from SES's notifications). */
export function outcomeEvent(record: MessageRecord, recipient: string, name: 'delivered' | 'failed', fields: Record<string, unknown>) {
  return newEvent(name, { ...messageEventFields(record, recipient), ...fields });
}

/** A permanent failure with SMTP code 550 and `why` as its message. */
export const failedEvent = (record: MessageRecord, recipient: string, why: string, attempt: number) =>
  outcomeEvent(record, recipient, 'failed', { severity: 'permanent', reason: 'generic', 'delivery-status': { code: 550, message: why, description: why, 'attempt-no': attempt } });
