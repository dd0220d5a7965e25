import { checkAccessibility } from '../../../functions/inspect/accessibility/axe-runner';
import type { A11yReport, A11yRule } from '../../../functions/inspect/accessibility/a11y-report';

// axe-core on jsdom with the email rules beside it: a known-bad email fails what it should, at the
// lines where the faults are; a well-made one has no serious or critical failure.
const BAD = [
  '<!doctype html>',
  '<html><head><title>Sale</title></head>',
  '<body>',
  '<table width="600"><tr><td>',
  '<img src="https://x.example/hero.jpg" width="600">',
  '<a href="https://x.example/"></a>',
  '<h1>Sale</h1><h4>Skipped levels</h4>',
  '<p style="color:#999;background:#aaa">Faint text</p>',
  '<!--[if mso]><v:roundrect href="https://x.example/buy" style="width:200px"><v:fill color="#f00"/></v:roundrect><![endif]-->',
  '</td></tr></table>',
  '</body></html>',
].join('\n');

const GOOD = [
  '<!doctype html>',
  '<html lang="en"><head><title>Sale</title></head>',
  '<body>',
  '<div lang="en" dir="ltr">',
  '<table role="presentation" width="600"><tr><td>',
  '<h1>Spring sale</h1>',
  '<img src="https://x.example/hero.jpg" alt="Spring flowers" width="600" height="300">',
  '<p style="color:#000;background:#fff">Everything 20% off.</p>',
  '<a href="https://x.example/">Shop the sale</a>',
  '</td></tr></table>',
  '</div>',
  '</body></html>',
].join('\n');

let bad: A11yReport;
let good: A11yReport;
beforeAll(async () => {
  [bad, good] = await Promise.all([checkAccessibility(BAD), checkAccessibility(GOOD)]);
});

const byId = (rules: A11yRule[], id: string) => rules.find((r) => r.id === id);

describe('a known-bad email', () => {
  it('fails alt text, link names, heading order, language and layout tables, each at its source line', () => {
    const image = byId(bad.failures, 'image-alt')!;
    expect(image).toMatchObject({ rule: 'Image Alt', impact: 'critical', standards: expect.arrayContaining(['WCAG 2A']), compliance: ['1.1.1 Non-text Content'], pour: ['Perceivable'] });
    expect(image.instances[0]).toMatchObject({ lineNumber: 5, absoluteIndex: BAD.indexOf('<img'), snippet: expect.stringContaining('hero.jpg') });
    expect(image.instances[0]!.correctAny).toEqual(expect.arrayContaining(['Element does not have an alt attribute']));
    expect(byId(bad.failures, 'link-name')!.instances[0]!.lineNumber).toBe(6);
    expect(byId(bad.failures, 'heading-order')!.instances[0]!.lineNumber).toBe(7);
    expect(byId(bad.failures, 'email-layout-table')).toMatchObject({ impact: 'serious', instances: [expect.objectContaining({ lineNumber: 4 })] });
    expect(byId(bad.failures, 'email-content-lang')).toBeDefined();
    expect(byId(bad.failures, 'email-content-dir')).toBeDefined();
  });

  it('checks Outlook\'s VML inside conditional comments: alt text and keyboard-unreachable links', () => {
    expect(byId(bad.failures, 'email-vml-alt')).toMatchObject({ impact: 'critical', instances: [expect.objectContaining({ lineNumber: 9, target: ['v\\:roundrect'] })] });
    expect(byId(bad.failures, 'email-vml-link')!.impact).toBe('critical');
  });

  it('puts colour contrast under review (jsdom has no layout), never under passes', () => {
    expect(byId(bad.needs_review, 'color-contrast')).toBeDefined();
    expect(byId(bad.passes, 'color-contrast')).toBeUndefined();
    expect(byId(good.passes, 'color-contrast')).toBeUndefined();
  });

  it('leaves out rules meaningless in an inbox, and counts every rule it evaluated', () => {
    for (const report of [bad, good]) {
      for (const id of ['region', 'bypass', 'landmark-one-main']) for (const list of [report.passes, report.failures, report.needs_review]) expect(byId(list, id)).toBeUndefined();
      expect(report.checks).toBeGreaterThan(report.passes.length + report.failures.length + report.needs_review.length);
    }
  });
});

test('an email with a level-one heading passes that rule, and nothing under review says axe failed: contrast says why it is left to the reader', async () => {
  const report = await checkAccessibility('<h1>Spring sale</h1>');
  expect(byId(report.passes, 'page-has-heading-one')).toBeDefined();
  expect(byId(report.needs_review, 'page-has-heading-one')).toBeUndefined();
  const without = await checkAccessibility('<h2>Spring sale</h2>');
  expect(byId(without.failures, 'page-has-heading-one')).toMatchObject({ impact: 'moderate' });
  const advice = [report, without, bad, good].flatMap((r) => r.needs_review.flatMap((rule) => rule.instances.flatMap((i) => [...i.correctAll, ...i.correctAny])));
  expect(advice.filter((text) => /axe|error/i.test(text))).toEqual([]);
  expect(report.needs_review.map((r) => r.id)).toEqual(['color-contrast']);
  expect(byId(report.needs_review, 'color-contrast')).toMatchObject({
    impact: 'serious',
    compliance: ['1.4.3 Contrast (Minimum)'],
    instances: [{ target: ['body'], correctAny: [], correctAll: [expect.stringMatching(/without drawing it: check the contrast in a preview, at least 4\.5:1/)] }],
  });
  // Without text there is no contrast to look at.
  expect(byId((await checkAccessibility('<img src="https://x.example/a.png" alt="">')).needs_review, 'color-contrast')).toBeUndefined();
});

test('a well-made email has no serious or critical failure, and passes the email rules', () => {
  expect(good.failures.filter((f) => f.impact === 'serious' || f.impact === 'critical')).toEqual([]);
  expect(good.passes.map((r) => r.id)).toEqual(expect.arrayContaining(['image-alt', 'email-content-lang', 'email-content-dir', 'email-layout-table']));
});
