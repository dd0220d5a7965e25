import type Handlebars from 'handlebars';
import { handlebarsEngine } from '../platform/lazy/lazy-modules';

/**
 * The Handlebars dialect of Mailgun templates. Mailgun renders with raymond, a Go port of
 * Handlebars, and documents the block helpers `if`, `unless`, `each`, `with` and its own `equal`
 * (raymond adds `lookup` and `log`). We run handlebars.js on a private instance with the same
 * helpers, and refuse at storage time anything Mailgun could not render, so a stored version
 * never fails for a reason the author could have been told about:
 *
 * - `knownHelpersOnly`: a call to any other helper (`{{format date}}`) is a compile error, not an
 *   empty string discovered in a delivered message. Plain `{{name}}` stays a variable lookup.
 * - no `log` (it would copy message data into our logs), no partials, no decorators.
 * - prototype access stays forbidden (handlebars' default since 4.6, stated explicitly at run time).
 *
 * Missing variables render as empty strings (no `strict`), `{{x}}` HTML-escapes and `{{{x}}}` does
 * not, as in Mailgun.
 */
type Engine = typeof Handlebars;

let loaded: { engine: Engine; refuseUnsupported: () => Handlebars.Visitor } | undefined;

/**
 * The engine, set up on first use: the areas that bundle it mostly answer requests that never
 * render or check a template (sends without one, template reads), and evaluating handlebars is a
 * large part of their cold start. The templates Lambda also keeps it out of its index.js
 * (platform/lazy/lazy-modules.ts).
 */
function handlebars(): NonNullable<typeof loaded> {
  if (!loaded) {
    const root: Engine = handlebarsEngine().default;
    const engine = root.create();
    engine.unregisterHelper('log');
    engine.registerHelper('equal', equal);
    // Visitor lives on the module's own instance, not on the ones create() makes.
    const Refuse = refuseUnsupportedOn(root);
    loaded = { engine, refuseUnsupported: () => new Refuse() };
  }
  return loaded;
}

const COMPILE_OPTIONS = { knownHelpers: { equal: true, log: false }, knownHelpersOnly: true } as const;

/** Plain-text outputs (header values) are not HTML: nothing to escape. */
const TEXT_COMPILE_OPTIONS = { ...COMPILE_OPTIONS, noEscape: true } as const;

const RUNTIME_OPTIONS: Handlebars.RuntimeOptions = {
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
  allowCallsToHelperMissing: false,
};

/**
 * raymond's `equal`: true when both arguments' string forms are equal (`nb` 1 equals "1"; a missing
 * value is ""). A block renders its body or `{{else}}`; as a subexpression it answers a boolean.
 */
function equal(this: unknown, a: unknown, b: unknown, options?: Handlebars.HelperOptions): unknown {
  const same = stringForm(a) === stringForm(b);
  if (!options || typeof options.fn !== 'function') return same;
  return same ? options.fn(this) : options.inverse(this);
}

function stringForm(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}

/** A parse-tree visitor that refuses what Mailgun's dialect lacks. */
function refuseUnsupportedOn(root: Engine) {
  return class RefuseUnsupported extends root.Visitor {
    override PartialStatement(): void {
      throw new Error('partials are not supported');
    }
    override PartialBlockStatement(): void {
      throw new Error('partials are not supported');
    }
    override Decorator(): void {
      throw new Error('decorators and inline partials are not supported');
    }
    override DecoratorBlock(): void {
      throw new Error('decorators and inline partials are not supported');
    }
  };
}

const HELPERS = 'if, unless, each, with, lookup and equal';

/**
 * One line a template author can act on. Handlebars' parse errors span lines (a caret diagram,
 * then every token it expected), and its unknown-helper error names a compiler option.
 */
function explain(message: string): string {
  const helper = /unknown helper (\S+)/.exec(message)?.[1];
  if (helper) return `unknown helper ${helper}: templates may use ${HELPERS}`;
  const lines = message.split('\n');
  const first = lines[0] ?? message;
  if (!first.startsWith('Parse error')) return first;
  const got = /got '([^']+)'\s*$/.exec(message)?.[1];
  const where = first.replace(/:$/, '');
  return got ? `${where}: unexpected ${got === 'EOF' ? 'end of template' : got}` : where;
}

/** Why `source` cannot be stored as a template (or a header value), or undefined when it can. */
export function templateProblem(source: string): string | undefined {
  const { engine, refuseUnsupported } = handlebars();
  try {
    refuseUnsupported().accept(engine.parse(source));
    // Unknown helpers are found by the compiler, not the parser.
    engine.precompile(source, COMPILE_OPTIONS);
    return undefined;
  } catch (error) {
    return explain((error as Error).message);
  }
}

export type Renderer = (variables: Record<string, unknown>) => string;

function compileWith(source: string, options: Parameters<Engine['compile']>[1]): Renderer {
  const template = handlebars().engine.compile(source, options);
  return (variables) => template(variables, RUNTIME_OPTIONS);
}

/** An HTML renderer: `{{x}}` escapes, `{{{x}}}` does not. */
export function compileHtml(source: string): Renderer {
  return compileWith(source, COMPILE_OPTIONS);
}

/** A plain-text renderer (header values): nothing is escaped. */
export function compileText(source: string): Renderer {
  return compileWith(source, TEXT_COMPILE_OPTIONS);
}
