import MailComposer from 'nodemailer/lib/mail-composer';
import { encodeWords, foldLines } from 'nodemailer/lib/mime-funcs';
import { mimeRewriter } from './mime-copies';

/** A stored template rendered for a MIME send (functions/messages/template-content.ts). */
export interface RenderedBody {
  html?: string;
  text?: string;
  /** Header fields the template supplies where the message has none (From, Subject, Reply-To), and Mailgun's template headers. */
  headers: Array<[string, string]>;
}

/** Fields the composer writes for the new body: the message's own are dropped. */
const BODY_FIELDS = new Set(['content-type', 'content-transfer-encoding', 'mime-version']);

/**
 * A caller-built message whose body is a rendered template, as Mailgun sends `messages.mime` and
 * SMTP mail naming a template: the message's header fields (From, To, Subject, Message-Id, its own
 * headers) as written, the template's HTML and text as its body, and its attachments and inline
 * images as written.
 */
export async function templatedMime(mime: Buffer, rendered: RenderedBody): Promise<Buffer> {
  const parts = await mimeRewriter().mimeParts(mime);
  const present = new Set(parts.headers.map((h) => h.key));
  // The composer builds only the new body; the header block is the message's own, as written.
  const composer = new MailComposer({ html: rendered.html, text: rendered.text, attachments: parts.others.map((raw) => ({ raw })) });
  const built: Buffer = await new Promise((resolve, reject) => composer.compile().build((error, out) => (error ? reject(error) : resolve(out))));
  const split = built.indexOf('\r\n\r\n');
  const bodyFields = built
    .subarray(0, split)
    .toString('latin1')
    .split(/\r\n(?![ \t])/)
    .filter((line) => BODY_FIELDS.has(line.slice(0, line.indexOf(':')).trim().toLowerCase()));
  const own = parts.headers.filter((h) => !BODY_FIELDS.has(h.key)).map((h) => h.line.replace(/\r?\n$/, ''));
  const supplied = rendered.headers.filter(([name]) => !present.has(name.toLowerCase())).map(([name, value]) => foldLines(`${name}: ${encodeWords(value, 'Q', 52)}`, 76).replace(/\r?\n$/, ''));
  return Buffer.concat([Buffer.from([...own, ...supplied, ...bodyFields].join('\r\n'), 'latin1'), built.subarray(split)]);
}
