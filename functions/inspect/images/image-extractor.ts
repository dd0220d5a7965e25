import * as csstree from 'css-tree';
import type { Element } from 'domhandler';
import { parseHtml, type HtmlSource } from '../common/html-source';

/** An image an email shows, where it sits, and what the HTML says about it. */
export interface ImageRef {
  url: string;
  line: number;
  column: number;
  selector: string;
  absolute_index: number;
  /** The alt text; null when the attribute is absent (only `<img>` and VML have one). */
  alt?: string | null;
  declaredWidth?: number;
  declaredHeight?: number;
  /** Whether the element says its width and height (Outlook otherwise shows the intrinsic size). */
  hasDimensionAttributes?: boolean;
  source: 'img' | 'background-attribute' | 'css-background' | 'vml';
}

const BACKGROUND_PROPERTIES = new Set(['background', 'background-image']);

function pixels(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /^\s*(\d+(?:\.\d+)?)\s*(px)?\s*$/i.exec(value);
  return match ? Math.round(Number(match[1])) : undefined;
}

/** The offset in the document where an attribute's value starts, from the element's start tag text. */
function attributeValueOffset(html: string, element: Element, name: string): number | undefined {
  if (element.startIndex === null) return undefined;
  const tagEnd = html.indexOf('>', element.startIndex);
  const tag = html.slice(element.startIndex, tagEnd === -1 ? undefined : tagEnd);
  const match = new RegExp(`\\s${name}\\s*=\\s*(["']?)`, 'i').exec(tag);
  return match ? element.startIndex + match.index + match[0].length : undefined;
}

/** `url(...)` values of background declarations in a CSS text that starts at `offset` in the document. */
function cssBackgroundUrls(css: string, context: 'stylesheet' | 'declarationList', offset: number, source: HtmlSource): Array<{ url: string; offset: number }> {
  const start = source.lines.at(offset);
  let ast: csstree.CssNode;
  try {
    ast = csstree.parse(css, { context, positions: true, offset, line: start.line, column: start.column, parseValue: true, parseRulePrelude: false });
  } catch {
    return [];
  }
  const found: Array<{ url: string; offset: number }> = [];
  csstree.walk(ast, {
    visit: 'Declaration',
    enter(declaration: csstree.Declaration) {
      if (!BACKGROUND_PROPERTIES.has(declaration.property.toLowerCase())) return;
      csstree.walk(declaration.value, {
        visit: 'Url',
        enter(node: csstree.Url) {
          found.push({ url: node.value, offset: node.loc?.start.offset ?? declaration.loc?.start.offset ?? offset });
        },
      });
    },
  });
  return found;
}

/**
 * Every image of an email in document order: `<img src>`, `background` attributes, background
 * images in inline styles and `<style>` blocks, and VML fills and images in Outlook's conditional
 * comments. `data:` URIs are kept; the analyser decodes them.
 */
export function extractImages(html: string): ImageRef[] {
  const source = parseHtml(html);
  const refs: ImageRef[] = [];
  const add = (element: Element, url: string, kind: ImageRef['source'], offset?: number, extra: Partial<ImageRef> = {}) => {
    const url_ = url.trim();
    if (!url_) return;
    const position = source.positionOf(element);
    // Offsets inside a conditional comment are the comment's own: there the element's position stands.
    const inComment = position.absolute_index !== element.startIndex;
    refs.push({ url: url_, ...(offset === undefined || inComment ? position : source.positionAt(offset, position.selector)), source: kind, ...extra });
  };
  for (const element of source.elements) {
    const attribs = element.attribs;
    const style = attribs['style'];
    const styleWidth = style ? pixels(/(?:^|;)\s*width\s*:\s*([^;]+)/i.exec(style)?.[1]) : undefined;
    const styleHeight = style ? pixels(/(?:^|;)\s*height\s*:\s*([^;]+)/i.exec(style)?.[1]) : undefined;
    if (element.name === 'img' && attribs['src'] !== undefined) {
      add(element, attribs['src'], 'img', undefined, {
        alt: attribs['alt'] ?? null,
        declaredWidth: pixels(attribs['width']) ?? styleWidth,
        declaredHeight: pixels(attribs['height']) ?? styleHeight,
        hasDimensionAttributes: attribs['width'] !== undefined && attribs['height'] !== undefined,
      });
    }
    if ((element.name === 'v:fill' || element.name === 'v:image') && attribs['src']) add(element, attribs['src'], 'vml', undefined, { alt: attribs['alt'] ?? null });
    if (attribs['background']) add(element, attribs['background'], 'background-attribute', attributeValueOffset(html, element, 'background'), { declaredWidth: pixels(attribs['width']) ?? styleWidth });
    if (style && /url\(/i.test(style)) {
      const at = attributeValueOffset(html, element, 'style') ?? element.startIndex ?? 0;
      for (const found of cssBackgroundUrls(style, 'declarationList', at, source)) add(element, found.url, 'css-background', found.offset, { declaredWidth: pixels(attribs['width']) ?? styleWidth });
    }
    if (element.name === 'style') {
      const text = element.children.map((child) => ('data' in child ? String(child.data) : '')).join('');
      const first = element.children[0];
      const at = first?.startIndex ?? element.startIndex ?? 0;
      if (/url\(/i.test(text)) for (const found of cssBackgroundUrls(text, 'stylesheet', at, source)) add(element, found.url, 'css-background', found.offset);
    }
  }
  return refs;
}
