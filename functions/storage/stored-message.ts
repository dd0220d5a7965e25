import type { AddressObject, simpleParser as SimpleParser } from 'mailparser';
import { storedMessageUrl } from '../messages/storage-url';
import type { MessageRecord } from '../messages/message-store';

const addressText = (value: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(value) ? value : value ? [value] : []).map((a) => a.text).join(', ');

/** The stored-message JSON of contract §2.3, parsed from the MIME with mailparser. */
export async function storedMessageJson(record: MessageRecord, mime: Buffer, baseUrl: string) {
  // Loaded on first use, and in Lambda from its own bundle beside index.js (mime-parser.ts):
  // mailparser's charset tables are most of this Lambda's code, and the raw (message/rfc2822)
  // reply does not need them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { simpleParser } = require('./mime-parser') as { simpleParser: typeof SimpleParser };
  const parsed = await simpleParser(mime, { skipImageLinks: true, skipTextToHtml: true });
  const headerLines = parsed.headerLines.map((line) => {
    const colon = line.line.indexOf(':');
    return [line.line.slice(0, colon), line.line.slice(colon + 1).trim()] as [string, string];
  });
  const topLevel: Record<string, string> = {};
  for (const [name, value] of headerLines) {
    // Mailgun spells top-level header fields in canonical case (Message-Id, Mime-Version).
    const canonical = name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
    topLevel[canonical] ??= value;
  }
  const contentIds: Record<string, unknown> = {};
  const attachments = [];
  for (const attachment of parsed.attachments) {
    const entry = { name: attachment.filename ?? 'attachment', 'content-type': attachment.contentType, size: attachment.size };
    if (attachment.contentDisposition === 'inline' && attachment.cid) contentIds[`<${attachment.cid}>`] = entry;
    else attachments.push(entry);
  }
  return {
    ...topLevel,
    sender: record.from,
    recipients: record.recipients.join(', '),
    from: addressText(parsed.from) || record.from,
    subject: parsed.subject ?? record.subject,
    'body-plain': parsed.text ?? '',
    'body-html': typeof parsed.html === 'string' ? parsed.html : '',
    'stripped-text': (parsed.text ?? '').trim(),
    'stripped-html': typeof parsed.html === 'string' ? parsed.html : '',
    'stripped-signature': '',
    attachments,
    'content-id-map': contentIds,
    'message-headers': headerLines,
    'message-url': storedMessageUrl(baseUrl, record.domain, record.storageKey),
  };
}
