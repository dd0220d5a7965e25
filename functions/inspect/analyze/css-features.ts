import * as csstree from 'css-tree';
import { imageSlugs } from './image-formats';

/**
 * CSS to caniemail feature slugs. Slugs are caniemail's own (`css-<property>`, `css-unit-<unit>`,
 * `css-pseudo-class-<name>`, ...): a name is mapped by its slug's naming rule when the data set has
 * that slug, and through the small tables below only where caniemail groups several properties or
 * keywords under one feature. `css-inert-attribute` is an HTML attribute despite its name
 * (feature-detector.ts).
 */

/** Where a detector reports each feature it finds: the slug and the document offset of the occurrence. */
export type FeatureSink = (slug: string, offset: number) => void;

/** Properties caniemail tests as one feature; checked after an exact `css-<property>` slug. */
const PROPERTY_GROUPS: Array<[RegExp, string]> = [
  [/^(left|right|top|bottom)$/, 'css-left-right-top-bottom'],
  [/^margin-(block|inline)-(start|end)$/, 'css-margin-$1-start-end'],
  [/^margin-(inline|block)$/, 'css-margin-inline-block'],
  [/^margin-/, 'css-margin'],
  [/^padding-(block|inline)-(start|end)$/, 'css-padding-$1-start-end'],
  [/^padding-(inline|block)$/, 'css-padding-inline-block'],
  [/^padding-/, 'css-padding'],
  [/^border-(start|end)-(start|end)-radius$/, 'css-border-radius-logical'],
  [/^border-(top|bottom)-(left|right)-radius$/, 'css-border-radius'],
  [/^border-(inline|block)$/, 'css-border-inline-block'],
  [/^border-(inline|block)-(width|style|color)$/, 'css-border-inline-block-longhand'],
  [/^border-(inline|block)-(start|end)/, 'css-border-inline-block-individual'],
  [/^border-image/, 'css-border-image'],
  [/^border-/, 'css-border'],
  [/^(columns|column-(?!gap))/, 'css-column-layout-properties'],
  [/^(row-gap|column-gap|grid-gap)$/, 'css-gap'],
  [/^grid-template/, 'css-grid-template'],
  [/^text-decoration-/, 'css-text-decoration'],
  [/^text-emphasis-/, 'css-text-emphasis'],
  [/^list-style-/, 'css-list-style'],
  [/^font-/, 'css-font'],
  [/^background-/, 'css-background'],
  [/^scroll-snap/, 'css-scroll-snap'],
  [/^inset-/, 'css-inset'],
  [/^overflow-[xy]$/, 'css-overflow'],
  [/^(block|inline)-size$/, 'css-block-inline-size'],
  [/^animation-/, 'css-animation'],
  [/^transition-/, 'css-transition'],
  [/^mask/, 'css-mask-image'],
];

const FUNCTIONS: Readonly<Record<string, string>> = {
  calc: 'css-unit-calc',
  clamp: 'css-function-clamp',
  min: 'css-function-min',
  max: 'css-function-max',
  'light-dark': 'css-function-light-dark',
  rgb: 'css-rgb',
  rgba: 'css-rgba',
  var: 'css-variables',
  'linear-gradient': 'css-linear-gradient',
  'repeating-linear-gradient': 'css-linear-gradient',
  'radial-gradient': 'css-radial-gradient',
  'repeating-radial-gradient': 'css-radial-gradient',
  'conic-gradient': 'css-conic-gradient',
  'fit-content': 'css-intrinsic-size',
  'repeating-conic-gradient': 'css-conic-gradient',
  hsl: 'css-modern-color',
  hsla: 'css-modern-color',
  hwb: 'css-modern-color',
  lab: 'css-modern-color',
  lch: 'css-modern-color',
  oklab: 'css-modern-color',
  oklch: 'css-modern-color',
  color: 'css-modern-color',
};

/** Value keywords caniemail tests as features of their own. */
const KEYWORDS: Readonly<Record<string, string>> = {
  initial: 'css-unit-initial',
  'fit-content': 'css-intrinsic-size',
  'min-content': 'css-intrinsic-size',
  'max-content': 'css-intrinsic-size',
  'system-ui': 'css-sytem-ui',
  'ui-serif': 'css-sytem-ui',
  'ui-sans-serif': 'css-sytem-ui',
  'ui-rounded': 'css-sytem-ui',
  'ui-monospace': 'css-sytem-ui',
};

const DISPLAY_VALUES: Readonly<Record<string, string>> = {
  flex: 'css-display-flex',
  'inline-flex': 'css-display-flex',
  grid: 'css-display-grid',
  'inline-grid': 'css-display-grid',
  none: 'css-display-none',
};

const MEDIA_FEATURES: Array<[RegExp, string]> = [
  [/device-pixel-ratio|resolution/, 'css-at-media-device-pixel-ratio'],
  [/^hover$/, 'css-at-media-hover'],
  [/^orientation$/, 'css-at-media-orientation'],
  [/^prefers-color-scheme$/, 'css-at-media-prefers-color-scheme'],
  [/^prefers-reduced-motion$/, 'css-at-media-prefers-reduced-motion'],
];

const COMBINATORS: Readonly<Record<string, string>> = { ' ': 'css-selector-descendant', '>': 'css-selector-child', '+': 'css-selector-adjacent-sibling', '~': 'css-selector-general-sibling' };

const withoutVendor = (name: string) => name.toLowerCase().replace(/^-(webkit|moz|ms|o)-/, '');

export class CssFeatureDetector {
  /** Names seen before and their slugs: a newsletter repeats the same few properties thousands of times. */
  private readonly propertySlugs = new Map<string, string | undefined>();
  private readonly prefixed = new Map<string, string | undefined>();

  constructor(private readonly known: ReadonlySet<string>) {}

  /** `prefix + name` when caniemail has that slug, remembered per name. */
  private slugWith(prefix: string, name: string): string | undefined {
    const key = `${prefix}${name}`;
    if (!this.prefixed.has(key)) this.prefixed.set(key, this.has(key.toLowerCase()));
    return this.prefixed.get(key);
  }

  private has(slug: string): string | undefined {
    return this.known.has(slug) ? slug : undefined;
  }

  private propertySlug(property: string): string | undefined {
    if (!this.propertySlugs.has(property)) this.propertySlugs.set(property, this.resolveProperty(property));
    return this.propertySlugs.get(property);
  }

  private resolveProperty(property: string): string | undefined {
    if (property.startsWith('--')) return 'css-variables';
    const name = withoutVendor(property);
    const exact = this.has(`css-${name}`);
    if (exact) return exact;
    for (const [pattern, slug] of PROPERTY_GROUPS) {
      const match = pattern.exec(name);
      if (match) return this.has(slug.replace(/\$(\d)/g, (_, i: string) => match[Number(i)] ?? ''));
    }
    return undefined;
  }

  /** Features of a stylesheet (a `<style>` block) or a declaration list (a `style` attribute) starting at `offset`. */
  detect(css: string, context: 'stylesheet' | 'declarationList', offset: number, line: number, column: number, sink: FeatureSink): void {
    // The parser drops comments, so they are found in the text itself.
    for (let at = css.indexOf('/*'); at !== -1; at = css.indexOf('/*', at + 2)) sink('css-comments', offset + at);
    let ast: csstree.CssNode;
    try {
      ast = csstree.parse(css, { context, positions: true, offset, line, column, parseValue: true, parseAtrulePrelude: true, parseRulePrelude: true });
    } catch {
      return;
    }
    // Every slug reaching here is one caniemail has (checked where it is made, once per name).
    const add = (slug: string | undefined, node: csstree.CssNode | undefined) => {
      if (slug) sink(slug, node?.loc?.start.offset ?? offset);
    };
    csstree.walk(ast, (node) => {
      switch (node.type) {
        case 'Declaration': {
          add(this.propertySlug(node.property), node);
          if (node.important) add('css-important', node);
          if (withoutVendor(node.property) === 'display' && node.value.type === 'Value') {
            const first = node.value.children.first;
            if (first?.type === 'Identifier') add(DISPLAY_VALUES[first.name.toLowerCase()], first);
          }
          break;
        }
        case 'Function':
          add(FUNCTIONS[node.name.toLowerCase()], node);
          break;
        case 'Dimension':
          add(this.slugWith('css-unit-', node.unit), node);
          break;
        case 'Url':
          for (const slug of imageSlugs(node.value)) add(slug, node);
          break;
        case 'Percentage':
          add('css-unit-percent', node);
          break;
        case 'Identifier':
          add(KEYWORDS[node.name.toLowerCase()], node);
          break;
        case 'Atrule':
          add(this.slugWith('css-at-', withoutVendor(node.name)), node);
          break;
        case 'Feature': {
          const name = withoutVendor(node.name);
          for (const [pattern, slug] of MEDIA_FEATURES) if (pattern.test(name)) add(slug, node);
          break;
        }
        case 'SelectorList':
          if (node.children.size > 1) add('css-selector-grouping', node);
          break;
        case 'Selector': {
          const parts = node.children.toArray();
          // Two simple selectors in a row, no combinator between them: `a.button`, `.x.y` (a
          // pseudo-class such as `a:hover` is its own feature, not chaining).
          const simple = new Set(['TypeSelector', 'ClassSelector', 'IdSelector', 'AttributeSelector']);
          for (let i = 1; i < parts.length; i++) if (simple.has(parts[i]!.type) && simple.has(parts[i - 1]!.type)) add('css-selector-chaining', parts[i]);
          break;
        }
        case 'Combinator':
          add(COMBINATORS[node.name], node);
          break;
        case 'ClassSelector':
          add('css-selector-class', node);
          break;
        case 'IdSelector':
          add('css-selector-id', node);
          break;
        case 'TypeSelector':
          add(node.name === '*' ? 'css-selector-universal' : 'css-selector-type', node);
          break;
        case 'AttributeSelector':
          add('css-selector-attribute', node);
          break;
        case 'PseudoClassSelector':
          add(this.slugWith('css-pseudo-class-', node.name), node);
          break;
        case 'PseudoElementSelector':
          add(this.slugWith('css-pseudo-element-', node.name), node);
          break;
        case 'NestingSelector':
          add('css-nesting', node);
          break;
        default:
          break;
      }
    });
  }
}
