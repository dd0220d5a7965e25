import type { Element } from 'domhandler';
import { parseHtml, type HtmlSource } from '../common/html-source';
import { MAX_INSTANCES, type A11yInstance, type A11yRule } from './a11y-report';
import { wcagOf } from './wcag';

/**
 * Checks that matter in an inbox and that axe-core cannot make on a web page's terms (contract
 * §6.4, after Parcel's checker): clients drop the `<html>` element, so language and direction must
 * sit on a wrapper inside `<body>`; layout tables must say they are presentation; and Outlook's VML
 * (inside `<!--[if mso]>` comments, which a DOM keeps as comments, out of axe's reach) needs alt
 * text, and must not carry links or headings. They run on the source itself, so positions are exact.
 */

interface EmailRule {
  id: string;
  name: string;
  impact: NonNullable<A11yRule['impact']>;
  description: string;
  tags: string[];
  /** The elements the rule applies to, and the problem with each (undefined: it passes). */
  evaluate(source: HtmlSource): Array<{ element: Element; problem?: string }>;
}

const isVml = (element: Element) => element.name.startsWith('v:');
const VML_SHAPES = new Set(['v:rect', 'v:roundrect', 'v:oval', 'v:shape', 'v:image']);

function ancestors(element: Element): Element[] {
  const out: Element[] = [];
  for (let node = element.parent; node && 'name' in node; node = node.parent) out.push(node as Element);
  return out;
}

/** body, then while there is exactly one element inside, that element: the email's wrappers. */
function wrapperChain(source: HtmlSource): Element[] {
  const body = source.elements.find((e) => e.name === 'body');
  const chain: Element[] = [];
  let current: Element | undefined = body;
  while (current) {
    const children: Element[] = current.children.filter((c): c is Element => c.type === 'tag');
    const meaningful = children.filter((c) => !['style', 'script', 'meta', 'link', 'title'].includes(c.name));
    if (current !== body) chain.push(current);
    current = meaningful.length === 1 ? meaningful[0] : undefined;
  }
  return chain;
}

/** Whether an element wrapping the whole email carries `attribute`: one verdict, on the outermost wrapper. */
function wrapperAttribute(source: HtmlSource, attribute: string, fix: string): Array<{ element: Element; problem?: string }> {
  const body = source.elements.find((e) => e.name === 'body');
  if (!body) return [];
  const chain = wrapperChain(source);
  const ok = chain.some((e) => e.attribs[attribute]?.trim());
  return [{ element: chain[0] ?? body, problem: ok ? undefined : fix }];
}

const RULES: EmailRule[] = [
  {
    id: 'email-content-lang',
    name: 'Content Language',
    impact: 'serious',
    description: 'Email clients drop the <html> element, so the language must be set on a wrapper inside <body>, or screen readers read the email in the reader\'s own language.',
    tags: ['wcag2a', 'wcag311'],
    evaluate: (source) => wrapperAttribute(source, 'lang', 'Add lang="..." to the element that wraps the whole email inside <body>'),
  },
  {
    id: 'email-content-dir',
    name: 'Content Direction',
    impact: 'serious',
    description: 'Email clients drop the <html> element, so the text direction (dir="ltr" or "rtl") must be set on a wrapper inside <body>.',
    tags: ['best-practice'],
    evaluate: (source) => wrapperAttribute(source, 'dir', 'Add dir="ltr" (or "rtl") to the element that wraps the whole email inside <body>'),
  },
  {
    id: 'email-layout-table',
    name: 'Layout Table Role',
    impact: 'serious',
    description: 'A table used for layout is read cell by cell, with row and column counts, unless it has role="presentation".',
    tags: ['wcag2a', 'wcag131'],
    evaluate(source) {
      return source.elements
        .filter((e) => e.name === 'table')
        .map((table) => {
          const role = table.attribs['role']?.trim().toLowerCase();
          const isData = source.elements.some((e) => (e.name === 'th' || e.name === 'caption') && ancestors(e).find((a) => a.name === 'table') === table);
          if (isData) return { element: table };
          return { element: table, problem: role === 'presentation' || role === 'none' ? undefined : 'Add role="presentation" to this layout table' };
        });
    },
  },
  {
    id: 'email-vml-alt',
    name: 'VML Alt',
    impact: 'critical',
    description: 'VML shapes and images that Outlook shows need alt text, as images do.',
    tags: ['wcag2a', 'wcag111'],
    evaluate(source) {
      return source.elements
        .filter((e) => VML_SHAPES.has(e.name) && (e.name === 'v:image' || e.attribs['href'] !== undefined || e.children.some((c) => c.type === 'tag' && (c as Element).name === 'v:fill')))
        .map((element) => ({ element, problem: element.attribs['alt']?.trim() ? undefined : 'Add alt="..." saying what the shape shows or where it leads' }));
    },
  },
  {
    id: 'email-vml-link',
    name: 'VML Link',
    impact: 'critical',
    description: 'A link on a VML shape (a "bulletproof" button) cannot be reached with the keyboard in Outlook.',
    tags: ['wcag2a', 'wcag211'],
    evaluate(source) {
      return source.elements.filter((e) => isVml(e) && e.attribs['href'] !== undefined).map((element) => ({ element, problem: 'Put the link on an <a> inside the shape\'s <v:textbox> (or <center>) instead of on the shape' }));
    },
  },
  {
    id: 'email-vml-heading',
    name: 'VML Heading',
    impact: 'moderate',
    description: 'Headings inside VML are not announced as headings in Outlook.',
    tags: ['best-practice'],
    evaluate(source) {
      return source.elements.filter((e) => /^h[1-6]$/.test(e.name) && ancestors(e).some(isVml)).map((element) => ({ element, problem: 'Move the heading out of the VML shape' }));
    },
  },
];

function instanceOf(source: HtmlSource, element: Element, message: string): A11yInstance {
  const position = source.positionOf(element);
  const tagEnd = source.html.indexOf('>', position.absolute_index);
  const snippet = source.html.slice(position.absolute_index, tagEnd === -1 ? position.absolute_index + 200 : Math.min(tagEnd + 1, position.absolute_index + 300));
  return { correctAny: [], correctAll: [message], snippet, target: [position.selector], lineNumber: position.line, absoluteIndex: position.absolute_index };
}

export interface EmailRuleResults {
  passes: A11yRule[];
  failures: A11yRule[];
  inapplicable: number;
}

export function checkEmailRules(html: string): EmailRuleResults {
  const source = parseHtml(html);
  const out: EmailRuleResults = { passes: [], failures: [], inapplicable: 0 };
  for (const rule of RULES) {
    const verdicts = rule.evaluate(source);
    if (!verdicts.length) {
      out.inapplicable++;
      continue;
    }
    const failing = verdicts.filter((v) => v.problem);
    const base = { rule: rule.name, id: rule.id, description: rule.description, ...wcagOf(rule.tags) };
    if (failing.length) {
      out.failures.push({ ...base, impact: rule.impact, instances: failing.slice(0, MAX_INSTANCES).map((v) => instanceOf(source, v.element, v.problem!)), instance_count: failing.length });
    } else {
      out.passes.push({ ...base, instances: verdicts.slice(0, MAX_INSTANCES).map((v) => ({ ...instanceOf(source, v.element, ''), correctAll: [] })), instance_count: verdicts.length });
    }
  }
  return out;
}
