import { parseHtml } from '../common/html-source';

/** A link to check, with where it sits in the email when it came from HTML. */
export interface LinkInput {
  url: string;
  line?: number;
  column?: number;
  selector?: string;
  absolute_index?: number;
}

/** Elements whose `href` a reader can follow: anchors, image-map areas, and Outlook's VML buttons. */
const LINK_ELEMENTS = new Set(['a', 'area', 'v:roundrect', 'v:rect', 'v:oval', 'v:shape']);

/**
 * Every followable link of an email, in document order, with its source position (VML buttons
 * inside `<!--[if mso]>` included: Outlook users click those instead of the HTML button).
 * `<link>` and `<base>` are not links a reader follows. Entities are decoded by the parser.
 */
export function extractLinks(html: string): LinkInput[] {
  const source = parseHtml(html);
  const links: LinkInput[] = [];
  for (const element of source.elements) {
    if (!LINK_ELEMENTS.has(element.name)) continue;
    const href = element.attribs['href'];
    if (href === undefined) continue;
    links.push({ url: href.trim(), ...source.positionOf(element) });
  }
  return links;
}
