import { messageId as newMessageId } from '../platform/ids';
import { acceptMessage } from './accept';
import { composeMime } from './compose';
import { newStorageKey, type MessageRecord } from './message-store';
import { formatMailbox, type Mailbox } from './recipients';
import type { DomainItem } from '../domains/domain-store';

/** A message the platform itself sends for an account (a confirmation, an alert). */
export interface PlatformMail {
  from: Mailbox;
  to: string[];
  subject: string;
  text: string;
  html: string;
  tags?: string[];
  purpose?: MessageRecord['purpose'];
}

/**
 * Sends a message of the platform's own through the account's pipeline, from one of its domains:
 * accepted, queued and sent by the send worker with its events like any message, so it is
 * delivered, retried and visible the same way. Answers its Message-ID.
 */
export async function sendPlatformMail(domain: DomainItem, mail: PlatformMail): Promise<string> {
  const messageId = newMessageId(domain.name);
  const to = mail.to.map((address) => ({ name: '', address }));
  const mime = await composeMime({ from: mail.from, to, cc: [], subject: mail.subject, text: mail.text, html: mail.html, attachments: [], inline: [], messageId, headers: [], mailgunHeaders: [] });
  await acceptMessage(
    {
      storageKey: newStorageKey(),
      accountId: domain.accountId,
      domain: domain.name,
      messageId,
      from: formatMailbox(mail.from),
      subject: mail.subject,
      recipients: mail.to,
      to: mail.to.join(', '),
      tags: mail.tags ?? [],
      userVariables: {},
      attachments: [],
      testMode: false,
      platformMail: true,
      ...(mail.purpose ? { purpose: mail.purpose } : {}),
    },
    mime,
    domain,
  );
  return messageId;
}
