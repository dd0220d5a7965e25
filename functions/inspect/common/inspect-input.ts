import { decode as decodeQuotedPrintable } from 'libqp';
import { BadRequest, PayloadTooLarge } from '../../platform/errors';
import { mailparser } from '../../platform/lazy/lazy-modules';

/**
 * The HTML a check works on, from the three sources the contract names (§0): `html` as sent
 * (optionally transfer-encoded and in another charset), `url` (fetched through the SSRF-safe
 * client), or `mime` (a raw message whose HTML part is analysed).
 */
export interface HtmlSourceInput {
  html?: string;
  url?: string;
  mime?: string;
  transfer_encoding?: string;
  charset?: string;
}

/**
 * At most 5 MiB of HTML: API Gateway's synchronous payload ceiling is about 6 MB, and Mailgun's own
 * CLI refuses preview HTML above 5 MiB (contract §0).
 */
export const MAX_HTML_BYTES = 5 * 1024 * 1024;

const TRANSFER_ENCODINGS = ['base64', 'quoted-printable', '7bit', '8bit'] as const;

export function ensureHtmlSize(html: string): string {
  if (Buffer.byteLength(html, 'utf8') > MAX_HTML_BYTES) throw new PayloadTooLarge(`The HTML is larger than ${MAX_HTML_BYTES / 1024 / 1024} MiB, the most a test accepts`);
  return html;
}

/**
 * A decoder for a charset label, from the WHATWG Encoding Standard's list (what browsers and mail
 * clients read: utf-8, windows-1252, iso-8859-*, shift_jis, gb18030, ...), built into Node.
 */
export function decoderFor(charset: string | undefined): TextDecoder | undefined {
  try {
    return new TextDecoder((charset ?? 'utf-8').trim() || 'utf-8');
  } catch {
    return undefined;
  }
}

function checkCharset(charset: string | undefined): TextDecoder {
  const decoder = decoderFor(charset);
  if (!decoder) throw new BadRequest(`Unknown charset '${charset}'`);
  return decoder;
}

/** Undoes `transfer_encoding`, then reads the bytes in `charset`. */
export function decodeTransferEncoded(text: string, transferEncoding: string | undefined, charset: string | undefined): string {
  const encoding = (transferEncoding ?? '8bit').trim().toLowerCase() || '8bit';
  const decoder = checkCharset(charset);
  let bytes: Buffer;
  switch (encoding) {
    case 'base64': {
      const compact = text.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) throw new BadRequest("'html' is not valid base64, as transfer_encoding says it is");
      bytes = Buffer.from(compact, 'base64');
      break;
    }
    case 'quoted-printable':
      bytes = decodeQuotedPrintable(text);
      break;
    case '7bit':
    case '8bit':
      // JSON already carried the text as Unicode: only a charset other than UTF-8 means the
      // characters stand for bytes (each code point one byte, as an 8bit body is sent).
      if (decoder.encoding === 'utf-8') return text;
      bytes = Buffer.from(text, 'latin1');
      break;
    default:
      throw new BadRequest(`Unknown transfer_encoding '${transferEncoding}': use one of ${TRANSFER_ENCODINGS.join(', ')}`);
  }
  return decoder.decode(bytes);
}

/** The HTML part of a raw message (mailparser decodes its transfer encoding and charset). */
async function htmlOfMime(mime: string): Promise<string> {
  // mailparser is a side bundle of the inspection Lambdas (lib/side-bundles.ts), needed only here.
  const { simpleParser } = mailparser();
  const parsed = await simpleParser(Buffer.from(mime, 'utf8'), { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  if (typeof parsed.html !== 'string' || !parsed.html) throw new BadRequest("The message in 'mime' has no HTML part to analyse");
  return parsed.html;
}

/**
 * Exactly one source must be given. The HTML of a `url` is fetched by `fetchHtml` (the route passes
 * the SSRF-safe fetch), so this module stays free of network code.
 */
export async function htmlOfInput(input: HtmlSourceInput, fetchHtml: (url: string) => Promise<string>): Promise<string> {
  const given = (['html', 'url', 'mime'] as const).filter((name) => typeof input[name] === 'string' && input[name] !== '');
  if (given.length === 0) throw new BadRequest("Provide the email as one of 'html', 'url' or 'mime'");
  if (given.length > 1) throw new BadRequest(`Provide only one of 'html', 'url' or 'mime', not ${given.join(' and ')}`);
  if (input.html !== undefined && input.html !== '') {
    ensureHtmlSize(input.html);
    return ensureHtmlSize(decodeTransferEncoded(input.html, input.transfer_encoding, input.charset));
  }
  if (input.mime) {
    if (Buffer.byteLength(input.mime, 'utf8') > 2 * MAX_HTML_BYTES) throw new PayloadTooLarge('The message in \'mime\' is larger than 10 MiB');
    return ensureHtmlSize(await htmlOfMime(input.mime));
  }
  return ensureHtmlSize(await fetchHtml(input.url!));
}
