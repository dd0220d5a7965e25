import { caniemailFeatures, dictionary } from '../../../functions/inspect/analyze/caniemail-data';
import { buildFeatures, carryResolved, presentCodeResult, resolveInstance } from '../../../functions/inspect/analyze/code-result';
import { detectFeatures } from '../../../functions/inspect/analyze/feature-detector';

// Code analysis finds the features an email uses and reports caniemail's own verdicts for them:
// the expected letters below are read from the data set, not typed in.
const HTML = [
  '<!doctype html>',
  '<html><head>',
  '<style>',
  '@media (max-width: 600px) { .col { width: 100% !important; } }',
  '</style>',
  '</head><body>',
  '<style>p { margin: 0 }</style>',
  '<div style="display: flex; background-image: url(https://x.example/bg.png)">',
  '<p>Hi</p>',
  '</div>',
  '</body></html>',
].join('\n');

const detected = detectFeatures(HTML);
const at = (slug: string) => detected.find((f) => f.slug === slug)?.instances.map((i) => [i.line, i.column]);

/** caniemail's letter for the latest version of a family's platform. */
function latestLevel(slug: string, family: string, platform: string): string {
  const variants = caniemailFeatures().get(slug)!.support.filter((v) => v.family === family && v.platform === platform);
  return variants.find((v) => v.latest)!.level;
}

describe('detectFeatures', () => {
  it('finds flexbox, <style> (in head and in body), background-image and @media at their lines and columns', () => {
    expect(at('css-display-flex')).toEqual([[8, 22]]);
    expect(at('html-style')).toEqual([
      [3, 1],
      [7, 1],
    ]);
    expect(at('css-background-image')).toEqual([[8, 28]]);
    expect(at('css-at-media')).toEqual([[4, 1]]);
    expect(at('css-important')).toEqual([[4, 36]]);
    expect(at('image-png')).toEqual([[8, 46]]);
  });

  it('reads CSS in <style> blocks and style attributes alike, selectors included', () => {
    expect(at('css-margin')).toEqual([[7, 12]]);
    expect(at('css-selector-class')).toEqual([[4, 29]]);
    expect(at('css-selector-type')).toEqual([[7, 8]]);
  });
});

describe('presentCodeResult', () => {
  const features = buildFeatures(detected);
  const result = presentCodeResult({ id: 't1', version: 1, status: 'Completed', features }, {});

  it("gives each feature caniemail's support for Gmail, Outlook and Apple Mail", () => {
    const flex = result.items.features.find((f) => f.slug === 'css-display-flex')!;
    const support = flex.support as Record<string, Array<{ id: string; notes: string[] }>>;
    for (const [family, platform] of [
      ['gmail', 'desktop-webmail'],
      ['outlook', 'windows'],
      ['apple-mail', 'macos'],
    ] as const) {
      const latest = caniemailFeatures().get('css-display-flex')!.support.find((v) => v.family === family && v.platform === platform && v.latest)!;
      expect(support[latestLevel('css-display-flex', family, platform)]!.map((v) => v.id)).toContain(latest.id);
    }
    expect(flex).toMatchObject({ name: 'display:flex', category: 'css', instances: [expect.objectContaining({ line: 8, column: 22, resolved: false })] });
    expect(result.meta.count).toBe(features.length);
    const buckets = result.meta.inbox_provider_support['outlook']!;
    expect(buckets.supported + buckets.partial_support + buckets.unsupported + buckets.unknown).toBeGreaterThan(0);
  });

  it('filters by slug, support type and application type, and groups by notes', () => {
    const filtered = presentCodeResult({ id: 't1', version: 1, status: 'Completed', features }, { slug: 'css-display-flex', support_type: 'n', application_type: 'desktop' });
    expect(filtered.items.features.map((f) => f.slug)).toEqual(['css-display-flex']);
    const support = filtered.items.features[0]!.support as Record<string, Array<{ id: string }>>;
    expect(support['y']).toEqual([]);
    expect(support['n']!.length).toBeGreaterThan(0);
    for (const v of support['n']!) expect(dictionary().lookups.variants[v.id]!.application_type).toBe('desktop');
    const grouped = presentCodeResult({ id: 't1', version: 1, status: 'Completed', features }, { slug: 'css-display-flex', group_by: 'notes' });
    expect(grouped.meta.grouped_by).toBe('notes');
    const groups = grouped.items.features[0]!.support as Record<string, Array<{ note: string; variants: unknown[] }>>;
    expect(groups['a']!.every((g) => typeof g.note === 'string' && g.variants.length > 0)).toBe(true);
  });

  it('shows no features while the version is processing', () => {
    expect(presentCodeResult({ id: 't1', version: 2, status: 'Processing', features: [] }, {}).items).toEqual({ id: 't1', version: 2, features: [] });
  });
});

test('resolved marks carry to a new version for instances still at the same place', () => {
  const v1 = buildFeatures(detected);
  const flexId = v1.find((f) => f.slug === 'css-display-flex')!.instances[0]!.id;
  expect(resolveInstance(v1, flexId, true)).toBe(true);
  expect(resolveInstance(v1, 'no-such-instance', true)).toBe(false);
  const v2 = carryResolved(v1, buildFeatures(detectFeatures(HTML)));
  expect(v2.find((f) => f.slug === 'css-display-flex')!.instances[0]!.resolved).toBe(true);
  const moved = carryResolved(v1, buildFeatures(detectFeatures(`\n${HTML}`)));
  expect(moved.find((f) => f.slug === 'css-display-flex')!.instances[0]!.resolved).toBe(false);
});

test('the dictionary names clients, platforms and every variant from caniemail', () => {
  const { lookups } = dictionary();
  expect(lookups.clients['gmail']).toBe('Gmail');
  expect(lookups.support_levels).toEqual({ y: 'Supported', a: 'Partially supported', n: 'Not supported', u: 'Support unknown' });
  expect(lookups.variants['gmail.desktop-webmail.2022-02']).toEqual({ client: 'gmail', platform: 'desktop-webmail', version: '2022-02', application_type: 'web' });
});

test('finds comments, AMP, logical sizes and the keyword features caniemail tests', () => {
  const html = [
    '<html ⚡4email>',
    '<!-- a note -->',
    '<!--[if mso]><table><tr><td><![endif]-->',
    '<style>/* reset */ p { block-size: 10px; width: fit-content; font-family: system-ui; }</style>',
    '<p style="inline-size: 50%">x</p>',
  ].join('\n');
  const found = Object.fromEntries(detectFeatures(html).map((f) => [f.slug, f.instances.map((i) => [i.line, i.column])]));
  expect(found['amp']).toEqual([[1, 1]]);
  expect(found['html-comments']).toEqual([[2, 1]]);
  expect(found['css-comments']).toEqual([[4, 8]]);
  expect(found['css-block-inline-size']).toEqual([[4, 24]]);
  expect(found['css-inline-size']).toEqual([[5, 11]]);
  expect(found['css-intrinsic-size']).toEqual([[4, 49]]);
  expect(found['css-sytem-ui']).toEqual([[4, 75]]);
});
