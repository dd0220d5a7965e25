import { DomUtils, parseDocument } from 'htmlparser2';
import type { AnyNode, Element } from 'domhandler';
import { extractFromPlain } from 'planer';

/**
 * Mailgun's `stripped-text`, `stripped-signature` and `stripped-html` follow its talon library.
 *
 * - Quoted replies in plain text: planer, Lever's maintained port of talon's quotation rules
 *   (line markers for "On ... wrote:", Outlook's "-----Original Message-----" and "From:/Sent:"
 *   blocks, `>` quoting), with no dependencies.
 * - Signatures: talon's brute-force rules (signature/bruteforce.py), written here. No maintained
 *   JS port has them: planer leaves signatures out, and the ports that have them (talon, talonjs)
 *   have not been released for years and pull in lodash 3 or xmldom 0.1, both with known advisories.
 * - Quoted replies in HTML: talon's cuts (Gmail's `gmail_quote`, Apple Mail's and Thunderbird's
 *   `blockquote type="cite"`, Outlook's reply separator, `OLK_SRC_BODY_SECTION`), written here on
 *   htmlparser2: planer's HTML path needs a browser DOM with XPath (jsdom), megabytes for one field.
 */

// talon: signature/bruteforce.py
const SIGNATURE = /(?:^[\s]*--*[\s]*[a-z .]*$|^thanks[\s,!]*$|^regards[\s,!]*$|^cheers[\s,!]*$|^best[ a-z]*[\s,!]*$)[\s\S]*/im;
const PHONE_SIGNATURE = /(?:^sent from my[\s,!\w]*$|^sent from Mailbox for iPhone.*$|^sent (?:\S* )?from my BlackBerry.*$|^Enviado desde mi (?:\S+ ){0,2}BlackBerry.*$)[\s\S]*/im;
const SIGNATURE_MAX_LINES = 11;
const TOO_LONG_SIGNATURE_LINE = 60;

/** The lines that may hold a signature: among the last non-empty ones, never the first, at most one dashed. */
function signatureCandidate(lines: string[]): string[] {
  const nonEmpty = lines.flatMap((line, i) => (line.trim() ? [i] : []));
  if (nonEmpty.length <= 1) return [];
  const candidate = nonEmpty.slice(1).slice(-SIGNATURE_MAX_LINES);
  // Markers bottom-up: c (could be signature), l (long line), d (starts with dashes, has more).
  const markers = candidate
    .map((i) => {
      const line = lines[i]!.trim();
      if (line.length > TOO_LONG_SIGNATURE_LINE) return 'l';
      return line.startsWith('-') && line.replace(/^-+|-+$/g, '') ? 'd' : 'c';
    })
    .reverse()
    .join('');
  const match = /^(c+d)(?:[^d]|$)|^(c+)|^(d)(?:[^d]|$)/.exec(markers);
  const length = match ? (match[1] ?? match[2] ?? match[3])!.length : 0;
  return length ? lines.slice(candidate[candidate.length - length]) : [];
}

/** talon's extract_signature: the body without its signature, and the signature (phone signatures included). */
export function extractSignature(body: string): { text: string; signature: string } {
  const delimiter = body.includes('\r\n') ? '\r\n' : '\n';
  let stripped = body.trim();
  let phone: string | undefined;
  const phoneMatch = PHONE_SIGNATURE.exec(stripped);
  if (phoneMatch) {
    phone = phoneMatch[0];
    stripped = stripped.slice(0, phoneMatch.index);
  }
  const lines = stripped.split(/\r?\n/);
  const found = SIGNATURE.exec(signatureCandidate(lines).join(delimiter));
  if (!found) return { text: stripped.trim(), signature: (phone ?? '').trim() };
  const joined = lines.join(delimiter);
  const signature = phone ? [found[0], phone].join(delimiter) : found[0];
  return { text: joined.slice(0, joined.length - found[0].length).trim(), signature: signature.trim() };
}

/** stripped-text and stripped-signature: the reply without quotations, then without its signature. */
export function stripText(body: string): { text: string; signature: string } {
  if (!body.trim()) return { text: '', signature: '' };
  return extractSignature(extractFromPlain(body));
}

const hasClass = (node: Element, name: string) => (node.attribs['class'] ?? '').split(/\s+/).includes(name);
const OUTLOOK_REPLY_IDS = new Set(['divRplyFwdMsg', 'appendonsend', 'OLK_SRC_BODY_SECTION', 'mail-editor-reference-message-container']);

/** Where talon cuts an HTML reply: the first node that starts the quoted message. */
function isQuoteStart(node: Element): boolean {
  if (hasClass(node, 'gmail_quote') || hasClass(node, 'gmail_extra') || hasClass(node, 'yahoo_quoted') || hasClass(node, 'moz-cite-prefix')) return true;
  if (node.name === 'blockquote' && (node.attribs['type'] === 'cite' || hasClass(node, 'gmail_quote'))) return true;
  if (OUTLOOK_REPLY_IDS.has(node.attribs['id'] ?? '')) return true;
  // Outlook desktop: the separator is a div with a top border whose text starts with "From:".
  const style = (node.attribs['style'] ?? '').replace(/\s+/g, '').toLowerCase();
  return node.name === 'div' && style.includes('border-top:solid') && /^\s*(From|Von|De|Van|Da):/.test(DomUtils.textContent(node));
}

/** Removes `node` and everything after it in document order. */
function cutFrom(node: AnyNode): void {
  for (let at: AnyNode | null = node; at && at.parent; at = at.parent) {
    while (at.next) DomUtils.removeElement(at.next);
  }
  DomUtils.removeElement(node);
}

/** stripped-html: the HTML without the quoted message; unchanged when there is no quote talon would cut. */
export function stripHtml(html: string): string {
  if (!html.trim()) return '';
  const document = parseDocument(html);
  const start = DomUtils.findOne(isQuoteStart, document.children, true);
  if (!start) return html;
  cutFrom(start);
  // A quote that is the whole body is not a reply (a forward with no text of its own): kept whole.
  return DomUtils.textContent(document).trim() ? DomUtils.getOuterHTML(document.children) : html;
}
