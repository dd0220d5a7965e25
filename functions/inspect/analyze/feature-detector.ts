import type { Element } from 'domhandler';
import { parseHtml } from '../common/html-source';
import { caniemailFeatures } from './caniemail-data';
import { CssFeatureDetector } from './css-features';
import { imageSlugs } from './image-formats';

/** A feature found in an email, with every place it occurs. */
export interface DetectedFeature {
  slug: string;
  instances: Array<{ line: number; column: number; absolute_index: number }>;
}

/**
 * Elements caniemail tests under another name than `html-<tag>`. Every other element is looked up
 * as `html-<tag>` in the data set (html-img, html-table, html-video, ...).
 */
const ELEMENT_GROUPS: Readonly<Record<string, string>> = {
  h1: 'html-h1-h6',
  h2: 'html-h1-h6',
  h3: 'html-h1-h6',
  h4: 'html-h1-h6',
  h5: 'html-h1-h6',
  h6: 'html-h1-h6',
  ul: 'html-lists',
  ol: 'html-lists',
  dl: 'html-lists',
  map: 'html-image-maps',
  s: 'html-strike',
  article: 'html-semantics',
  aside: 'html-semantics',
  details: 'html-semantics',
  figcaption: 'html-semantics',
  figure: 'html-semantics',
  footer: 'html-semantics',
  header: 'html-semantics',
  main: 'html-semantics',
  mark: 'html-semantics',
  nav: 'html-semantics',
  section: 'html-semantics',
  summary: 'html-semantics',
  time: 'html-semantics',
};

/** Attributes caniemail tests under another name than `html-<attribute>`. */
const ATTRIBUTE_SLUGS: Readonly<Record<string, string>> = { loading: 'html-loading-attribute', inert: 'css-inert-attribute', '⚡4email': 'amp', amp4email: 'amp' };

/** HTML comments, but not Outlook's conditional ones (`<!--[if mso]>`, `<!--<![endif]-->`), which are markup. */
const HTML_COMMENT = /<!--(?!\[if|<!\[endif\])/g;

/** Element and attribute names to their slugs, remembered: an email repeats a few dozen names. */
class HtmlSlugs {
  private readonly elements = new Map<string, string | undefined>();
  private readonly attributes = new Map<string, string | undefined>();

  constructor(private readonly known: ReadonlySet<string>) {}

  private element(name: string): string | undefined {
    if (!this.elements.has(name)) {
      const slug = ELEMENT_GROUPS[name] ?? `html-${name}`;
      this.elements.set(name, this.known.has(slug) ? slug : undefined);
    }
    return this.elements.get(name);
  }

  private attribute(name: string): string | undefined {
    if (!this.attributes.has(name)) {
      const lower = name.toLowerCase();
      // `html-style` is the <style> element; a style attribute's CSS is analysed as CSS.
      const slug = lower === 'style' ? undefined : (ATTRIBUTE_SLUGS[lower] ?? `html-${lower}`);
      this.attributes.set(name, slug && this.known.has(slug) ? slug : undefined);
    }
    return this.attributes.get(name);
  }

  of(element: Element): string[] {
    const name = element.name.toLowerCase();
    const slugs: string[] = [];
    const own = this.element(name);
    if (own) slugs.push(own);
    const attribs = element.attribs;
    const type = attribs['type']?.toLowerCase();
    if (name === 'input' && type) slugs.push(`html-input-${type}`);
    if (name === 'button') slugs.push(`html-button-${type ?? 'submit'}`);
    if (name === 'a') {
      const href = attribs['href']?.trim().toLowerCase() ?? '';
      if (href.startsWith('#')) slugs.push('html-anchor-links');
      if (href.startsWith('mailto:')) slugs.push('html-mailto-links');
    }
    if (name === 'meta' && attribs['name']?.toLowerCase() === 'color-scheme') slugs.push('html-meta-color-scheme');
    if (name === 'img' && attribs['src']) slugs.push(...imageSlugs(attribs['src']));
    for (const attribute in attribs) {
      const slug = this.attribute(attribute);
      if (slug) slugs.push(slug);
    }
    return slugs.filter((slug) => this.known.has(slug));
  }
}

/** Finds `style=` inside a start tag; searched from the tag's offset, not on a copy of it. */
const STYLE_ATTRIBUTE = /\sstyle\s*=\s*["']?/gi;

/** Where a `style` attribute's value starts, found in the element's start tag as written. */
function styleValueStart(html: string, elementOffset: number): number | undefined {
  const tagEnd = html.indexOf('>', elementOffset);
  STYLE_ATTRIBUTE.lastIndex = elementOffset;
  const match = STYLE_ATTRIBUTE.exec(html);
  return match && (tagEnd === -1 || match.index < tagEnd) ? match.index + match[0].length : undefined;
}

/**
 * The caniemail features an email uses, each with every occurrence: elements and attributes
 * (htmlparser2, Outlook's conditional comments included), CSS in `<style>` blocks and `style`
 * attributes alike (css-tree), images by format. Positions are the HTML's own, from the parsers'
 * source locations.
 */
export function detectFeatures(html: string): DetectedFeature[] {
  const known = new Set(caniemailFeatures().keys());
  const css = new CssFeatureDetector(known);
  const htmlSlugs = new HtmlSlugs(known);
  const source = parseHtml(html);
  const found = new Map<string, number[]>();
  // Builders repeat the same inline styles hundreds of times: each distinct one is parsed once, its
  // features kept at offsets relative to the attribute value, then placed at every occurrence.
  const inlineStyles = new Map<string, Array<[string, number]>>();
  const inlineStyleFeatures = (style: string) => {
    let features = inlineStyles.get(style);
    if (!features) {
      const collected: Array<[string, number]> = [];
      css.detect(style, 'declarationList', 0, 1, 1, (slug, offset) => collected.push([slug, offset]));
      inlineStyles.set(style, (features = collected));
    }
    return features;
  };
  const sink = (slug: string, offset: number) => {
    const offsets = found.get(slug);
    if (offsets) offsets.push(offset);
    else found.set(slug, [offset]);
  };
  if (/^\s*<!doctype/i.test(html)) sink('html-doctype', html.search(/<!doctype/i));
  for (const match of html.matchAll(HTML_COMMENT)) sink('html-comments', match.index);
  for (const element of source.elements) {
    const at = source.offsetOf(element);
    // A conditional comment's elements carry offsets into the comment; CSS inside them is left out.
    const inComment = at !== element.startIndex;
    for (const slug of htmlSlugs.of(element)) sink(slug, at);
    const style = element.attribs['style'];
    if (style && !inComment) {
      const start = styleValueStart(html, at);
      if (start !== undefined) for (const [slug, offset] of inlineStyleFeatures(style)) sink(slug, start + offset);
    }
    if (element.name === 'style' && !inComment) {
      const first = element.children[0];
      const text = element.children.map((child) => ('data' in child ? String(child.data) : '')).join('');
      const start = first?.startIndex ?? at;
      const { line, column } = source.lines.at(start);
      css.detect(text, 'stylesheet', start, line, column, sink);
    }
    const background = element.attribs['background'];
    if (background) for (const slug of imageSlugs(background)) sink(slug, at);
  }
  const features: DetectedFeature[] = [];
  for (const [slug, offsets] of found) {
    offsets.sort((a, b) => a - b);
    const instances: DetectedFeature['instances'] = [];
    // One instance per place: the same feature twice at one offset (a repeated attribute) is one occurrence.
    offsets.forEach((offset, i) => {
      if (i > 0 && offsets[i - 1] === offset) return;
      const { line, column } = source.lines.at(offset);
      instances.push({ line, column, absolute_index: offset });
    });
    features.push({ slug, instances });
  }
  return features.sort((a, b) => a.instances[0]!.absolute_index - b.instances[0]!.absolute_index);
}
