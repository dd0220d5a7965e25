import { mailparser } from '../platform/lazy/lazy-modules';
import { attachmentJson, parsedFields } from '../inbound/parsed-message';
import { storedMessageUrl } from '../messages/storage-url';
import type { MessageRecord } from '../messages/message-store';

/** The stored-message JSON of contract §2.3, parsed from the MIME with mailparser. */
export async function storedMessageJson(record: MessageRecord, mime: Buffer, baseUrl: string) {
  // Loaded on first use, and in Lambda from its own bundle beside index.js (platform/lazy/):
  // mailparser's charset tables are most of this Lambda's code, and the raw (message/rfc2822)
  // reply does not need them.
  const { simpleParser } = mailparser();
  const fields = parsedFields(await simpleParser(mime, { skipImageLinks: true, skipTextToHtml: true }));
  return {
    ...fields.topLevel,
    sender: record.from,
    recipients: record.recipients.join(', '),
    from: fields.from || record.from,
    subject: fields.subject || record.subject,
    'body-plain': fields['body-plain'],
    'body-html': fields['body-html'],
    'stripped-text': fields['stripped-text'],
    'stripped-html': fields['stripped-html'],
    'stripped-signature': fields['stripped-signature'],
    attachments: fields.attachments.map(attachmentJson),
    'content-id-map': Object.fromEntries(fields.inline.map((part) => [`<${part.cid}>`, attachmentJson(part)])),
    'message-headers': fields['message-headers'],
    'message-url': storedMessageUrl(baseUrl, record.domain, record.storageKey),
  };
}
