import type { Element } from 'domhandler';
import { parseHtml, type HtmlSource } from '../common/html-source';
import { caniemailFeatures } from './caniemail-data';
import { CssFeatureDetector, type FeatureHit } from './css-features';
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
const ATTRIBUTE_SLUGS: Readonly<Record<string, string>> = { loading: 'html-loading-attribute', inert: 'css-inert-attribute' };

function elementSlugs(element: Element, known: ReadonlySet<string>): string[] {
  const name = element.name.toLowerCase();
  const slugs: string[] = [];
  const own = ELEMENT_GROUPS[name] ?? `html-${name}`;
  if (known.has(own)) slugs.push(own);
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
  for (const attribute of Object.keys(attribs)) {
    const lower = attribute.toLowerCase();
    // `html-style` is the <style> element; a style attribute's CSS is analysed as CSS.
    if (lower === 'style') continue;
    slugs.push(ATTRIBUTE_SLUGS[lower] ?? `html-${lower}`);
  }
  return slugs.filter((slug) => known.has(slug));
}

/** Where a `style` attribute's value starts, found in the element's start tag as written. */
function styleValueStart(source: HtmlSource, elementOffset: number): number | undefined {
  const tagEnd = source.html.indexOf('>', elementOffset);
  const tag = source.html.slice(elementOffset, tagEnd === -1 ? undefined : tagEnd);
  const match = /\sstyle\s*=\s*(["']?)/i.exec(tag);
  return match ? elementOffset + match.index + match[0].length : undefined;
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
  const source = parseHtml(html);
  const hits: FeatureHit[] = [];
  if (/^\s*<!doctype/i.test(html)) hits.push({ slug: 'html-doctype', offset: html.search(/<!doctype/i) });
  for (const element of source.elements) {
    const at = source.offsetOf(element);
    // A conditional comment's elements carry offsets into the comment; CSS inside them is left out.
    const inComment = at !== element.startIndex;
    for (const slug of elementSlugs(element, known)) hits.push({ slug, offset: at });
    const style = element.attribs['style'];
    if (style && !inComment) {
      const start = styleValueStart(source, at);
      if (start !== undefined) {
        const { line, column } = source.lines.at(start);
        hits.push(...css.detect(style, 'declarationList', start, line, column));
      }
    }
    if (element.name === 'style' && !inComment) {
      const first = element.children[0];
      const text = element.children.map((child) => ('data' in child ? String(child.data) : '')).join('');
      const start = first?.startIndex ?? at;
      const { line, column } = source.lines.at(start);
      hits.push(...css.detect(text, 'stylesheet', start, line, column));
    }
    const background = element.attribs['background'];
    if (background) for (const slug of imageSlugs(background)) hits.push({ slug, offset: at });
  }
  const bySlug = new Map<string, Set<number>>();
  for (const hit of hits) {
    let offsets = bySlug.get(hit.slug);
    if (!offsets) bySlug.set(hit.slug, (offsets = new Set()));
    offsets.add(hit.offset);
  }
  return [...bySlug]
    .map(([slug, offsets]) => ({
      slug,
      instances: [...offsets].sort((a, b) => a - b).map((offset) => ({ ...source.lines.at(offset), absolute_index: offset })),
    }))
    .sort((a, b) => a.instances[0]!.absolute_index - b.instances[0]!.absolute_index);
}
