import MailComposer from 'nodemailer/lib/mail-composer';
import type { UploadedFile } from '../platform/http/body';
import { formatMailbox, type Mailbox } from './recipients';

export interface Composition {
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  subject: string;
  text?: string;
  html?: string;
  ampHtml?: string;
  attachments: UploadedFile[];
  inline: UploadedFile[];
  messageId: string;
  /** h:* headers, in the order given; they win over what the composer would set. */
  headers: Array<[string, string]>;
  /** Mailgun's own headers (tags, variables) carried in the message for the worker and events. */
  mailgunHeaders: Array<[string, string]>;
}

/** Builds the MIME message with nodemailer's composer. Bcc never appears in the headers. */
export async function composeMime(message: Composition): Promise<Buffer> {
  const composer = new MailComposer({
    from: formatMailbox(message.from),
    to: message.to.map(formatMailbox).join(', ') || undefined,
    cc: message.cc.map(formatMailbox).join(', ') || undefined,
    subject: message.subject,
    text: message.text,
    html: message.html,
    amp: message.ampHtml,
    messageId: message.messageId,
    attachments: [
      ...message.attachments.map((file) => ({ filename: file.filename, content: file.content, contentType: file.contentType })),
      ...message.inline.map((file) => ({ filename: file.filename, content: file.content, contentType: file.contentType, cid: file.filename, contentDisposition: 'inline' as const })),
    ],
    headers: [...message.mailgunHeaders, ...message.headers].map(([key, value]) => ({ key, value })),
  });
  return new Promise((resolve, reject) => composer.compile().build((error, mime) => (error ? reject(error) : resolve(mime))));
}
