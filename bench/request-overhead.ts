/**
 * Request overhead of the local host: `GET /v4/domains/{name}` through the whole stack (gateway,
 * authorizer, request pipeline, zod, SDK, dynalite) against a bare node:http server doing
 * the one DynamoDB GetItem that request needs, on the same dynalite.
 *
 *   npx tsx bench/request-overhead.ts [--no-profile]     (or as part of `npm run bench`)
 *
 * Everything listens on 127.0.0.1. The load generator (autocannon) runs in a child process; the local
 * host, its dynalite and the floor server share this process's event loop, and ours and the floor are
 * measured one after the other, never at the same time.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Key } from '../functions/data/store';
import { describeCalls } from './lib/aws-calls';
import { load, type LoadOptions, type LoadRun } from './lib/load';
import { BENCH_KEY, withLocalMode } from './lib/local';
import { basicAuth } from './lib/principal';
import { profile, saveProfile, selfTimes, topFunctions } from './lib/profile';
import { fixed, note, OUT_DIR, passFail, print, ratio, table, type TargetCheck } from './lib/report';
import { domainKeys } from '../functions/domains/domain-store';

const DOMAIN = 'bench.example.com';
const CONNECTIONS = 16;
const WARMUP_SECONDS = 2;
const DURATION_SECONDS = 8;
const ROUNDS = 2;
/** Per measured phase; far above what this machine reaches in 8 s, so only a runaway hits it. */
const MAX_REQUESTS = 400_000;
const MAX_RATIO = 1.5;

const authorization = basicAuth(BENCH_KEY);

export interface RequestOverheadResult {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  rounds: number;
  ours: { best: LoadRun; runs: LoadRun[]; responseBytes: number; logLinesPerRequest: number; dynamoCallsPerRequest: Record<string, number> };
  floor: { best: LoadRun; runs: LoadRun[]; responseBytes: number; where: string; dynamoCallsPerRequest: Record<string, number> };
  ratio: number;
  checks: TargetCheck[];
  profile?: ProfileSummary;
}

/** Main-thread CPU per request, from one extra profiled run of each (not used for the figures). */
interface ProfileSummary {
  oursRequests: number;
  floorRequests: number;
  /** Sampled main-thread time per request, idle included, in microseconds. */
  oursUsPerRequest: number;
  floorUsPerRequest: number;
  /** Self time per request by package / folder, where ours spends more than the floor, largest first. */
  extra: Array<{ name: string; oursUs: number; floorUs: number; extraUs: number }>;
  /** Ours' hottest functions by self time per request. */
  oursTopFunctions: Array<{ name: string; us: number }>;
}

/**
 * DynamoDB API calls per request (by X-Amz-Target), over a few sequential requests before the timed
 * runs: shows what each side does per request. Counted at the endpoint both sides call (local mode's
 * stream proxy), not again where it forwards them (dynalite). The hook is removed after.
 */
async function dynamoCallsPerRequest(url: string, dynamoEndpoint: string, requests: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const port = Number(new URL(dynamoEndpoint).port);
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    const atEndpoint = event === 'request' && (this.address() as AddressInfo | null)?.port === port;
    const target = atEndpoint ? (args[0] as { headers: Record<string, string | undefined> }).headers['x-amz-target'] : undefined;
    if (target) {
      const operation = target.replace(/^DynamoDB_\d+\./, '');
      counts[operation] = (counts[operation] ?? 0) + 1;
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof emit;
  try {
    for (let i = 0; i < requests; i++) {
      const { status } = await call(url);
      if (status !== 200) throw new Error(`GET ${url}: ${status}`);
    }
  } finally {
    Server.prototype.emit = emit;
  }
  return Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, n / requests]));
}

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { ...init, headers: { authorization, ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(30_000) });
  return { status: res.status, text: await res.text() };
}

/** The floor: a bare node:http server whose every request is one GetItem (same consistency as ours) and a JSON reply. */
async function startFloor(doc: DynamoDBDocumentClient, tableName: string, key: Key): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    doc
      .send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))
      .then(({ Item }) => {
        const body = JSON.stringify({ domain: Item });
        res.writeHead(Item ? 200 : 404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      })
      .catch(() => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"message":"Internal Server Error"}');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function checkRun(label: string, run: LoadRun): void {
  if (run.errors || run.timeouts || run.non2xx) {
    throw new Error(`${label}: ${run.errors} errors, ${run.timeouts} timeouts, ${run.non2xx} non-2xx replies out of ${run.total}`);
  }
}

export async function requestOverhead(options: { profile?: boolean } = {}): Promise<RequestOverheadResult> {
  return withLocalMode({ bench: 'request overhead' }, async ({ us, principal, stdout, atClose }) => {
    const created = await call(`${us.url}/v4/domains`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: DOMAIN, dkim_key_size: '1024' }).toString(),
    });
    if (created.status !== 200) throw new Error(`creating ${DOMAIN}: ${created.status} ${created.text}`);
    const oursUrl = `${us.url}/v4/domains/${DOMAIN}`;
    const oursProbe = await call(oursUrl);
    if (oursProbe.status !== 200) throw new Error(`GET ${oursUrl}: ${oursProbe.status} ${oursProbe.text}`);

    const tableName = us.env.TABLE_NAME!;
    const doc = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: 'us-east-1', endpoint: us.env.DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } }),
    );
    atClose(() => doc.destroy());
    // The domain's own item, the one ours reads for this request.
    const floor = await startFloor(doc, tableName, domainKeys.domain(principal.accountId, DOMAIN));
    atClose(async () => {
      floor.server.closeAllConnections();
      await new Promise<void>((resolve) => floor.server.close(() => resolve()));
    });
    const floorProbe = await call(floor.url);
    if (floorProbe.status !== 200 || (JSON.parse(floorProbe.text) as { domain: { name: string } }).domain.name !== DOMAIN) {
      throw new Error(`floor probe: ${floorProbe.status} ${floorProbe.text.slice(0, 200)}`);
    }

    const oursCalls = await dynamoCallsPerRequest(oursUrl, us.env.DYNAMODB_ENDPOINT!, 50);
    const floorCalls = await dynamoCallsPerRequest(floor.url, us.env.DYNAMODB_ENDPOINT!, 50);

    const base: Omit<LoadOptions, 'url'> = {
      headers: { authorization },
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_SECONDS,
      durationSeconds: DURATION_SECONDS,
      maxRequests: MAX_REQUESTS,
    };
    const oursRuns: LoadRun[] = [];
    const floorRuns: LoadRun[] = [];
    let oursLines = 0;
    let oursRequests = 0;
    const runOurs = async (round: number) => {
      note(`request overhead: round ${round}/${ROUNDS}, ours (${WARMUP_SECONDS} s warm-up + ${DURATION_SECONDS} s, ${CONNECTIONS} connections)`);
      const before = stdout.lines();
      const run = await load({ ...base, url: oursUrl });
      checkRun('ours', run);
      oursRuns.push(run);
      oursLines += stdout.lines() - before;
      oursRequests += run.warmupTotal + run.total;
    };
    const runFloor = async (round: number) => {
      note(`request overhead: round ${round}/${ROUNDS}, floor (${WARMUP_SECONDS} s warm-up + ${DURATION_SECONDS} s, ${CONNECTIONS} connections)`);
      const run = await load({ ...base, url: floor.url });
      checkRun('floor', run);
      floorRuns.push(run);
    };
    // One after the other, never together; who goes first alternates between rounds.
    for (let round = 1; round <= ROUNDS; round++) {
      if (round % 2 === 1) {
        await runOurs(round);
        await runFloor(round);
      } else {
        await runFloor(round);
        await runOurs(round);
      }
    }
    const best = (runs: LoadRun[]) => runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
    const oursBest = best(oursRuns);
    const floorBest = best(floorRuns);
    const r = floorBest.requestsPerSecond / oursBest.requestsPerSecond;

    let profiled: ProfileSummary | undefined;
    if (options.profile) {
      const one = async (label: 'ours' | 'floor', url: string) => {
        note(`request overhead: CPU profile of ${label} (${DURATION_SECONDS} s, not used for the figures)`);
        const { result, profile: p } = await profile(() => load({ ...base, url, warmupSeconds: 0 }));
        checkRun(`${label} (profiled)`, result);
        saveProfile(`request-overhead-${label}`, p);
        return { requests: result.total, ...selfTimes(p) };
      };
      const o = await one('ours', oursUrl);
      const f = await one('floor', floor.url);
      const perRequest = (m: Map<string, number>, n: number, k: string) => (m.get(k) ?? 0) / n;
      profiled = {
        oursRequests: o.requests,
        floorRequests: f.requests,
        oursUsPerRequest: o.totalUs / o.requests,
        floorUsPerRequest: f.totalUs / f.requests,
        extra: [...new Set([...o.buckets.keys(), ...f.buckets.keys()])]
          .map((name) => {
            const oursUs = perRequest(o.buckets, o.requests, name);
            const floorUs = perRequest(f.buckets, f.requests, name);
            return { name, oursUs, floorUs, extraUs: oursUs - floorUs };
          })
          .sort((a, b) => b.extraUs - a.extraUs)
          .slice(0, 15),
        // Idle included, as in the per-request totals above.
        oursTopFunctions: topFunctions(o.functions, o.requests, { withIdle: true }),
      };
    }

    return {
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_SECONDS,
      durationSeconds: DURATION_SECONDS,
      rounds: ROUNDS,
      ours: { best: oursBest, runs: oursRuns, responseBytes: Buffer.byteLength(oursProbe.text), logLinesPerRequest: oursLines / oursRequests, dynamoCallsPerRequest: oursCalls },
      floor: {
        best: floorBest,
        runs: floorRuns,
        responseBytes: Buffer.byteLength(floorProbe.text),
        dynamoCallsPerRequest: floorCalls,
        where: 'node:http server in the same process as the local host (shared event loop), measured alternately with it',
      },
      ratio: r,
      checks: [
        {
          benchmark: 'request overhead',
          subject: `GET /v4/domains/{name} throughput (floor/ours)`,
          figure: ratio(r),
          target: `<= ${MAX_RATIO.toFixed(2)}x`,
          pass: r <= MAX_RATIO,
        },
      ],
      profile: profiled,
    };
  });
}

export function printRequestOverhead(result: RequestOverheadResult): void {
  const { ours, floor } = result;
  print(`== Request overhead: GET /v4/domains/{name}, ${result.connections} keep-alive connections, ${result.warmupSeconds} s warm-up + ${result.durationSeconds} s, best of ${result.rounds} alternating runs ==`);
  print('ours  = local mode (lib/local, in-process, in-memory dynalite): gateway + authorizer (cached verdict) + area handler.');
  print(`floor = ${floor.where}: one GetItem (ConsistentRead, as ours) on the same dynalite and a JSON reply.`);
  print('Load: autocannon in a child process. Latency resolution is 1 ms (autocannon).');
  print();
  const row = (name: string, r: LoadRun, bytes: number) => [name, fixed(r.requestsPerSecond, 0), `${fixed(r.p50Ms, 0)} ms`, `${fixed(r.p99Ms, 0)} ms`, `${fixed(r.meanMs, 2)} ms`, String(bytes), ''];
  print(
    table([
      ['server', 'req/s', 'p50', 'p99', 'mean', 'reply B', ''],
      row('ours', ours.best, ours.responseBytes),
      row('floor', floor.best, floor.responseBytes),
      ['ratio floor/ours', ratio(result.ratio), '', '', '', '', `target <= ${MAX_RATIO.toFixed(2)}x  ${passFail(result.checks[0]!.pass)}`],
    ]),
  );
  print();
  print(`All runs (req/s): ours ${ours.runs.map((r) => fixed(r.requestsPerSecond, 0)).join(', ')}; floor ${floor.runs.map((r) => fixed(r.requestsPerSecond, 0)).join(', ')}.`);
  print(`DynamoDB calls per request (50 sequential requests each, counted where the handlers send them): ours ${describeCalls(ours.dynamoCallsPerRequest)}, floor ${describeCalls(floor.dynamoCallsPerRequest)}.`);
  print(`ours wrote ${fixed(ours.logLinesPerRequest, 2)} log line(s) per request to stdout (formatted, then dropped by the bench).`);
  print();
  const p = result.profile;
  if (p) {
    print(`CPU profile (one more ${result.durationSeconds} s run of each under the in-process V8 profiler; not used for the figures above):`);
    print(
      `main thread per request, idle included: ours ${fixed(p.oursUsPerRequest, 0)} us (${p.oursRequests} requests), ` +
        `floor ${fixed(p.floorUsPerRequest, 0)} us (${p.floorRequests} requests)`,
    );
    print();
    print(
      table([
        ['where ours spends more (self time per request)', 'ours us', 'floor us', 'extra us'],
        ...p.extra.map((r) => [r.name, fixed(r.oursUs), fixed(r.floorUs), fixed(r.extraUs)]),
      ]),
    );
    print();
    print(table([["ours' hottest functions (self time per request)", 'us'], ...p.oursTopFunctions.map((r) => [r.name, fixed(r.us)])]));
    print();
    print(`Profiles: ${OUT_DIR}/request-overhead-{ours,floor}.cpuprofile (open in Chrome DevTools).`);
    print();
  }
}

if (require.main === module) {
  requestOverhead({ profile: !process.argv.includes('--no-profile') })
    .then(printRequestOverhead)
    .catch((error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    });
}
