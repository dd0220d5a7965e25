import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Mailgun from 'mailgun.js';
import { Enums } from 'mailgun.js/definitions';
import { RouteMatcher } from '../../functions/platform/http/route-matcher';

/**
 * Values some SDK methods take as an argument that picks the path rather than naming a thing:
 * the SDK's own enums (suppression lists, webhook events) and the tracking kinds its
 * `domains.domainTracking.updateTracking(domain, type, ...)` takes (typed `string` there).
 */
const PATH_WORDS: string[] = [...Object.values(Enums.SuppressionModels), ...Object.values(Enums.WebhooksIds), 'open', 'click', 'unsubscribe'];

/** What an SDK method's object argument may carry: enough for the methods that check it before sending. */
const SAMPLE_DATA = { name: 'sample', address: 'sample@example.com', email: 'sample@example.com', ip: '192.0.2.1', id: 'sample-id', url: 'https://example.com/hook', tag: 'sample', limit: 1, description: 'sample' };

/** One call of an SDK method: the requests it made, and the path word it was given, if any. */
interface Call {
  requests: string[];
  word?: { position: number; value: string };
}

type Method = (...args: unknown[]) => unknown;

function methodsOf(target: object): string[] {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(target); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && !name.startsWith('_') && typeof (target as Record<string, unknown>)[name] === 'function') names.add(name);
    }
  }
  return [...names];
}

/** Argument lists for a method of `arity` parameters: placeholders (`sample<i>`), the last one also a sample object or `{}`, and each path word in each place. */
function argumentLists(arity: number): Array<Pick<Call, 'word'> & { args: unknown[] }> {
  const n = Math.max(arity, 1);
  const plain = Array.from({ length: n + 1 }, (_, i) => `sample${i}`);
  const bases: unknown[][] = [plain, [...plain.slice(0, n - 1), SAMPLE_DATA], [...plain.slice(0, n - 1), {}]];
  const lists: Array<Pick<Call, 'word'> & { args: unknown[] }> = bases.map((args) => ({ args }));
  for (const base of bases) {
    for (let position = 0; position < n; position++) {
      if (typeof base[position] !== 'string') continue;
      for (const value of PATH_WORDS) lists.push({ args: base.map((arg, j) => (j === position ? value : arg)), word: { position, value } });
    }
  }
  return lists;
}

/** Every call of every method of every client of mailgun.js, against a loopback server that records each request line and answers `{}`. */
async function recordCalls(): Promise<Call[][]> {
  const calls: Call[][] = [];
  let current: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      current.push(`${req.method} ${new URL(req.url ?? '/', 'http://sdk').pathname}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const client = new Mailgun(FormData).client({ username: 'api', key: 'sample-key', url: `http://127.0.0.1:${port}` });
    const visited = new Set<object>();
    const walk = async (target: object): Promise<void> => {
      if (visited.has(target)) return;
      visited.add(target);
      for (const name of methodsOf(target)) {
        const method = (target as Record<string, Method>)[name]!;
        const methodCalls: Call[] = [];
        for (const { args, word } of argumentLists(method.length)) {
          current = [];
          try {
            await method.apply(target, args);
          } catch {
            // A method refusing the placeholders, or failing to read `{}` as its reply: what it requested is recorded.
          }
          methodCalls.push({ requests: current, word });
        }
        calls.push(methodCalls);
      }
      for (const [key, value] of Object.entries(target)) {
        if (key !== 'request' && value && typeof value === 'object' && !Array.isArray(value)) await walk(value as object);
      }
    };
    await walk(client);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return calls;
}

/** Where a request's path carries one of the SDK's arguments rather than text of its own. */
const isPlaceholder = (segment: string) => /^(sample\d+|%5Bobject%20Object%5D|\[object%20Object\])$/.test(segment);

/** The path of the row that serves a request, if any. */
type Served = (request: string) => string | undefined;

/**
 * The requests of one method that a host serving `served` would not serve. A placeholder stands
 * where the SDK puts the caller's value, so a request with one is served by a row with a variable
 * there. A place where the SDK takes one of a few words instead (a suppression list, a tracking
 * kind) is judged by the words: when the method refuses a placeholder there, by each word it
 * accepted; when it accepts any string, by whether a row has one of the words as that segment.
 */
function unservedOf(calls: Call[], served: Served): string[] {
  const plain = [...new Set(calls.filter((c) => !c.word).flatMap((c) => c.requests))];
  const withWords = calls.filter((c) => c.word);
  if (!plain.length) return [...new Set(withWords.flatMap((c) => c.requests))].filter((request) => !served(request));
  const chosen = (request: string, { position, value }: NonNullable<Call['word']>, requests: string[]) => {
    const segments = request.split(' ')[1]!.split('/');
    const at = segments.indexOf(`sample${position}`);
    if (at < 0) return false;
    const withWord = request.replace(new RegExp(`/sample${position}(?=/|$)`), `/${value}`);
    const row = requests.includes(withWord) ? served(withWord)?.split('/') : undefined;
    // The word is that segment of the row, and the row's other segments are the request's where the SDK wrote them itself.
    return row?.length === segments.length && segments.every((segment, i) => (i === at ? row[i] === value : isPlaceholder(segment) || row[i] === segment));
  };
  return plain.filter((request) => !served(request) && !withWords.some(({ word, requests }) => chosen(request, word!, requests)));
}

/** What `npm test` reads: the number of requests recorded, and those the served set leaves out. */
export interface SdkCoverage {
  requests: number;
  unserved: string[];
}

/**
 * Which requests of the official JS SDK (mailgun.js, from node_modules) a route table leaves out,
 * `served` being `METHOD /path` lines of the table's paths. Recorded in a Node process of its own:
 * calling every SDK method with placeholders leaves streams failing asynchronously, which jest
 * would pin on whichever test is running.
 */
export function sdkCoverage(served: readonly string[]): Promise<SdkCoverage> {
  return new Promise((resolve, reject) => {
    const tsx = join(__dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const child = execFile(process.execPath, [tsx, __filename], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`recording the SDK's requests failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as SdkCoverage);
    });
    child.stdin!.end(JSON.stringify(served));
  });
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const rows = (JSON.parse(input) as string[]).map((line) => {
    const [method, path] = line.split(' ') as [string, string];
    return { method: method as 'GET', path, area: '', operation: '', access: 'read' as const };
  });
  const matcher = new RouteMatcher(rows);
  const served: Served = (request) => {
    const [method, path] = request.split(' ') as [string, string];
    return matcher.match(method, path)?.route.path;
  };
  // The SDK's deprecation notices are not this process's output.
  console.warn = console.log = () => undefined;
  const calls = await recordCalls();
  const coverage: SdkCoverage = { requests: new Set(calls.flat().flatMap((c) => c.requests)).size, unserved: [...new Set(calls.flatMap((c) => unservedOf(c, served)))].sort() };
  process.stdout.write(JSON.stringify(coverage));
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
