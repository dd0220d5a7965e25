/**
 * The figures of the layering rules (docs/architecture.md, "Layers"), read from the source:
 *
 *   npx tsx scripts/architecture-report.ts
 *
 * 1. Import circles in functions/ and lib/: the strongly connected components of the graph of
 *    relative imports (`import`, `import type`, `export ... from`, `require()`, `import()` and
 *    `typeof import()`, since a type import ties two modules' edits together as much as a value
 *    one), each with its members.
 * 2. Imports from functions/platform/ or functions/data/ into anything else in functions/ (an
 *    area, or the route, worker and schedule tables): the ground floors import only each other.
 * 3. Files that spell a table key outside their entity's store. The table's keys are written as
 *    upper-case tags each followed by `#` (`ACCT#<id>#TPL#<domain>`, `SYSTEM#dkim-rotation`);
 *    the heuristic reads the tags in use from the key builders themselves, wherever they live
 *    (any object literal giving `pk`, `sk`, `gsi1pk` or `gsi1sk` a string: the stores), so moving builders from one file to another does not blind it. A file
 *    spells a key when it
 *      - builds one: an object literal giving one of those attributes a string or template, or
 *      - writes a string or template whose text starts with a tag and `#` (`POOL#${id}` passed to
 *        a builder, a query prefix such as `'ADDR#'`), a tag the builders use or not.
 *    An entity's store (a file that declares it with `defineEntity`, or a `*-store.ts`) may do both;
 *    functions/data/ may write tags (the key registry's templates) but builds no entity's key. What
 *    it cannot see: a store spelling another entity's key, or a key put together from tags held in
 *    variables elsewhere (the key registry's test holds the rest: functions/entities.ts).
 *
 * Also shown, not a rule: the files outside functions/data/ that call the shared builders
 * (`keys.<entity>(...)` from data/): what is left to move next to the stores.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..');
const SCANNED = ['functions', 'lib'];
const GROUND_FLOORS = ['functions/platform/', 'functions/data/'];
const KEY_ATTRIBUTES = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk']);
/** An upper-case tag and `#` at the start of a string: how every part of a table key is written. */
const TAG = /^[A-Z][A-Z0-9]*#/;

export interface ImportEdge {
  from: string;
  to: string;
}

export interface KeySpelling {
  file: string;
  /** What it spells, and on which line: `12: ACCT#` */
  found: string[];
}

export interface ArchitectureReport {
  files: number;
  circles: string[][];
  groundFloorImports: ImportEdge[];
  keyTags: string[];
  keySpellings: KeySpelling[];
  sharedBuilderCallers: string[];
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules') out.push(...sourceFiles(path));
    } else if (/\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const posix = (path: string) => path.split(sep).join('/');

function resolveImport(fromFile: string, specifier: string, known: Set<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(fromFile), specifier).replace(/\.(js|mjs|cjs)$/, '');
  for (const candidate of [base, `${base}.ts`, `${base}.mts`, `${base}.cts`, join(base, 'index.ts')]) if (known.has(candidate)) return candidate;
  return undefined;
}

function stringText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text;
  return undefined;
}

interface Parsed {
  imports: string[];
  /** Key attributes given a string: their text up to the first substitution, and where. */
  keyBuilds: Array<{ line: number; text: string }>;
  /** Every string or template with its leading text, and where. */
  strings: Array<{ line: number; text: string }>;
  callsSharedBuilders: boolean;
}

function parse(file: string): Parsed {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const parsed: Parsed = { imports: [], keyBuilds: [], strings: [], callsSharedBuilders: false };
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const importsShared = source.statements.some(
    (s) => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && /\/data\/db$/.test(s.moduleSpecifier.text) && /\bkeys\b/.test(s.importClause?.getText(source) ?? ''),
  );
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      parsed.imports.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      parsed.imports.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) parsed.imports.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      parsed.imports.push(node.argument.literal.text);
    }
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && KEY_ATTRIBUTES.has(node.name.text)) {
      const text = stringText(node.initializer);
      if (text !== undefined) parsed.keyBuilds.push({ line: lineOf(node), text });
    }
    const text = stringText(node);
    // Import specifiers and property names are not data.
    if (text !== undefined && !ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent) && !ts.isLiteralTypeNode(node.parent)) {
      parsed.strings.push({ line: lineOf(node), text });
    }
    if (importsShared && ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'keys' && ts.isCallExpression(node.parent) && node.parent.expression === node) {
      parsed.callsSharedBuilders = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return parsed;
}

/** Tarjan's strongly connected components; those of more than one file (or a file importing itself). */
function circlesOf(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const strongConnect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) strongConnect(v);
  return out.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

export function architectureReport(root = ROOT): ArchitectureReport {
  const files = SCANNED.flatMap((dir) => sourceFiles(join(root, dir)));
  const known = new Set(files);
  const rel = (file: string) => posix(relative(root, file));
  const parsed = new Map(files.map((file) => [file, parse(file)]));

  const graph = new Map<string, Set<string>>();
  const groundFloorImports: ImportEdge[] = [];
  for (const [file, { imports }] of parsed) {
    const targets = new Set<string>();
    for (const specifier of imports) {
      const target = resolveImport(file, specifier, known);
      if (target) targets.add(rel(target));
    }
    const from = rel(file);
    graph.set(from, targets);
    if (!GROUND_FLOORS.some((floor) => from.startsWith(floor))) continue;
    for (const to of targets) if (to.startsWith('functions/') && !GROUND_FLOORS.some((floor) => to.startsWith(floor))) groundFloorImports.push({ from, to });
  }

  const tags = new Set<string>();
  for (const { keyBuilds } of parsed.values()) for (const { text } of keyBuilds) if (TAG.test(text)) tags.add(text.match(TAG)![0]);

  const keySpellings: KeySpelling[] = [];
  const sharedBuilderCallers: string[] = [];
  for (const [file, { keyBuilds, strings, callsSharedBuilders }] of parsed) {
    const name = rel(file);
    if (!name.startsWith('functions/')) continue;
    if (callsSharedBuilders && !name.startsWith('functions/data/')) sharedBuilderCallers.push(name);
    if (name.endsWith('-store.ts') || /\bdefineEntity\(/.test(readFileSync(file, 'utf8'))) continue;
    const found = keyBuilds.map(({ line, text }) => `${line}: builds ${text || "''"}`);
    if (!name.startsWith('functions/data/')) {
      const built = new Set(keyBuilds.map(({ line }) => line));
      for (const { line, text } of strings) if (TAG.test(text) && !built.has(line)) found.push(`${line}: ${text.match(TAG)![0]}`);
    }
    if (found.length) keySpellings.push({ file: name, found });
  }

  return {
    files: files.length,
    circles: circlesOf(graph),
    groundFloorImports: groundFloorImports.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)),
    keyTags: [...tags].sort(),
    keySpellings: keySpellings.sort((a, b) => a.file.localeCompare(b.file)),
    sharedBuilderCallers: sharedBuilderCallers.sort(),
  };
}

function print(report: ArchitectureReport): void {
  const lines: string[] = [];
  lines.push(`${report.files} files in ${SCANNED.join('/ and ')}/`);
  lines.push('', `import circles: ${report.circles.length}`);
  report.circles.forEach((circle, i) => lines.push(`  ${i + 1}. ${circle.length} files: ${circle.join(', ')}`));
  lines.push('', `imports from functions/platform/ or functions/data/ into an area: ${report.groundFloorImports.length}`);
  for (const { from, to } of report.groundFloorImports) lines.push(`  ${from} -> ${to}`);
  lines.push('', `files spelling a table key outside their entity's store: ${report.keySpellings.length}`);
  for (const { file, found } of report.keySpellings) {
    const shown = found.slice(0, 4).join('; ');
    lines.push(`  ${file} (${found.length}): ${shown}${found.length > 4 ? '; ...' : ''}`);
  }
  lines.push(`  (key tags the builders use: ${report.keyTags.length})`);
  lines.push('', `files calling data/'s shared key builders (keys.*) outside functions/data/: ${report.sharedBuilderCallers.length}`);
  console.log(lines.join('\n'));
}

// `npx tsx scripts/architecture-report.ts [root]`: another checkout's figures, for a before and after.
if (require.main === module) print(architectureReport(process.argv[2] ? resolve(process.argv[2]) : ROOT));
