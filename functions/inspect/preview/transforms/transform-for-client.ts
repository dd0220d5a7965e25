import render from 'dom-serializer';
import type { AnyNode, ChildNode, Comment, Element, ParentNode } from 'domhandler';
import { append, findAll, prependChild, removeElement } from 'domutils';
import { parseDocument } from 'htmlparser2';
import * as csstree from 'css-tree';
import type { PreviewClient } from '../clients';
import { knownSlugs, supportIn } from './client-support';
import { CssFilter } from './css-filter';
import { PROFILES, type ClientProfile } from './profiles';
import { TransformLog } from './transform-log';

export interface TransformedEmail {
  html: string;
  /** What was changed and why, for the result's `applied` list. */
  applied: string[];
}

/** Elements caniemail rates on their own: removed where the client does not support them. */
const ELEMENT_FEATURES: Readonly<Record<string, string>> = {
  svg: 'html-svg',
  video: 'html-video',
  audio: 'html-audio',
  form: 'html-form',
  object: 'html-object',
  dialog: 'html-dialog',
  marquee: 'html-marquee',
  progress: 'html-progress',
  meter: 'html-meter',
  select: 'html-select',
  textarea: 'html-textarea',
  style: 'html-style',
  link: 'html-link',
};
/** Elements whose children are their fallback: the children stay when the element goes. */
const FALLBACK_CONTAINERS = new Set(['video', 'audio', 'object', 'picture']);
const FALLBACK_SKIPPED = new Set(['source', 'track', 'param']);

const PARSE = { lowerCaseAttributeNames: false, recognizeSelfClosing: true } as const;

let known: ReadonlySet<string> | undefined;

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script' || node.type === 'style';
const textOf = (element: Element) => element.children.map((child) => ('data' in child ? child.data : '')).join('');

function setText(element: Element, css: string): void {
  const [first] = element.children;
  if (first && 'data' in first) {
    first.data = css;
    element.children = [first];
  }
}

/** Puts `nodes` where `at` is, then removes `at`. */
function replaceWith(at: ChildNode, nodes: ChildNode[]): void {
  let previous: ChildNode = at;
  for (const node of nodes) {
    append(previous, node);
    previous = node;
  }
  removeElement(at);
}

function insideBody(element: Element): boolean {
  for (let node: ParentNode | null = element.parent; node; node = node.parent) if (isElement(node as AnyNode) && (node as Element).name === 'body') return true;
  return false;
}

/**
 * Outlook's conditional comments: the content of `<!--[if mso]>…<![endif]-->` is shown (parsed
 * from the comment), what sits between `<!--[if !mso]><!-->` and `<!--<![endif]-->` is hidden, and
 * VML shapes, which no browser draws, are unwrapped to the text they hold.
 */
function applyMsoConditionals(root: ParentNode, log: TransformLog): void {
  const walk = (parent: ParentNode) => {
    let hiding = false;
    for (const node of [...parent.children]) {
      if (node.type === 'comment') {
        const data = (node as Comment).data;
        const shown = /^\[if ([^\]]*)\]>([\s\S]*)<!\[endif\]$/.exec(data);
        if (shown && /\bmso\b/.test(shown[1]!) && !/!\s*mso/.test(shown[1]!)) {
          const content = parseDocument(shown[2]!, PARSE).children as ChildNode[];
          replaceWith(node, content);
          log.removed('Outlook-only content of <!--[if mso]> comments shown');
          continue;
        }
        if (/^\[if [^\]]*!\s*mso[^\]]*\]><!$/.test(data)) {
          hiding = true;
          removeElement(node);
          continue;
        }
        if (hiding && data.trim() === '<![endif]') {
          hiding = false;
          removeElement(node);
          continue;
        }
      }
      if (hiding) {
        removeElement(node);
        log.removed('content for other clients (<!--[if !mso]>) hidden');
        continue;
      }
      if ('children' in node) walk(node as ParentNode);
    }
  };
  walk(root);
  for (const shape of findAll((el) => /^[vo]:/i.test(el.name), root.children).reverse()) {
    replaceWith(shape, [...shape.children]);
    log.removed('VML shapes unwrapped to their text (a browser cannot draw VML)');
  }
}

function filterStyles(root: ParentNode, profile: ClientProfile, filter: CssFilter, log: TransformLog): void {
  for (const style of findAll((el) => el.name === 'style', root.children)) {
    if (profile.dropBodyStyles && insideBody(style)) {
      removeElement(style);
      log.removed('<style> inside <body> removed');
      continue;
    }
    const css = textOf(style);
    if (profile.styleBlockLimit !== undefined) {
      let broken = false;
      try {
        csstree.parse(css, { onParseError: () => (broken = true) });
      } catch {
        broken = true;
      }
      if (css.length > profile.styleBlockLimit || broken) {
        removeElement(style);
        log.removed(broken ? '<style> block with a CSS error removed whole' : `<style> block over ${profile.styleBlockLimit / 1024} KB removed whole`);
        continue;
      }
    }
    setText(style, filter.filter(css, 'stylesheet'));
  }
  for (const element of findAll((el) => el.attribs['style'] !== undefined, root.children)) {
    const filtered = filter.filter(element.attribs['style']!, 'declarationList');
    if (filtered) element.attribs['style'] = filtered;
    else delete element.attribs['style'];
  }
  const prefix = profile.css.classPrefix;
  if (prefix) {
    let renamed = 0;
    for (const element of findAll((el) => Boolean(el.attribs['class']), root.children)) {
      element.attribs['class'] = element.attribs['class']!.split(/\s+/).filter(Boolean).map((name) => `${prefix}${name}`).join(' ');
      renamed++;
    }
    if (renamed) log.removed(`class names prefixed with ${prefix}`, renamed);
  }
}

function removeElements(root: ParentNode, profile: ClientProfile, client: PreviewClient, support: ReturnType<typeof supportIn>, log: TransformLog): void {
  for (const element of findAll((el) => isElement(el), root.children).reverse()) {
    const name = element.name.toLowerCase();
    if (profile.dropElements.includes(name) && !(name === 'link' && !/stylesheet/i.test(element.attribs['rel'] ?? ''))) {
      removeElement(element);
      log.removed(`<${name}> removed (${client.client} strips it)`);
      continue;
    }
    const slug = ELEMENT_FEATURES[name];
    const verdict = slug ? support.get(slug) : undefined;
    if (verdict?.level === 'n') {
      if (FALLBACK_CONTAINERS.has(name)) replaceWith(element, element.children.filter((child) => !(isElement(child) && FALLBACK_SKIPPED.has(child.name))));
      else removeElement(element);
      log.removed(`<${name}> removed: ${verdict.name} is not supported in ${client.client} (caniemail)`);
    } else if (verdict?.level === 'a') {
      log.note(`partial support of ${verdict.name} in ${client.client} (caniemail${verdict.notes.length ? `: ${verdict.notes.join(' ')}` : ''})`);
    }
  }
  if (support.get('html-srcset')?.level === 'n') {
    for (const element of findAll((el) => el.attribs['srcset'] !== undefined, root.children)) {
      delete element.attribs['srcset'];
      log.removed(`srcset ignored (not supported in ${client.client}, caniemail)`);
    }
  }
}

/** Dark mode as the client applies it: a colour-scheme switch the email may answer, or an inversion it cannot. */
function darkMode(root: ParentNode, profile: ClientProfile, log: TransformLog): void {
  const css =
    profile.darkMode === 'invert'
      ? // The page is inverted and photos inverted back, as the apps' "full invert" does.
        'html{filter:invert(1) hue-rotate(180deg);background:#fff}img,picture,video,[background],[style*="background-image"]{filter:invert(1) hue-rotate(180deg)}'
      : // The client's own dark canvas and text where the email sets none; the email's prefers-color-scheme rules apply.
        ':root{color-scheme:light dark}';
  const head = findAll((el) => el.name === 'head', root.children)[0];
  const style = parseDocument(`<style data-preview-dark>${css}</style>`, PARSE).children[0] as ChildNode;
  if (head) prependChild(head, style);
  else prependChild(root, style);
  log.removed(profile.darkMode === 'invert' ? 'dark mode: colours inverted, images kept (the client forces dark mode on light emails)' : 'dark mode: prefers-color-scheme dark, the client\'s dark canvas where the email sets no colours');
}

/** Cuts the message where the client does, with its marker (Gmail's "[Message clipped]"). */
function clip(html: string, limit: number, log: TransformLog): string {
  if (Buffer.byteLength(html) <= limit) return html;
  let cut = Buffer.from(html).subarray(0, limit).toString('utf8');
  const lastTag = cut.lastIndexOf('<');
  if (lastTag > cut.lastIndexOf('>')) cut = cut.slice(0, lastTag);
  log.removed(`message clipped after ${limit / 1024} KB, as the client does`);
  return `${cut}<div style="font:13px Arial,sans-serif;color:#222;padding:12px 0">[Message clipped]&nbsp;&nbsp;<a href="#">View entire message</a></div>`;
}

/**
 * The email as `client` would hand it to its renderer: caniemail's unsupported features removed,
 * the client's documented quirks applied, dark mode emulated for `_dm` clients. Everything done is
 * listed in `applied`.
 */
export function transformForClient(html: string, client: PreviewClient): TransformedEmail {
  const profile = PROFILES[client.profile];
  const support = supportIn(client.caniemail);
  const log = new TransformLog();
  known ??= knownSlugs();
  const document = parseDocument(html, PARSE);
  if (profile.msoConditionals) applyMsoConditionals(document, log);
  removeElements(document, profile, client, support, log);
  filterStyles(document, profile, new CssFilter(known, support, profile.css, log, client.client), log);
  if (client.dark) darkMode(document, profile, log);
  let out = render(document, { decodeEntities: false, encodeEntities: false });
  if (profile.clipBytes) out = clip(out, profile.clipBytes, log);
  return { html: out, applied: log.entries() };
}
