import type { AddressObject, ParsedMail } from 'mailparser';
import { stripHtml, stripText } from './reply-stripping';

/**
 * Mailgun's parsed-message fields (contract §5, routes' forward and store notifications; §2.3,
 * stored messages) from mailparser's parse of the MIME. One place, so what a route POSTs and what
 * GET /v3/domains/{d}/messages/{key} answers are the same parse.
 */
export interface ParsedAttachment {
  name: string;
  'content-type': string;
  size: number;
  content: Buffer;
  cid?: string;
}

export interface ParsedFields {
  /** Every header as its own field, canonical case, the first of each name (Message-Id, Content-Type). */
  topLevel: Record<string, string>;
  from: string;
  subject: string;
  'body-plain': string;
  'body-html': string;
  'stripped-text': string;
  'stripped-signature': string;
  'stripped-html': string;
  attachments: ParsedAttachment[];
  /** Inline parts by `<cid>`. */
  inline: ParsedAttachment[];
  'message-headers': Array<[string, string]>;
}

const addressText = (value: AddressObject | AddressObject[] | undefined) => (Array.isArray(value) ? value : value ? [value] : []).map((a) => a.text).join(', ');

/** Mailgun spells top-level header fields in canonical case (Message-Id, Mime-Version). */
const canonical = (name: string) => name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

export function headerPairs(parsed: Pick<ParsedMail, 'headerLines'>): Array<[string, string]> {
  return parsed.headerLines.map((line) => {
    const colon = line.line.indexOf(':');
    return [line.line.slice(0, colon), line.line.slice(colon + 1).replace(/\r?\n[ \t]+/g, ' ').trim()];
  });
}

export function parsedFields(parsed: ParsedMail): ParsedFields {
  const pairs = headerPairs(parsed);
  const topLevel: Record<string, string> = {};
  for (const [name, value] of pairs) topLevel[canonical(name)] ??= value;
  const attachments: ParsedAttachment[] = [];
  const inline: ParsedAttachment[] = [];
  for (const part of parsed.attachments) {
    const entry: ParsedAttachment = { name: part.filename ?? 'attachment', 'content-type': part.contentType, size: part.size, content: part.content, ...(part.cid ? { cid: part.cid } : {}) };
    (part.contentDisposition === 'inline' && part.cid ? inline : attachments).push(entry);
  }
  const text = parsed.text ?? '';
  const html = typeof parsed.html === 'string' ? parsed.html : '';
  const stripped = stripText(text);
  return {
    topLevel,
    from: addressText(parsed.from),
    subject: parsed.subject ?? '',
    'body-plain': text,
    'body-html': html,
    'stripped-text': stripped.text,
    'stripped-signature': stripped.signature,
    'stripped-html': stripHtml(html),
    attachments,
    inline,
    'message-headers': pairs,
  };
}

/** An attachment as JSON shows it: no content. */
export const attachmentJson = ({ name, 'content-type': type, size }: ParsedAttachment) => ({ name, 'content-type': type, size });
