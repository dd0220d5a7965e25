import { parseDocument } from 'htmlparser2';
import type { AnyNode, Comment, Document, Element } from 'domhandler';

/**
 * Where a finding sits in the user's own HTML: 1-based line and column, the 0-based character
 * offset (`absolute_index`) and a CSS selector that finds the element again. Every inspection check
 * reports positions this way, so a finding points into the HTML as the user pasted it.
 */
export interface SourcePosition {
  line: number;
  column: number;
  absolute_index: number;
  selector: string;
}

/** Turns character offsets into 1-based line and column, by binary search over line starts. */
class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  at(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 };
  }
}

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script' || node.type === 'style';

/**
 * A selector from the root: `html > body > table:nth-of-type(2) > tr > td > a`, an element with an
 * id that is unique in the document stopping the walk (`#cta > a`). `:nth-of-type` appears only where
 * a parent has more than one child of that tag, so selectors stay readable.
 */
function selectorOf(element: Element, uniqueIds?: ReadonlySet<string>): string {
  const parts: string[] = [];
  let node: Element | null = element;
  while (node) {
    const id = node.attribs['id'];
    if (id && uniqueIds?.has(id) && /^[A-Za-z][\w-]*$/.test(id)) {
      parts.unshift(`#${id}`);
      break;
    }
    // VML and other namespaced tags (`v:roundrect`) need their colon escaped to be a valid selector.
    let part = node.name.replace(/:/g, '\\:');
    const parent: AnyNode | null = node.parent;
    if (parent && 'children' in parent) {
      const sameTag = parent.children.filter((child): child is Element => isElement(child) && child.name === node!.name);
      if (sameTag.length > 1) part += `:nth-of-type(${sameTag.indexOf(node) + 1})`;
    }
    parts.unshift(part);
    node = parent && isElement(parent) ? parent : null;
  }
  return parts.join(' > ');
}

/** A parsed HTML document that remembers where each element came from. */
export interface HtmlSource {
  html: string;
  document: Document;
  lines: LineIndex;
  /** Every element in document order, those inside Outlook's conditional comments included. */
  elements: Element[];
  positionOf(element: Element): SourcePosition;
  positionAt(offset: number, selector?: string): SourcePosition;
  /** Where the element starts in the whole document, without the cost of a selector. */
  offsetOf(element: Element): number;
}

const CONDITIONAL_COMMENT = /^\[if [^\]]*\]>([\s\S]*)<!\[endif\]$/i;

/**
 * Parses HTML with htmlparser2 keeping source offsets. The markup inside Outlook's conditional
 * comments (`<!--[if mso]>...<![endif]-->`, where VML buttons and backgrounds live) is parsed too,
 * its offsets shifted to where it sits in the whole document; its selectors are relative to the
 * comment, as no CSS selector can reach inside one.
 */
export function parseHtml(html: string): HtmlSource {
  const document = parseDocument(html, { withStartIndices: true, withEndIndices: true, recognizeSelfClosing: true });
  const lines = new LineIndex(html);
  const elements: Element[] = [];
  const shifted = new Map<Element, number>();

  const walk = (nodes: AnyNode[], shift: number) => {
    for (const node of nodes) {
      if (isElement(node)) {
        elements.push(node);
        if (shift) shifted.set(node, shift);
        walk(node.children, shift);
      } else if (node.type === 'comment') {
        const data = (node as Comment).data;
        const inner = CONDITIONAL_COMMENT.exec(data);
        if (!inner || node.startIndex === null) continue;
        const innerStart = shift + node.startIndex + 4 + data.indexOf(inner[1]!);
        walk(parseDocument(inner[1]!, { withStartIndices: true, withEndIndices: true, recognizeSelfClosing: true, xmlMode: false }).children, innerStart);
      } else if ('children' in node) {
        walk((node as Document).children, shift);
      }
    }
  };
  walk(document.children, 0);

  // Which ids are unique, for selectors: worked out on the first selector asked for, not per parse.
  let uniqueIds: Set<string> | undefined;
  const uniqueIdsOf = () => {
    if (uniqueIds) return uniqueIds;
    const idCounts = new Map<string, number>();
    for (const element of elements) {
      const id = element.attribs['id'];
      if (id) idCounts.set(id, (idCounts.get(id) ?? 0) + 1);
    }
    return (uniqueIds = new Set([...idCounts].filter(([, n]) => n === 1).map(([id]) => id)));
  };

  const positionAt = (offset: number, selector = ''): SourcePosition => ({ ...lines.at(offset), absolute_index: offset, selector });
  return {
    html,
    document,
    lines,
    elements,
    positionAt,
    positionOf: (element) => positionAt((shifted.get(element) ?? 0) + (element.startIndex ?? 0), selectorOf(element, uniqueIdsOf())),
    offsetOf: (element) => (shifted.get(element) ?? 0) + (element.startIndex ?? 0),
  };
}
