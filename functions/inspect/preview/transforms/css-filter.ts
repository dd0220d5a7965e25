import * as csstree from 'css-tree';
import { CssFeatureDetector } from '../../analyze/css-features';
import type { ClientSupport } from './client-support';
import type { TransformLog } from './transform-log';

/** A client's own CSS rules beside what caniemail says (inspect contract §6.6's quirks). */
export interface CssQuirks {
  /** Properties (vendor prefix ignored) the client strips whatever caniemail's verdict. */
  dropProperties?: ReadonlySet<string>;
  /** At-rules the client strips (`font-face`). */
  dropAtRules?: ReadonlySet<string>;
  /** `display: flex|grid` becomes `block`: Outlook's Word engine lays such boxes out as blocks. */
  flexAsBlock?: boolean;
  /** Class names are rewritten with this prefix in selectors and attributes (Outlook.com's `x_`, Yahoo's `yiv`). */
  classPrefix?: string;
}

const withoutVendor = (name: string) => name.toLowerCase().replace(/^-(webkit|moz|ms|o)-/, '');

/**
 * Removes from a stylesheet or a declaration list what a client does not support: a declaration,
 * rule or at-rule is dropped when any caniemail feature it uses is `n` in the client (or a quirk
 * drops it), and kept with a note when a feature is only partly supported (`a`). Every removal is
 * counted in the transform log, so a result says why it differs from the original.
 */
export class CssFilter {
  private readonly detector: CssFeatureDetector;
  /** Feature slugs by CSS text: a newsletter repeats the same declarations hundreds of times. */
  private readonly slugCache = new Map<string, string[]>();

  constructor(
    known: ReadonlySet<string>,
    private readonly support: ReadonlyMap<string, ClientSupport>,
    private readonly quirks: CssQuirks,
    private readonly log: TransformLog,
    private readonly clientName: string,
  ) {
    this.detector = new CssFeatureDetector(known);
  }

  private slugsOf(text: string, context: 'stylesheet' | 'declarationList'): string[] {
    const key = `${context}\u0000${text}`;
    let slugs = this.slugCache.get(key);
    if (!slugs) {
      const found = new Set<string>();
      this.detector.detect(text, context, 0, 1, 1, (slug) => found.add(slug));
      slugs = [...found];
      this.slugCache.set(key, slugs);
    }
    return slugs;
  }

  /** The first unsupported feature among `slugs`, noting partly supported ones on the way. */
  private unsupported(slugs: string[]): ClientSupport | undefined {
    for (const slug of slugs) {
      const support = this.support.get(slug);
      if (support?.level === 'n') return support;
      if (support?.level === 'a') this.log.note(`partial support of ${support.name} in ${this.clientName} (caniemail${support.notes.length ? `: ${support.notes.join(' ')}` : ''})`);
    }
    return undefined;
  }

  /** The CSS without what the client drops; unparseable CSS comes back as it was. */
  filter(css: string, context: 'stylesheet' | 'declarationList'): string {
    let ast: csstree.CssNode;
    try {
      ast = csstree.parse(css, { context, parseValue: true, parseAtrulePrelude: true, parseRulePrelude: true, parseCustomProperty: false });
    } catch {
      return css;
    }
    const quirks = this.quirks;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- css-tree calls `enter` with its own `this`
    const self = this;
    csstree.walk(ast, {
      enter(node: csstree.CssNode, item: csstree.ListItem<csstree.CssNode>, list: csstree.List<csstree.CssNode>) {
        if (!list) return;
        if (node.type === 'Atrule') {
          const name = withoutVendor(node.name);
          if (quirks.dropAtRules?.has(name)) {
            self.log.removed(`@${name} rules (${self.clientName} strips them)`);
            list.remove(item);
            return csstree.walk.skip;
          }
          const prelude = node.prelude ? csstree.generate(node.prelude) : '';
          const missing = self.unsupported(self.slugsOf(`@${node.name} ${prelude}{}`, 'stylesheet'));
          if (missing) {
            self.log.removed(`@${name} rules using ${missing.name} (not supported in ${self.clientName}, caniemail)`);
            list.remove(item);
            return csstree.walk.skip;
          }
        } else if (node.type === 'Rule') {
          const selector = csstree.generate(node.prelude);
          const missing = self.unsupported(self.slugsOf(`${selector}{}`, 'stylesheet'));
          if (missing) {
            self.log.removed(`rules with selectors using ${missing.name} (not supported in ${self.clientName}, caniemail)`);
            list.remove(item);
            return csstree.walk.skip;
          }
        } else if (node.type === 'ClassSelector' && quirks.classPrefix) {
          node.name = `${quirks.classPrefix}${node.name}`;
        } else if (node.type === 'Declaration') {
          const property = withoutVendor(node.property);
          if (quirks.dropProperties?.has(property)) {
            self.log.removed(`${property} declarations (${self.clientName} strips them)`);
            list.remove(item);
            return csstree.walk.skip;
          }
          const text = csstree.generate(node);
          if (quirks.flexAsBlock && property === 'display' && /^(inline-)?(flex|grid)\b/i.test(csstree.generate(node.value).trim())) {
            node.value = { type: 'Raw', value: 'block' };
            self.log.removed(`display:flex and grid laid out as blocks (${self.clientName})`);
            return csstree.walk.skip;
          }
          const missing = self.unsupported(self.slugsOf(text, 'declarationList'));
          if (missing) {
            self.log.removed(`${property} declarations using ${missing.name} (not supported in ${self.clientName}, caniemail)`);
            list.remove(item);
          }
          return csstree.walk.skip;
        }
        return undefined;
      },
    });
    return csstree.generate(ast);
  }
}
