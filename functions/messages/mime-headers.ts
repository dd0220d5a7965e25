/**
 * Reads the few header fields acceptance needs from a caller-built MIME message (Message-ID,
 * From, To, Subject) without a full parser: mailparser and its charset tables are over 1 MB,
 * which the send Lambda's cold start cannot afford. Encoded-words in UTF-8, US-ASCII and
 * Latin-1 are decoded; any other charset is left as written (these fields only label events).
 */
export interface MimeHeaders {
  messageId?: string;
  from: string;
  to: string;
  subject: string;
}

const CHARSETS: Record<string, BufferEncoding> = { 'utf-8': 'utf8', utf8: 'utf8', 'us-ascii': 'latin1', 'iso-8859-1': 'latin1', latin1: 'latin1' };

/** RFC 2047 encoded-words decoded where the charset is one of CHARSETS; others are left as written. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (word, charset: string, encoding: string, text: string) => {
      const target = CHARSETS[charset.toLowerCase().split('*')[0]!];
      if (!target) return word;
      const bytes =
        encoding.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
      return bytes.toString(target);
    });
}

/** The header block's fields, unfolded, in order: name (lower case) and raw value. */
function headerFields(mime: Buffer): Array<[name: string, value: string]> {
  const text = mime.subarray(0, Math.min(mime.length, 256 * 1024)).toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const block = (end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const fields: Array<[string, string]> = [];
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return fields;
}

// Header bytes are mostly ASCII; re-read raw 8-bit values as UTF-8, as mail clients do.
const decodedValue = (raw: string) => decodeWords(Buffer.from(raw, 'latin1').toString('utf8'));

export function mimeHeaders(mime: Buffer): MimeHeaders {
  const fields = new Map<string, string>();
  for (const [name, raw] of headerFields(mime)) if (!fields.has(name)) fields.set(name, decodedValue(raw));
  return { messageId: fields.get('message-id') || undefined, from: fields.get('from') ?? '', to: fields.get('to') ?? '', subject: fields.get('subject') ?? '' };
}

/** Every value of the named fields as written (unfolded): a message may carry a field twice. */
export function allHeaderValues(mime: Buffer, names: readonly string[]): string[] {
  return headerFields(mime).flatMap(([name, raw]) => (names.includes(name) ? [raw] : []));
}

/**
 * The message without the top-level header fields `drop` picks (with their folded lines), byte
 * for byte otherwise; the same Buffer when none is there.
 */
export function withoutFields(mime: Buffer, drop: (name: string) => boolean): Buffer {
  const text = mime.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const head = end < 0 ? text : text.slice(0, end);
  const lines = head.split(/(?<=\n)/);
  const kept: string[] = [];
  let dropping = false;
  for (const line of lines) {
    const continued = /^[ \t]/.test(line);
    if (!continued) {
      const colon = line.indexOf(':');
      dropping = colon > 0 && drop(line.slice(0, colon).trim().toLowerCase());
    }
    if (!dropping) kept.push(line);
  }
  if (kept.length === lines.length) return mime;
  let rebuilt = kept.join('');
  // The last field of the block ends without its line break (the blank line's belongs to it).
  if (end >= 0 && lines.length && !lines[lines.length - 1]!.endsWith('\n') && rebuilt.endsWith('\n')) rebuilt = rebuilt.replace(/\r?\n$/, '');
  return Buffer.from(rebuilt + (end < 0 ? '' : text.slice(end)), 'latin1');
}
