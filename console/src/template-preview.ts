import { parse, type AST } from '@handlebars/parser';

/**
 * A preview of a template in Mailgun's Handlebars dialect (functions/templates/handlebars-dialect.ts:
 * `if`, `unless`, `each`, `with`, `lookup`, `equal`; no partials, no other helpers), evaluated over
 * the parse tree of the official Handlebars parser. handlebars.js itself compiles templates to
 * functions with `new Function`, which the console's Content-Security-Policy (no 'unsafe-eval')
 * forbids; walking the tree needs no eval. Saving a version gets the platform's own verdict.
 */

const HELPERS = 'if, unless, each, with, lookup and equal';

interface Frame {
  context: unknown;
  data: Record<string, unknown>;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '`': '&#x60;', '=': '&#x3D;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=]/g, (c) => ESCAPES[c]!);
}

/** handlebars.js's isEmpty (`with`, sections): 0 is a value. */
function isEmpty(value: unknown): boolean {
  return (!value && value !== 0) || (Array.isArray(value) && value.length === 0);
}

/** What `if` and `unless` take for false: 0 too. */
function isFalsy(value: unknown): boolean {
  return !value || (Array.isArray(value) && value.length === 0);
}

function stringForm(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(stringForm).join(',');
  return String(value);
}

/** A property of the data only: never one of Object.prototype's. */
function own(value: unknown, key: string): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  return Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

class Renderer {
  constructor(private readonly escape: boolean) {}

  program(program: AST.Program | undefined, stack: Frame[]): string {
    if (!program) return '';
    return program.body.map((statement) => this.statement(statement, stack)).join('');
  }

  private statement(node: AST.Statement, stack: Frame[]): string {
    switch (node.type) {
      case 'ContentStatement':
        return (node as AST.ContentStatement).value;
      case 'CommentStatement':
        return '';
      case 'MustacheStatement': {
        const m = node as AST.MustacheStatement;
        const value = this.call(m.path as AST.Expression, m.params, stack, true);
        const text = stringForm(value);
        return m.escaped && this.escape ? escapeHtml(text) : text;
      }
      case 'BlockStatement':
        return this.block(node as AST.BlockStatement, stack);
      case 'PartialStatement':
      case 'PartialBlockStatement':
        throw new Error('partials are not supported');
      default:
        throw new Error('decorators and inline partials are not supported');
    }
  }

  private helperName(path: AST.Expression): string | undefined {
    return path.type === 'PathExpression' && !(path as AST.PathExpression).data ? (path as AST.PathExpression).original : undefined;
  }

  /** A mustache or subexpression: a helper call when it has parameters, else a lookup. */
  private call(path: AST.Expression, params: AST.Expression[], stack: Frame[], mustache: boolean): unknown {
    const name = this.helperName(path);
    if (name === 'lookup') return own(this.value(params[0], stack), stringForm(this.value(params[1], stack)));
    if (name === 'equal') return stringForm(this.value(params[0], stack)) === stringForm(this.value(params[1], stack));
    if (params.length || (!mustache && name)) {
      if (name && ['if', 'unless', 'each', 'with'].includes(name)) throw new Error(`${name} needs a block ({{#${name} …}}…{{/${name}}})`);
      throw new Error(`unknown helper ${name ?? '?'}: templates may use ${HELPERS}`);
    }
    return this.value(path, stack);
  }

  private value(node: AST.Expression | undefined, stack: Frame[]): unknown {
    if (!node) return undefined;
    switch (node.type) {
      case 'StringLiteral':
      case 'NumberLiteral':
      case 'BooleanLiteral':
        return (node as unknown as { value: unknown }).value;
      case 'UndefinedLiteral':
        return undefined;
      case 'NullLiteral':
        return null;
      case 'SubExpression': {
        const sub = node as AST.SubExpression;
        return this.call(sub.path, sub.params, stack, false);
      }
      case 'PathExpression':
        return this.path(node as AST.PathExpression, stack);
      default:
        return undefined;
    }
  }

  private path(path: AST.PathExpression, stack: Frame[]): unknown {
    const frame = stack[Math.max(0, stack.length - 1 - path.depth)]!;
    const parts = path.parts.map((part) => (typeof part === 'string' ? part : ''));
    if (path.data) {
      const [first, ...rest] = parts;
      return rest.reduce((value, key) => own(value, key), first === 'root' ? stack[0]!.context : frame.data[first ?? '']);
    }
    return parts.reduce<unknown>((value, key) => own(value, key), frame.context);
  }

  private block(block: AST.BlockStatement, stack: Frame[]): string {
    const name = block.path.original;
    const frame = stack.at(-1)!;
    const arg = this.value(block.params[0], stack);
    const inner = (context: unknown, data: Record<string, unknown> = frame.data) => this.program(block.program, [...stack, { context, data }]);
    const same = () => this.program(block.program, stack);
    const otherwise = () => this.program(block.inverse, stack);
    switch (block.params.length ? name : '') {
      case 'if':
        return isFalsy(arg) ? otherwise() : same();
      case 'unless':
        return isFalsy(arg) ? same() : otherwise();
      case 'with':
        return isEmpty(arg) ? otherwise() : inner(arg);
      case 'equal':
        return stringForm(arg) === stringForm(this.value(block.params[1], stack)) ? same() : otherwise();
      case 'each':
        return this.each(arg, block, stack);
      case '': {
        // {{#name}}…{{/name}}: a section, as handlebars.js's blockHelperMissing renders it.
        const value = this.path(block.path, stack);
        if (value === true) return same();
        if (isEmpty(value)) return otherwise();
        if (Array.isArray(value)) return this.each(value, block, stack);
        return inner(value);
      }
      default:
        throw new Error(`unknown helper ${name}: templates may use ${HELPERS}`);
    }
  }

  private each(value: unknown, block: AST.BlockStatement, stack: Frame[]): string {
    const frame = stack.at(-1)!;
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, i) => [String(i), item])
      : value && typeof value === 'object'
        ? Object.keys(value).map((key) => [key, (value as Record<string, unknown>)[key]])
        : [];
    if (!entries.length) return this.program(block.inverse, stack);
    return entries
      .map(([key, item], i) =>
        this.program(block.program, [...stack, { context: item, data: { ...frame.data, index: i, key, first: i === 0, last: i === entries.length - 1 } }]),
      )
      .join('');
  }
}

/** The template rendered with `variables`, or why it cannot be. */
export function renderPreview(source: string, variables: unknown, html = true): { output?: string; error?: string } {
  try {
    const tree = parse(source);
    return { output: new Renderer(html).program(tree, [{ context: variables, data: {} }]) };
  } catch (error) {
    const message = (error as Error).message;
    return { error: message.split('\n')[0]!.replace(/:$/, '') + (/got '([^']+)'\s*$/.exec(message) ? `: unexpected ${/got '([^']+)'\s*$/.exec(message)![1]}` : '') };
  }
}
