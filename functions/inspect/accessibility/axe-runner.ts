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
 * Rules that need layout, which jsdom does not compute (no boxes, no rendering): whatever axe says
 * of them here cannot be a pass. They are reported as needing review, never as passed.
 */
const NEEDS_LAYOUT = new Set(['color-contrast', 'color-contrast-enhanced', 'target-size', 'link-in-text-block', 'scrollable-region-focusable']);

const RUN_OPTIONS = {
  rules: Object.fromEntries(OFF_IN_EMAIL.map((id) => [id, { enabled: false }])),
  resultTypes: ['violations', 'incomplete', 'passes', 'inapplicable'],
};

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

const messages = (checks: axe.CheckResult[]) => checks.map((check) => check.message);

function ruleOf(dom: JSDOM, result: axe.Result, withImpact: boolean): A11yRule {
  const instances: A11yInstance[] = result.nodes.slice(0, MAX_INSTANCES).map((node) => {
    const target = node.target.map((t) => (Array.isArray(t) ? t.join(' ') : String(t)));
    return {
      correctAny: messages(node.any),
      correctAll: [...messages(node.all), ...messages(node.none)],
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
    const needsReview = results.incomplete.map((r) => ruleOf(dom, r, true));
    const passes: A11yRule[] = [];
    for (const result of results.passes) {
      if (!NEEDS_LAYOUT.has(result.id)) passes.push(ruleOf(dom, result, false));
      else if (!needsReview.some((rule) => rule.id === result.id)) needsReview.push({ ...ruleOf(dom, result, true), impact: result.impact ?? 'serious' });
    }
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
