import * as axe from 'axe-core';
import { JSDOM, VirtualConsole } from 'jsdom';
import { MAX_INSTANCES, titleOf, type A11yInstance, type A11yReport, type A11yRule } from './a11y-report';
import { checkEmailRules } from './email-rules';
import { wcagOf } from './wcag';

export type { A11yReport };

/**
 * Page and site rules that mean nothing in an inbox (an email has no landmarks, skip links or
 * regions of its own; the client's page around it does), turned off (contract §6.4).
 */
const OFF_IN_EMAIL = axe
  .getRules()
  .map((rule) => rule.ruleId)
  .filter((id) => id === 'region' || id === 'bypass' || id === 'skip-link' || id.startsWith('landmark-'));

/**
 * Rules that need the email drawn (boxes, sizes, what lies behind the text), which jsdom does not
 * do: whatever axe says of them here cannot be a pass. They are reported as needing review, never
 * as passed, with why in the reader's words instead of axe's verdict on sizes it could not measure.
 */
const NEEDS_LAYOUT = new Set(['color-contrast', 'color-contrast-enhanced', 'target-size', 'link-in-text-block', 'scrollable-region-focusable']);
const UNDRAWN = "This needs the email as drawn on screen (sizes, positions, what lies behind each element), and this check reads its HTML without drawing it: check it by eye in a preview.";

/**
 * Colour contrast needs a canvas and layout: in jsdom axe stops at the first text with "Axe
 * encountered an error". It is not asked; an email with text gets it under review, saying why.
 */
const CONTRAST = 'color-contrast';
const CONTRAST_UNDRAWN = "Whether text stands out from its background depends on the colours as drawn (inherited colours, background images, boxes behind the text), and this check reads the email's HTML without drawing it: check the contrast in a preview, at least 4.5:1 for body text and 3:1 for large text.";

/**
 * An email never opens over the page as a modal dialog (mail clients drop `position: fixed`), and
 * axe's test for one needs layout: asked here, it failed, and the page-level rules that pass when
 * a modal is open (a level-one heading, a main landmark) came back with an error, not a verdict.
 */
const NO_MODAL = { options: { passForModal: false } };

const RUN_OPTIONS = {
  rules: Object.fromEntries([...OFF_IN_EMAIL, CONTRAST].map((id) => [id, { enabled: false }])),
  checks: { 'page-has-heading-one': NO_MODAL, 'page-has-main': NO_MODAL },
  resultTypes: ['violations', 'incomplete', 'passes', 'inapplicable'],
};

/** axe's own id for a check it could not run; its message ("Axe encountered an error") is not for readers. */
const AXE_ERROR = 'error-occurred';

interface AxeWindow {
  axe: typeof axe;
}

/** jsdom reports what it does not implement (canvas, layout) on its console; none of it is ours to log. */
const silent = () => new VirtualConsole();

/** The source position of the element a result names: parse5's locations, kept by jsdom. */
function locate(dom: JSDOM, selector: string | undefined): { lineNumber: number | null; absoluteIndex: number | null } {
  if (!selector) return { lineNumber: null, absoluteIndex: null };
  let node: Node | null;
  try {
    node = dom.window.document.querySelector(selector);
  } catch {
    node = null;
  }
  // Elements the parser made up (an implied <tbody>, <head>, <body>) have no location: their parent does.
  for (; node; node = node.parentNode) {
    const location = dom.nodeLocation(node);
    if (location) return { lineNumber: location.startLine, absoluteIndex: location.startOffset };
  }
  return { lineNumber: null, absoluteIndex: null };
}

const messages = (checks: axe.CheckResult[]) => checks.map((check) => (check.id === AXE_ERROR ? UNDRAWN : check.message));

/** The rule as reported; `why`, when given, replaces axe's messages on every instance. */
function ruleOf(dom: JSDOM, result: axe.Result, withImpact: boolean, why?: string): A11yRule {
  const instances: A11yInstance[] = result.nodes.slice(0, MAX_INSTANCES).map((node) => {
    const target = node.target.map((t) => (Array.isArray(t) ? t.join(' ') : String(t)));
    return {
      correctAny: why ? [] : messages(node.any),
      correctAll: why ? [why] : [...new Set([...messages(node.all), ...messages(node.none)])],
      snippet: node.html,
      target,
      ...locate(dom, target[0]),
    };
  });
  return {
    rule: titleOf(result.id),
    id: result.id,
    ...(withImpact && result.impact ? { impact: result.impact } : {}),
    description: result.help,
    ...wcagOf(result.tags),
    instances,
    instance_count: result.nodes.length,
  };
}

const HIDDEN_TEXT = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'TITLE', 'HEAD']);

/** Whether the email shows any text: contrast is then worth a look. */
function hasText(dom: JSDOM): boolean {
  const document = dom.window.document;
  const walker = document.createTreeWalker(document.documentElement, dom.window.NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent?.trim()) continue;
    let hidden = false;
    for (let parent = node.parentElement; parent && !hidden; parent = parent.parentElement) hidden = HIDDEN_TEXT.has(parent.tagName);
    if (!hidden) return true;
  }
  return false;
}

/** Colour contrast under review for the whole email, as the rule axe was not asked to run. */
function contrastReview(dom: JSDOM): A11yRule | undefined {
  const body = dom.window.document.body;
  if (!body || !hasText(dom)) return undefined;
  const meta = axe.getRules().find((rule) => rule.ruleId === CONTRAST)!;
  const snippet = /^<body[^>]*>/i.exec(body.outerHTML)?.[0] ?? '<body>';
  return {
    rule: titleOf(CONTRAST),
    id: CONTRAST,
    impact: 'serious',
    description: meta.help,
    ...wcagOf(meta.tags),
    instances: [{ correctAny: [], correctAll: [CONTRAST_UNDRAWN], snippet, target: ['body'], ...locate(dom, 'body') }],
    instance_count: 1,
  };
}

/**
 * axe-core over a DOM of the email (jsdom; the email's own scripts never run and nothing is
 * fetched), with the email rules of email-rules.ts beside it. Each instance points at its element
 * in the HTML as given: line and character offset from the parser's source locations.
 */
export async function checkAccessibility(html: string): Promise<A11yReport> {
  const dom = new JSDOM(html, { includeNodeLocations: true, runScripts: 'outside-only', virtualConsole: silent() });
  try {
    dom.window.eval(axe.source);
    const engine = (dom.window as unknown as AxeWindow).axe;
    const results = await engine.run(dom.window.document, RUN_OPTIONS as axe.RunOptions);
    const failures = results.violations.map((r) => ruleOf(dom, r, true));
    const needsReview = results.incomplete.map((r) => ruleOf(dom, r, true, NEEDS_LAYOUT.has(r.id) ? UNDRAWN : undefined));
    const passes: A11yRule[] = [];
    for (const result of results.passes) {
      if (!NEEDS_LAYOUT.has(result.id)) passes.push(ruleOf(dom, result, false));
      else if (!needsReview.some((rule) => rule.id === result.id)) needsReview.push({ ...ruleOf(dom, result, true, UNDRAWN), impact: result.impact ?? 'serious' });
    }
    const contrast = contrastReview(dom);
    if (contrast) needsReview.push(contrast);
    const email = checkEmailRules(html);
    return {
      checks: passes.length + failures.length + needsReview.length + results.inapplicable.length + email.passes.length + email.failures.length + email.inapplicable,
      passes: [...passes, ...email.passes],
      failures: [...failures, ...email.failures],
      needs_review: needsReview,
    };
  } finally {
    dom.window.close();
  }
}
