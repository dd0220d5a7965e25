import { decodeWords } from '../messages/mime-headers';
import { BadRequest } from '../platform/errors';

/**
 * Over SMTP there are no form fields: Mailgun reads its sending options from `X-Mailgun-*` headers
 * of the message instead ("Passing Sending Options" in its user manual). This turns those headers
 * into the form options the HTTP API takes, so the very same checks (readSendParams) apply.
 */

/** Each option header and the form option it stands for. */
const OPTION_HEADERS: Readonly<Record<string, string>> = {
  'x-mailgun-tag': 'o:tag',
  'x-mailgun-dkim': 'o:dkim',
  'x-mailgun-drop-message': 'o:testmode',
  'x-mailgun-track': 'o:tracking',
  'x-mailgun-track-clicks': 'o:tracking-clicks',
  'x-mailgun-track-opens': 'o:tracking-opens',
  'x-mailgun-track-pixel-location-top': 'o:tracking-pixel-location-top',
  'x-mailgun-require-tls': 'o:require-tls',
  'x-mailgun-skip-verification': 'o:skip-verification',
  'x-mailgun-deliver-by': 'o:deliverytime',
  'x-mailgun-delivery-time-optimize-period': 'o:deliverytime-optimize-period',
  'x-mailgun-time-zone-localize': 'o:time-zone-localize',
  'x-mailgun-secondary-dkim': 'o:secondary-dkim',
  'x-mailgun-secondary-dkim-public': 'o:secondary-dkim-public',
  'x-mailgun-sending-ip': 'o:sending-ip',
  'x-mailgun-sending-ip-pool': 'o:sending-ip-pool',
  'x-mailgun-template-name': 'template',
  'x-mailgun-template-version': 't:version',
  'x-mailgun-template-variables': 't:variables',
  // Every recipient's values: taken out, so no copy carries the others'.
  'x-mailgun-recipient-variables': 'recipient-variables',
};

/** User variables: one JSON object per header, several headers merged (Mailgun's rule). */
const VARIABLES_HEADER = 'x-mailgun-variables';

/**
 * Headers that stay in the message as written: the HTTP path writes exactly these two into every
 * message it sends (functions/messages/handler.ts), and Mailgun documents that X-Mailgun-Variables
 * is visible in the delivered MIME. Every other option header is taken out before sending.
 */
const KEPT = new Set(['x-mailgun-tag', VARIABLES_HEADER]);

export interface HeaderOptions {
  /** Form options (o:tag repeated as an array; v:<name> from X-Mailgun-Variables). */
  form: Record<string, string | string[]>;
  /** The message without the option headers, its body untouched. */
  mime: Buffer;
}

/** The end of the header block: the offset of the blank line and of the body after it. */
function headerEnd(text: string): { end: number; body: number } {
  const match = /\r?\n\r?\n/.exec(text);
  if (!match) return { end: text.length, body: text.length };
  return { end: match.index, body: match.index + match[0].length };
}

function variablesOf(value: string, into: Record<string, string>): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new BadRequest('X-Mailgun-Variables must be a JSON object');
  // v: values are strings, as the HTTP API's are; anything else keeps its JSON text.
  for (const [name, v] of Object.entries(parsed as Record<string, unknown>)) into[name] = typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Reads Mailgun's option headers from a message and removes those that are only instructions.
 * Header names are matched case-insensitively; folded values are unfolded and encoded-words
 * decoded.
 */
export function headerOptions(mime: Buffer): HeaderOptions {
  // latin1 maps bytes to characters one to one, so offsets are byte offsets.
  const text = mime.toString('latin1');
  const { end, body } = headerEnd(text);
  const lines = text.slice(0, end).split(/(?<=\n)/);
  // Fields, each its first line and any folded continuation lines.
  const fields: string[] = [];
  for (const line of lines) {
    if (/^[ \t]/.test(line) && fields.length) fields[fields.length - 1] += line;
    else fields.push(line);
  }
  const form: Record<string, string | string[]> = {};
  const variables: Record<string, string> = {};
  let sawVariables = false;
  const kept: string[] = [];
  for (const field of fields) {
    const colon = field.indexOf(':');
    const name = colon > 0 ? field.slice(0, colon).trim().toLowerCase() : '';
    if (!name.startsWith('x-mailgun-')) {
      kept.push(field);
      continue;
    }
    const value = decodeWords(Buffer.from(field.slice(colon + 1).replace(/\r?\n(?=[ \t])/g, '').trim(), 'latin1').toString('utf8'));
    if (name === VARIABLES_HEADER) {
      variablesOf(value, variables);
      sawVariables = true;
    } else if (OPTION_HEADERS[name]) {
      const option = OPTION_HEADERS[name];
      const existing = form[option];
      form[option] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    }
    // Unknown X-Mailgun-* headers are left alone, as the HTTP API leaves unknown h: headers.
    if (KEPT.has(name) || (!OPTION_HEADERS[name] && name !== VARIABLES_HEADER)) kept.push(field);
  }
  if (sawVariables) for (const [name, value] of Object.entries(variables)) form[`v:${name}`] = value;
  if (kept.length === fields.length) return { form, mime };
  // The last field kept may have been followed by one removed: its line break is the separator's.
  const headers = kept.join('').replace(/\r?\n$/, '');
  const stripped = Buffer.concat([Buffer.from(headers, 'latin1'), Buffer.from(text.slice(end, body), 'latin1'), mime.subarray(body)]);
  return { form, mime: stripped };
}
