/**
 * CPU time per request of the messages area handler (functions/messages/handler.ts) sending
 * POST /v3/{domain}/messages as multipart/form-data: 3 recipients, text and html, a 50 KB
 * attachment. Against a floor that does what no implementation can skip, with the same I/O
 * (issue 10): decode the API Gateway body, parse the multipart form with busboy, build the same MIME
 * with nodemailer's composer, then make the same necessary AWS calls through plain SDK clients
 * with default settings, in this process, against the same stand-ins:
 *   - GetItem of the domain (consistent read): the send path must see a disabled or deleted domain
 *     at once, so it reads the domain on every send and does not cache it. The floor reads it too.
 *   - S3 PutObject of the MIME;
 *   - one DynamoDB BatchWriteItem of the message record and its accepted events (the very items
 *     ours wrote, under fresh keys);
 *   - SQS SendMessage of the send job.
 * "Default settings" means the clients as `new XClient({ region, endpoint })` builds them: the only
 * additions are S3's forcePathStyle (the stand-in serves buckets by path; no CPU effect) and, for
 * the record's absent optional fields, the items written without their undefined attributes (the
 * DocumentClient's default refuses them). The old no-I/O floor is still measured ("parse +
 * compose") to split the handler's own work from its calls.
 *
 *   npx tsx bench/send-cpu.ts [--no-profile]     (or as part of `npm run bench`)
 *
 * How it is measured, and why so:
 * - The handler runs in this process, invoked directly with the payload-2.0 event API Gateway
 *   builds (lib/local/api-gateway.ts), authorizer verdict included, inside the region's withEnv
 *   scope as the local gateway runs it. Its DynamoDB, S3 and SQS calls are real: they go to local
 *   mode's stand-ins (dynalite, s3rver, the SQS stand-in), started in a CHILD process
 *   (bench/lib/local-child.ts) so that the stand-ins' own CPU never lands in this process.
 * - The figure is process.cpuUsage() (user + system) across N sequential requests, divided by N.
 *   It counts every thread of this process (JS, GC helper threads, libuv pool, system calls of the
 *   handler's sockets), has no sampling error and adds no overhead; this process does nothing else
 *   meanwhile (its idle CPU is measured and printed). The V8 profiler only attributes, in one extra
 *   run: it samples the main thread alone, and slows it.
 * - Four variants in alternating rounds after a warm-up, each figure the median of the rounds:
 *   ours; "handler only", the same handler with its three SDK clients' send() answered in-process
 *   with the responses the stand-ins gave (no SDK, no I/O: the handler's own work); the floor; and
 *   "parse + compose", the floor without its AWS calls.
 *   The handler's AWS calls are also replayed without the handler, each step timed on its own,
 *   once through the handler's clients and once through the floor's plain ones: the CPU of each
 *   call, ours beside the floor's, beside the same GetItem sent bare with node:http. The handler's
 *   log line is formatted as usual, then dropped.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import { BatchWriteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client, type PutObjectCommandInput } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient, type SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { Crc32 } from '@aws-sdk/checksums/crc';
import { marshall } from '@aws-sdk/util-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, type BatchGetCommandInput, type BatchWriteCommandInput, type GetCommandInput, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import busboy from 'busboy';
import MailComposer from 'nodemailer/lib/mail-composer';
import { handler } from '../functions/messages/handler';
import { messageRoutes } from '../functions/messages/routes';
import { documentClient, s3Client, sqsClient } from '../functions/platform/aws-clients';
import { withEnv } from '../functions/platform/env';
import type { ApiEvent } from '../functions/platform/http/pipeline';
import { routeKey } from '../functions/platform/http/route';
import type { Principal } from '../functions/platform/principal';
import { concurrentSteps, describeCalls, perUnit, watchCalls, type SentCall } from './lib/aws-calls';
import { BENCH_KEY } from './lib/local';
import { startLocalChild, type LocalChild } from './lib/local-child';
import { basicAuth, primaryPrincipal } from './lib/principal';
import { layerOf, profile, saveProfile, selfTimes, topFunctions } from './lib/profile';
import { fixed, kb, median, note, OUT_DIR, passFail, percentile, print, ratio, table, type TargetCheck } from './lib/report';
import { silenceStdout } from './lib/stdout';

const ATTACHMENT_BYTES = 50 * 1024;
/** JIT warm-up: with fewer, both sides still get faster from round to round. */
/** How much each part runs: the full bench, or a smoke run that proves only that its set-up still works (npm test). */
interface Sizes {
  warmup: number;
  rounds: number;
  perRound: number;
  replaysPerRound: number;
  abRounds: number;
  abPerRound: number;
  socketRequests: number;
}
const FULL: Sizes = { warmup: 300, rounds: 10, perRound: 50, replaysPerRound: 4, abRounds: 40, abPerRound: 8, socketRequests: 100 };
const SMOKE: Sizes = { warmup: 3, rounds: 1, perRound: 3, replaysPerRound: 1, abRounds: 1, abPerRound: 1, socketRequests: 3 };
let sizes = FULL;
const PROFILE_REQUESTS = 150;
/** Issue 10: the whole send handler within 1.25x of a floor that makes the same writes. */
const MAX_RATIO = 1.25;

const SEND_ROUTE = messageRoutes.find((r) => r.operation === 'sendMessage')!;
const RECIPIENTS = ['Ann Example <ann@example.com>', 'bob@example.com', '"Carol C." <carol@example.net>'];

// A plausible transactional message: a few KB of text and HTML, some of it non-ASCII.
const PARAGRAPH =
  'Thank you for your order. Your statement for this month is attached as a PDF; the amount due is 128,40 € and will be charged on the 5th. ' +
  'If anything looks wrong, reply to this message and our team will get back to you within one business day. ';
const TEXT = `Hello Ann,\n\n${Array.from({ length: 8 }, () => PARAGRAPH).join('\n\n')}\n\nBest regards,\nThe Example team\n`;
const HTML =
  '<!doctype html><html><head><meta charset="utf-8"><title>Statement</title></head><body style="font-family:sans-serif">' +
  `<h1>Hello Ann,</h1>${Array.from({ length: 12 }, (_, i) => `<p class="p${i}">${PARAGRAPH}<a href="https://example.com/account/statements?id=${i}">View online</a></p>`).join('')}` +
  '<p>Best regards,<br>The Example team</p></body></html>';

interface Fixture {
  body: string;
  bodyBytes: number;
  contentType: string;
  domain: string;
  principal: Principal;
  authorization: string;
  host: string;
}

/** The request as an SDK sends it: a FormData body, serialised by undici exactly as fetch() would. */
async function multipartBody(domain: string): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append('from', `Example Billing <billing@${domain}>`);
  for (const to of RECIPIENTS) form.append('to', to);
  form.append('subject', 'Your statement for this month');
  form.append('text', TEXT);
  form.append('html', HTML);
  form.append('attachment', new Blob([randomBytes(ATTACHMENT_BYTES)], { type: 'application/pdf' }), 'statement.pdf');
  const request = new Request('http://127.0.0.1/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/** The payload-2.0 event API Gateway (and lib/local/api-gateway.ts) hands the area Lambda. */
function apiEvent(f: Fixture): ApiEvent {
  const requestId = randomUUID();
  const now = new Date();
  const key = routeKey(SEND_ROUTE);
  const path = `/v3/${f.domain}/messages`;
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: f.authorization,
    'content-length': String(f.bodyBytes),
    'content-type': f.contentType,
    host: f.host,
    'user-agent': 'mailgun.js/14 (bench)',
    'x-forwarded-for': '127.0.0.1',
    'x-forwarded-proto': 'http',
  };
  const http = { method: 'POST', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: headers['user-agent']! };
  return {
    version: '2.0',
    routeKey: key,
    rawPath: path,
    rawQueryString: '',
    headers,
    pathParameters: { domain: f.domain },
    requestContext: {
      accountId: 'local', apiId: 'local', domainName: f.host, domainPrefix: f.host.split('.')[0]!, http,
      requestId, routeKey: key, stage: '$default', time: now.toUTCString(), timeEpoch: now.getTime(),
      authorizer: { lambda: f.principal, integrationLatency: 0, principalId: '' },
    },
    body: f.body,
    isBase64Encoded: true,
  } as ApiEvent;
}

function lambdaContext(requestId: string): Context {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'mailplane-messages',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:mailplane-messages',
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/mailplane-messages',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// The floor: the same body in, the same MIME out, the same necessary AWS calls by plain clients.

interface FloorFile {
  field: string;
  filename: string;
  contentType: string;
  content: Buffer;
}

/** busboy with body.ts's options; fields and files collected the same way. */
function floorParse(body: Buffer, contentType: string): Promise<{ fields: Record<string, string[]>; files: FloorFile[] }> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string[]> = {};
    const files: FloorFile[] = [];
    const parser = busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8', limits: { fieldSize: 52 * 1024 * 1024, fileSize: 52 * 1024 * 1024 } });
    parser.on('field', (name, value) => (fields[name] ??= []).push(value));
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => files.push({ field: name, filename: info.filename ?? name, contentType: info.mimeType, content: Buffer.concat(chunks) }));
    });
    parser.on('error', reject);
    parser.on('close', () => resolve({ fields, files }));
    parser.end(body);
  });
}

/** The floor without I/O: decode, parse, compose. */
async function parseCompose(event: ApiEvent, domain: string): Promise<Buffer> {
  const body = Buffer.from(event.body!, 'base64');
  const { fields, files } = await floorParse(body, event.headers['content-type']!);
  const composer = new MailComposer({
    from: fields['from']![0],
    to: fields['to']!.join(', '),
    subject: fields['subject']![0],
    text: fields['text']![0],
    html: fields['html']![0],
    messageId: `<${Date.now()}.${randomBytes(8).toString('hex')}@${domain}>`,
    attachments: files.map((f) => ({ filename: f.filename, content: f.content, contentType: f.contentType })),
  });
  return new Promise((resolve, reject) => composer.compile().build((error, mime) => (error ? reject(error) : resolve(mime))));
}

/** Plain SDK clients with default settings, against the same stand-ins (forcePathStyle: the stand-in serves buckets by path). */
function plainClients(env: Readonly<Record<string, string | undefined>>): HandlerClients {
  const region = env['AWS_REGION'];
  return [
    DynamoDBDocumentClient.from(new DynamoDBClient({ region, endpoint: env['DYNAMODB_ENDPOINT'] })),
    new S3Client({ region, endpoint: env['S3_ENDPOINT'], forcePathStyle: true }),
    new SQSClient({ region, endpoint: env['SQS_ENDPOINT'] }),
  ];
}

/** An item as written without its undefined attributes (the default DocumentClient refuses them; ours drops them too). */
const defined = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** What the floor sends, taken from one request of ours: the same domain key, table, bucket, queue and items. */
interface FloorPlan {
  clients: HandlerClients;
  get: GetCommandInput;
  bucket: string;
  /** `<account>/<domain>/` */
  keyPrefix: string;
  table: string;
  items: Array<Record<string, unknown>>;
  queueUrl: string;
}

/**
 * The floor's read of the domain (consistent GetItem), from ours: ours reads the domain together
 * with the lists among the recipients in one BatchGetItem (a list address makes a send a list post).
 */
function domainRead(calls: readonly SentCall[]): GetCommandInput {
  const get = calls.find((c) => c.command === 'GetItemCommand');
  if (get) return get.input as unknown as GetCommandInput;
  const batch = calls.find((c) => c.command === 'BatchGetItemCommand')?.input as unknown as BatchGetCommandInput | undefined;
  const [table, request] = Object.entries(batch?.RequestItems ?? {})[0] ?? [];
  const key = request?.Keys?.[0];
  if (!table || !key) throw new Error('the floor expects ours to read the domain');
  return { TableName: table, Key: key, ConsistentRead: true };
}

function floorPlan(calls: readonly SentCall[], clients: HandlerClients): FloorPlan {
  const one = (command: string) => {
    const found = calls.filter((c) => c.command === command);
    if (found.length !== 1) throw new Error(`the floor expects ours to send one ${command}, saw ${found.length}`);
    return found[0]!.input;
  };
  const put = one('PutObjectCommand') as unknown as PutObjectCommandInput;
  const batch = defined(one('BatchWriteItemCommand') as unknown as BatchWriteCommandInput);
  const [table, writes] = Object.entries(batch.RequestItems!)[0]!;
  return {
    clients,
    get: domainRead(calls),
    bucket: put.Bucket!,
    keyPrefix: put.Key!.slice(0, put.Key!.lastIndexOf('/') + 1),
    table,
    items: writes.map((w) => w.PutRequest!.Item!),
    queueUrl: (one('SendMessageCommand') as unknown as SendMessageCommandInput).QueueUrl!,
  };
}

/** Parse + compose, then the necessary calls in ours' order: read the domain, store the MIME, write record + events, queue. */
async function floor(event: ApiEvent, domain: string, plan: FloorPlan): Promise<Buffer> {
  const [doc, s3, sqs] = plan.clients;
  await doc.send(new GetCommand(plan.get));
  const mime = await parseCompose(event, domain);
  const storageKey = randomBytes(18).toString('base64url');
  await s3.send(new PutObjectCommand({ Bucket: plan.bucket, Key: `${plan.keyPrefix}${storageKey}.eml`, Body: mime, ContentType: 'message/rfc822' }));
  await doc.send(new BatchWriteCommand({ RequestItems: { [plan.table]: plan.items.map((item) => ({ PutRequest: { Item: { ...item, pk: `${String(item['pk'])}#${storageKey}` } } })) } }));
  await sqs.send(new SendMessageCommand({ QueueUrl: plan.queueUrl, MessageBody: JSON.stringify({ storageKey, attempt: 0 }) }));
  return mime;
}

// ---------------------------------------------------------------------------------------------

interface Round {
  requests: number;
  /** CPU of this process per request, microseconds. */
  cpuUs: number;
  userUs: number;
  systemUs: number;
  /** Wall time per request, milliseconds. */
  wallMs: number;
}

/** `n` sequential calls of `one`, under process.cpuUsage(); events are built before the clock starts. */
async function measure(n: number, make: () => ApiEvent, one: (event: ApiEvent) => Promise<void>): Promise<Round & { latenciesMs: number[] }> {
  const events = Array.from({ length: n }, make);
  const latenciesMs: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const event of events) {
    const s = performance.now();
    await one(event);
    latenciesMs.push(performance.now() - s);
  }
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { requests: n, cpuUs: (cpu.user + cpu.system) / n, userUs: cpu.user / n, systemUs: cpu.system / n, wallMs: wall / n, latenciesMs };
}

/** CPU this process burns per second while idle (timers, sockets): the noise under every figure. */
async function idleCpu(ms = 300): Promise<number> {
  const c0 = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) / ms) * 1000;
}

// ---------------------------------------------------------------------------------------------
// The handler without its AWS calls: the clients' send() answered in-process.

interface Sender {
  send(command: object, ...rest: unknown[]): Promise<unknown>;
}

/**
 * What an answer is recorded under: the command's class, and for a read the items it reads (the
 * domain and the monthly caps are both GetCommands, and must not answer for each other).
 */
function answerKey(command: object): string {
  const name = command.constructor.name;
  const input = (command as { input?: { Key?: unknown; RequestItems?: unknown } }).input;
  if (name === 'GetCommand') return `${name} ${JSON.stringify(input?.Key)}`;
  if (name === 'BatchGetCommand') return `${name} ${JSON.stringify(input?.RequestItems)}`;
  return name;
}

/** Runs `fn`, keeping in `answers` what each client's send() answered, by answerKey (the last answer wins). */
async function recordAnswers<T>(clients: readonly Sender[], answers: Map<string, unknown>, fn: () => Promise<T>): Promise<T> {
  const restore = clients.map((client) => {
    const send = client.send;
    client.send = async function (this: Sender, command: object, ...rest: unknown[]) {
      const out = await send.call(this, command, ...rest);
      answers.set(answerKey(command), out);
      return out;
    };
    return () => void delete (client as Partial<Sender>).send;
  });
  try {
    return await fn();
  } finally {
    for (const r of restore) r();
  }
}

/**
 * While `fn` runs, every send() of `clients` resolves at once with the recorded answer (a shallow
 * copy, as the SDK answers afresh). A command the recording never saw (one the handler makes only
 * now and then, such as a read its cache usually spares) goes out for real once and is answered
 * from the recording after that: the replay follows whatever calls the code makes.
 */
async function answeringInProcess<T>(clients: readonly Sender[], answers: Map<string, unknown>, fn: () => Promise<T>): Promise<T> {
  for (const client of clients) {
    if (Object.prototype.hasOwnProperty.call(client, 'send')) throw new Error('the bench expects send() on the client prototype');
    const real = (Object.getPrototypeOf(client) as Sender).send;
    client.send = async (command: object, ...rest: unknown[]) => {
      const key = answerKey(command);
      if (!answers.has(key)) answers.set(key, await real.call(client, command, ...rest));
      return { ...(answers.get(key) as object) };
    };
  }
  try {
    return await fn();
  } finally {
    for (const client of clients) delete (client as Partial<Sender>).send;
  }
}

// ---------------------------------------------------------------------------------------------
// The SDK's share, call by call.

/** What one step of the handler's AWS calls costs this process when replayed without the handler. */
interface CallCost {
  what: string;
  /** Calls in the step (more than one: sent together, as the handler does with Promise.all). */
  calls: number;
  /** CPU of the step, microseconds (mean over every replay). */
  cpuUs: number;
}

function describeCall(call: SentCall): string {
  switch (call.command) {
    case 'GetItemCommand':
      return `GetItem ${String((call.input['Key'] as { pk?: string })?.pk ?? '').split('#')[0]} (the domain)`;
    case 'PutItemCommand':
      return call.input['ConditionExpression'] ? 'PutItem message record (if absent)' : 'PutItem accepted event';
    case 'PutObjectCommand':
      return `PutObject MIME (${kb((call.input['Body'] as Buffer).length)})`;
    case 'SendMessageCommand':
      return 'SendMessage send job';
    case 'BatchWriteItemCommand':
      return 'BatchWriteItem message record + accepted events';
    case 'BatchGetItemCommand':
      return 'BatchGetItem the domain + lists among the recipients';
    default:
      return call.command;
  }
}

/** The handler's three SDK clients (memoised per region and endpoint: the very ones it sends with). */
type HandlerClients = readonly [DynamoDBDocumentClient, S3Client, SQSClient];

/**
 * Replays, through the handler's own clients, the AWS calls one request made: same inputs (fresh
 * keys, so conditional writes still succeed), same order, concurrent where the handler's were.
 * Each step is timed alone with process.cpuUsage (nothing else runs meanwhile): what the SDK side
 * of each call costs without the handler around it. Run within the rounds, beside the others.
 */
function replayer(calls: SentCall[], [doc, s3, sqs]: HandlerClients, env: Readonly<Record<string, string | undefined>>, options: { bare: boolean; tag: string }) {
  let serial = 0;
  const send = (call: SentCall): Promise<unknown> => {
    const fresh = `bench-replay-${options.tag}-${++serial}`;
    switch (call.command) {
      case 'GetItemCommand':
        return doc.send(new GetCommand(call.input as unknown as GetCommandInput));
      case 'PutItemCommand': {
        const input = call.input as unknown as PutCommandInput;
        return doc.send(new PutCommand({ ...input, Item: { ...input.Item, pk: `${String(input.Item!['pk'])}#${fresh}` } }));
      }
      case 'PutObjectCommand': {
        const input = call.input as unknown as PutObjectCommandInput;
        return s3.send(new PutObjectCommand({ ...input, Key: `${input.Key}.${fresh}` }));
      }
      case 'SendMessageCommand':
        return sqs.send(new SendMessageCommand(call.input as unknown as SendMessageCommandInput));
      case 'BatchGetItemCommand':
        return doc.send(new BatchGetCommand(call.input as unknown as BatchGetCommandInput));
      case 'BatchWriteItemCommand': {
        const input = call.input as unknown as BatchWriteCommandInput;
        const requests = Object.fromEntries(
          Object.entries(input.RequestItems!).map(([table, writes]) => [table, writes.map((w) => ({ PutRequest: { Item: { ...w.PutRequest!.Item, pk: `${String(w.PutRequest!.Item!['pk'])}#${fresh}` } } }))]),
        );
        return doc.send(new BatchWriteCommand({ RequestItems: requests }));
      }
      default:
        throw new Error(`the bench cannot replay ${call.command}`);
    }
  };
  const steps = concurrentSteps(calls);
  const totals = steps.map(() => 0);
  let replays = 0;
  // For scale: the domain GetItem's request without the SDK (JSON body, keep-alive socket, a fixed
  // unsigned Authorization header, which the stand-in does not check). The least any client can do.
  const get = options.bare ? domainRead(calls) : undefined;
  const endpoint = new URL(env['DYNAMODB_ENDPOINT']!);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const bareBody = get ? JSON.stringify({ TableName: get.TableName, Key: marshall(get.Key as Record<string, unknown>) }) : '';
  const bareGet = () =>
    new Promise<void>((resolve, reject) => {
      const headers = {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.GetItem',
        'x-amz-date': '20260101T000000Z',
        authorization: 'AWS4-HMAC-SHA256 Credential=S3RVER/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0',
        'content-length': String(Buffer.byteLength(bareBody)),
      };
      const req = http.request({ host: endpoint.hostname, port: endpoint.port, method: 'POST', path: '/', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`bare GetItem answered ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(bareBody);
    });
  let bareTotal = 0;
  return {
    /** Replays the whole request's calls `n` times; `count` false for warm-up. */
    async run(n: number, count = true): Promise<void> {
      for (let i = 0; i < n; i++) {
        for (const [s, step] of steps.entries()) {
          const c0 = process.cpuUsage();
          await Promise.all(step.map(send));
          const c = process.cpuUsage(c0);
          if (count) totals[s]! += c.user + c.system;
        }
        if (get) {
          const c0 = process.cpuUsage();
          await bareGet();
          const c = process.cpuUsage(c0);
          if (count) bareTotal += c.user + c.system;
        }
        if (count) replays++;
      }
    },
    costs: (): CallCost[] => steps.map((step, s) => ({ what: describeCall(step[0]!), calls: step.length, cpuUs: totals[s]! / replays })),
    replays: () => replays,
    bareGetItemUs: () => (get ? bareTotal / replays : NaN),
    close: () => agent.destroy(),
  };
}

// ---------------------------------------------------------------------------------------------
// Below the floor: what one client setting saves on one call.

/** One setting's saving: the same call through two clients that differ only in it, per-call CPU. */
export interface SettingSaving {
  setting: string;
  call: string;
  /** Per-call CPU without the setting (the floor's default) and with it, microseconds (medians of the batches). */
  withoutUs: number;
  withUs: number;
  /** The work the setting adds or removes, timed alone in a tight loop (far less noisy than the A/B), and what it is. */
  work?: { what: string; us: number };
}


/** CPU of `fn` per call over `n` calls, in a tight loop: for small pure computations the A/B cannot resolve. */
function tight(n: number, fn: () => unknown): number {
  for (let i = 0; i < 50; i++) fn();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

/** `a` and `b` in alternating batches (order flipping each round, 2 warm-up rounds dropped): median per-call CPU of each. */
async function ab(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let round = 0; round < sizes.abRounds + 2; round++) {
    for (const k of round % 2 ? [1, 0] : [0, 1]) {
      const fn = k ? b : a;
      const c0 = process.cpuUsage();
      for (let i = 0; i < sizes.abPerRound; i++) await fn();
      const c = process.cpuUsage(c0);
      if (round >= 2) times[k]!.push((c.user + c.system) / sizes.abPerRound);
    }
  }
  return [median(times[0]), median(times[1])];
}

/**
 * The candidate settings, each against the floor's default client on the call it touches:
 * - S3 requestChecksumCalculation WHEN_REQUIRED (ours): no CRC32 of the MIME in PutObject.
 * - connection reuse: the SDK's default agent already keeps connections alive; measured the other
 *   way round, against a client without keep-alive, to show what the default is worth.
 * - marshalling: the DocumentClient marshals the items once (marshall, then the protocol
 *   serialiser writes the JSON); against the low-level client given items marshalled by the caller.
 */
async function settingSavings(env: Readonly<Record<string, string | undefined>>, plan: FloorPlan, mime: Buffer): Promise<SettingSaving[]> {
  const region = env['AWS_REGION'];
  const s3 = (extra: object) => new S3Client({ region, endpoint: env['S3_ENDPOINT'], forcePathStyle: true, ...extra });
  const s3Default = s3({});
  const s3NoCrc = s3({ requestChecksumCalculation: 'WHEN_REQUIRED' });
  const sqsDefault = new SQSClient({ region, endpoint: env['SQS_ENDPOINT'] });
  const noKeepAlive = new http.Agent({ keepAlive: false });
  const sqsNoReuse = new SQSClient({ region, endpoint: env['SQS_ENDPOINT'], requestHandler: { httpAgent: noKeepAlive } });
  const ddbLow = new DynamoDBClient({ region, endpoint: env['DYNAMODB_ENDPOINT'] });
  const [doc] = plan.clients;
  let serial = 0;
  const put = (client: S3Client) => () => client.send(new PutObjectCommand({ Bucket: plan.bucket, Key: `${plan.keyPrefix}ab-${++serial}.eml`, Body: mime, ContentType: 'message/rfc822' }));
  const job = (client: SQSClient) => () => client.send(new SendMessageCommand({ QueueUrl: plan.queueUrl, MessageBody: JSON.stringify({ storageKey: `ab-${++serial}`, attempt: 0 }) }));
  const fresh = () => plan.items.map((item) => ({ ...item, pk: `${String(item['pk'])}#ab-${++serial}` }));
  try {
    const crc = await ab(put(s3Default), put(s3NoCrc));
    const reuse = await ab(job(sqsNoReuse), job(sqsDefault));
    const marshalling = await ab(
      () => doc.send(new BatchWriteCommand({ RequestItems: { [plan.table]: fresh().map((Item) => ({ PutRequest: { Item } })) } })),
      () => ddbLow.send(new BatchWriteItemCommand({ RequestItems: { [plan.table]: fresh().map((item) => ({ PutRequest: { Item: marshall(item) } })) } })),
    );
    const crc32Us = tight(2000, () => {
      const hash = new Crc32();
      hash.update(mime);
      return hash.digest();
    });
    const marshallUs = tight(2000, () => plan.items.map((item) => marshall(item)));
    return [
      {
        setting: "S3 requestChecksumCalculation 'WHEN_REQUIRED' (no CRC32 header; ours)",
        call: `PutObject MIME (${kb(mime.length)})`,
        withoutUs: crc[0],
        withUs: crc[1],
        work: { what: 'CRC32 of the MIME (removed)', us: crc32Us },
      },
      { setting: 'connection reuse (SDK default keep-alive, vs an agent without it)', call: 'SendMessage send job', withoutUs: reuse[0], withUs: reuse[1] },
      {
        setting: 'items marshalled by the caller, low-level client (vs DocumentClient)',
        call: 'BatchWriteItem record + events',
        withoutUs: marshalling[0],
        withUs: marshalling[1],
        work: { what: 'marshall() of the items (done once either way)', us: marshallUs },
      },
    ];
  } finally {
    for (const c of [s3Default, s3NoCrc, sqsDefault, sqsNoReuse, ddbLow]) c.destroy();
    noKeepAlive.destroy();
  }
}

/** TCP connections this process opens while `fn` runs (connection reuse, checked). */
async function socketsOpened<T>(fn: () => Promise<T>): Promise<number> {
  let opened = 0;
  const count = () => void opened++;
  diagnostics.subscribe('net.client.socket', count);
  try {
    await fn();
  } finally {
    diagnostics.unsubscribe('net.client.socket', count);
  }
  return opened;
}

// ---------------------------------------------------------------------------------------------

interface Summary {
  cpuUs: number;
  userUs: number;
  systemUs: number;
  wallMs: number;
  rounds: Round[];
}

const summarize = (rounds: Round[]): Summary => ({
  cpuUs: median(rounds.map((r) => r.cpuUs)),
  userUs: median(rounds.map((r) => r.userUs)),
  systemUs: median(rounds.map((r) => r.systemUs)),
  wallMs: median(rounds.map((r) => r.wallMs)),
  rounds,
});

type Variant = 'ours' | 'handlerOnly' | 'floor' | 'parseCompose';
const VARIANTS: readonly Variant[] = ['ours', 'handlerOnly', 'floor', 'parseCompose'];
const LABEL: Record<Variant, string> = { ours: 'ours', handlerOnly: 'handler only', floor: 'floor', parseCompose: 'parse + compose' };

/** Where the sampled main-thread time goes, per request; idle excluded. */
interface ProfileSummary {
  requests: number;
  busyUs: Record<Variant, number>;
  groups: Array<{ name: string } & Record<Variant, number>>;
  /** Packages / folders where the handler alone spends more than the floor (no SDK in either). */
  handlerExtra: Array<{ name: string; handlerOnlyUs: number; floorUs: number; extraUs: number }>;
  oursTopFunctions: Array<{ name: string; us: number }>;
}

/** Coarse groups for the attribution: which layer of the stack a sampled frame belongs to (this bench's own, then the common ones). */
function groupOf(bucket: string): string {
  return layerOf(bucket, (b) => {
    if (['nodemailer', 'busboy', 'streamsearch'].includes(b)) return 'MIME parse + compose (busboy, nodemailer)';
    if (b === 'zod') return 'zod';
    if (b === 'node:internal/async_hooks') return 'async_hooks (AsyncLocalStorage of withEnv)';
    return undefined;
  });
}

export interface SendCpuResult {
  request: { route: string; bodyBytes: number; contentType: string; recipients: number; attachmentBytes: number; textBytes: number; htmlBytes: number };
  warmup: number;
  rounds: number;
  perRound: number;
  idleCpuUsPerSecond: number;
  ours: Summary & { latencyP50Ms: number; latencyP99Ms: number; mimeBytes: number; awsCallsPerRequest: Record<string, number>; logLinesPerRequest: number; socketsPer100Requests: number };
  /** Settings below the floor, each measured on its own. */
  settings: SettingSaving[];
  /** The same handler with its AWS calls answered in-process: its own work. */
  handlerOnly: Summary;
  floor: Summary & { mimeBytes: number };
  /** The floor without its AWS calls. */
  parseCompose: Summary;
  /** ours / floor: the target. */
  ratio: number;
  /** handler only / parse + compose. */
  handlerOnlyRatio: number;
  /** The AWS calls of one request replayed without the handler, step by step, through ours' clients and the floor's plain ones. */
  replay: { replays: number; calls: CallCost[]; totalUs: number; floorCalls: CallCost[]; floorTotalUs: number; bareGetItemUs: number };
  checks: TargetCheck[];
  profile?: ProfileSummary;
  durationSeconds: number;
}

export async function sendCpu(options: { profile?: boolean; smoke?: boolean } = {}): Promise<SendCpuResult> {
  const started = performance.now();
  sizes = options.smoke ? SMOKE : FULL;
  const stdout = silenceStdout();
  let local: LocalChild | undefined;
  try {
    note('send handler CPU: starting local mode in a child process (stand-ins only)');
    local = await startLocalChild(BENCH_KEY);
    const env = local.env;
    const authorization = basicAuth(BENCH_KEY);
    const { principal, sandbox } = await primaryPrincipal(env, authorization);
    const { body, contentType } = await multipartBody(sandbox);
    const fixture: Fixture = { body: body.toString('base64'), bodyBytes: body.length, contentType, domain: sandbox, principal, authorization, host: '127.0.0.1' };
    const make = () => apiEvent(fixture);
    const clients: HandlerClients = withEnv(env, () => [documentClient(), s3Client(), sqsClient()] as const);

    const ours = async (event: ApiEvent) => {
      const result = (await withEnv(env, () => handler(event, lambdaContext(event.requestContext.requestId)))) as APIGatewayProxyStructuredResultV2;
      if (result.statusCode !== 200) throw new Error(`the handler answered ${result.statusCode}: ${String(result.body).slice(0, 300)}`);
    };

    // Probes: what ours calls and stores, the answers it got, and that the floor builds the same message.
    const linesBefore = stdout.lines();
    // Answers are kept from the first request on: calls a cache spares later are recorded here.
    const answers = new Map<string, unknown>();
    const probe = await recordAnswers(clients, answers, () => watchCalls(clients, () => measure(10, make, ours)));
    const logLinesPerRequest = (stdout.lines() - linesBefore) / 10;
    const stored = probe.calls.filter((c) => c.command === 'PutObjectCommand').map((c) => (c.input['Body'] as Buffer).length);
    if (stored.length !== 10) throw new Error(`expected one stored MIME per request, saw ${stored.length}`);
    const single = await watchCalls(clients, () => ours(make()));
    await recordAnswers(clients, answers, () => ours(make()));
    const plan = floorPlan(single.calls, withEnv(env, () => plainClients(env)));
    const floorOne = async (event: ApiEvent) => void (await floor(event, sandbox, plan));
    const floorMime = await floor(make(), sandbox, plan);
    // The floor's clients get the same inputs, as the default DocumentClient takes them.
    const floorCalls = single.calls.map((c) => (c.command.endsWith('ItemCommand') ? { ...c, input: defined(c.input) } : c));

    const runs: Record<Variant, (n: number) => Promise<Round & { latenciesMs: number[] }>> = {
      ours: (n) => measure(n, make, ours),
      handlerOnly: (n) => answeringInProcess(clients, answers, () => measure(n, make, ours)),
      floor: (n) => measure(n, make, floorOne),
      parseCompose: (n) => measure(n, make, async (event) => void (await parseCompose(event, sandbox))),
    };
    const replay = replayer(single.calls, clients, env, { bare: true, tag: 'ours' });
    const floorReplay = replayer(floorCalls, plan.clients, env, { bare: false, tag: 'floor' });

    note(`send handler CPU: warm-up (${sizes.warmup} requests each)`);
    for (const v of VARIANTS) await runs[v](sizes.warmup);
    await replay.run(5, false);
    await floorReplay.run(5, false);
    const rounds: Record<Variant, Array<Round & { latenciesMs: number[] }>> = { ours: [], handlerOnly: [], floor: [], parseCompose: [] };
    // One after the other, never together; the order rotates between rounds.
    for (let round = 0; round < sizes.rounds; round++) {
      note(`send handler CPU: round ${round + 1}/${sizes.rounds} (${sizes.perRound} requests each: ours, handler only, floor, parse + compose; ${sizes.replaysPerRound} replays of ours' AWS calls, through ours' clients and the floor's)`);
      for (let k = 0; k < VARIANTS.length; k++) {
        const v = VARIANTS[(k + round) % VARIANTS.length]!;
        rounds[v].push(await runs[v](sizes.perRound));
      }
      // Alternating which goes first.
      for (const r of round % 2 ? [floorReplay, replay] : [replay, floorReplay]) await r.run(sizes.replaysPerRound);
    }
    const idle = await idleCpu();
    const strip = ({ latenciesMs: _, ...r }: Round & { latenciesMs?: number[] }): Round => r;
    const o = summarize(rounds.ours.map(strip));
    const h = summarize(rounds.handlerOnly.map(strip));
    const f = summarize(rounds.floor.map(strip));
    const pc = summarize(rounds.parseCompose.map(strip));
    const latencies = rounds.ours.flatMap((r) => r.latenciesMs);
    const socketsPer100Requests = ((await socketsOpened(() => measure(sizes.socketRequests, make, ours))) * 100) / sizes.socketRequests;
    note('send handler CPU: settings below the floor, each A/B on its own call');
    const settings = await settingSavings(env, plan, floorMime);
    const calls = replay.costs();
    const fcalls = floorReplay.costs();
    replay.close();
    floorReplay.close();
    for (const c of plan.clients) c.destroy();
    const r = o.cpuUs / f.cpuUs;

    let profiled: ProfileSummary | undefined;
    if (options.profile) {
      const times = {} as Record<Variant, ReturnType<typeof selfTimes>>;
      for (const v of VARIANTS) {
        note(`send handler CPU: V8 profile of ${LABEL[v]} (${PROFILE_REQUESTS} requests, not used for the figures)`);
        const { profile: p } = await profile(() => runs[v](PROFILE_REQUESTS));
        saveProfile(`send-cpu-${v}`, p);
        times[v] = selfTimes(p, { weight: 'samples' });
      }
      const per = (v: Variant, bucket: string) => (times[v].buckets.get(bucket) ?? 0) / PROFILE_REQUESTS;
      const names = [...new Set(VARIANTS.flatMap((v) => [...times[v].buckets.keys()]))].filter((n) => n !== '(idle)');
      const groups = new Map<string, Record<Variant, number>>();
      for (const name of names) {
        const group = groupOf(name);
        const g = groups.get(group) ?? { ours: 0, handlerOnly: 0, floor: 0, parseCompose: 0 };
        for (const v of VARIANTS) g[v] += per(v, name);
        groups.set(group, g);
      }
      profiled = {
        requests: PROFILE_REQUESTS,
        busyUs: Object.fromEntries(VARIANTS.map((v) => [v, (times[v].totalUs - (times[v].buckets.get('(idle)') ?? 0)) / PROFILE_REQUESTS])) as Record<Variant, number>,
        groups: [...groups.entries()].map(([name, g]) => ({ name, ...g })).sort((a, b) => b.ours - a.ours),
        handlerExtra: names
          .map((name) => ({ name, handlerOnlyUs: per('handlerOnly', name), floorUs: per('parseCompose', name), extraUs: per('handlerOnly', name) - per('parseCompose', name) }))
          .sort((a, b) => b.extraUs - a.extraUs)
          .slice(0, 12),
        oursTopFunctions: topFunctions(times.ours.functions, PROFILE_REQUESTS),
      };
    }

    return {
      request: {
        route: `${SEND_ROUTE.method} ${SEND_ROUTE.path}`,
        bodyBytes: body.length,
        contentType: contentType.split(';')[0]!,
        recipients: RECIPIENTS.length,
        attachmentBytes: ATTACHMENT_BYTES,
        textBytes: Buffer.byteLength(TEXT),
        htmlBytes: Buffer.byteLength(HTML),
      },
      warmup: sizes.warmup,
      rounds: sizes.rounds,
      perRound: sizes.perRound,
      idleCpuUsPerSecond: idle,
      ours: {
        ...o,
        latencyP50Ms: percentile(latencies, 50),
        latencyP99Ms: percentile(latencies, 99),
        mimeBytes: median(stored),
        awsCallsPerRequest: perUnit(probe.calls, 10),
        logLinesPerRequest,
        socketsPer100Requests,
      },
      settings,
      handlerOnly: h,
      floor: { ...f, mimeBytes: floorMime.length },
      parseCompose: pc,
      ratio: r,
      handlerOnlyRatio: h.cpuUs / pc.cpuUs,
      replay: {
        replays: replay.replays(),
        calls,
        totalUs: calls.reduce((sum, c) => sum + c.cpuUs, 0),
        floorCalls: fcalls,
        floorTotalUs: fcalls.reduce((sum, c) => sum + c.cpuUs, 0),
        bareGetItemUs: replay.bareGetItemUs(),
      },
      checks: [
        {
          benchmark: 'send handler CPU',
          subject: 'POST /v3/{domain}/messages CPU per request (ours/floor)',
          figure: ratio(r),
          target: `<= ${MAX_RATIO.toFixed(2)}x`,
          pass: r <= MAX_RATIO,
        },
      ],
      profile: profiled,
      durationSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    await local?.close();
    stdout.restore();
  }
}

export function printSendCpu(result: SendCpuResult): void {
  const { ours, handlerOnly: ho, floor: fl, parseCompose: pc, request: q } = result;
  print(`== Send handler CPU: ${q.route}, ${q.contentType} (${kb(q.bodyBytes)}: ${q.recipients} recipients, text ${kb(q.textBytes)}, html ${kb(q.htmlBytes)}, ${kb(q.attachmentBytes)} attachment) ==`);
  print('ours            = functions/messages/handler.ts `handler` called in this process with an API Gateway v2 event (authorizer verdict');
  print("                  included); its DynamoDB/S3/SQS calls go to local mode's stand-ins in a child process (their CPU is not counted).");
  print("handler only    = the same, its SDK clients' send() answered in-process with the stand-ins' recorded answers: no SDK, no I/O.");
  print('floor           = base64-decode the same event body, parse it with busboy (body.ts\'s options), build the same MIME with');
  print('                  nodemailer/lib/mail-composer, then the same necessary calls in the same order through plain SDK clients');
  print('                  (default settings; S3 path-style for the stand-in) to the same stand-ins: GetItem of the domain (consistent:');
  print('                  a disabled or deleted domain must stop sending at once, so neither side caches it), PutObject of the MIME,');
  print('                  one BatchWriteItem of the same record + accepted events, SendMessage of the job.');
  print('parse + compose = the floor without its AWS calls (the old no-I/O floor).');
  print(
    `CPU = process.cpuUsage() (user + system, all threads of this process) over ${result.perRound} sequential requests, median of ${result.rounds} rounds ` +
      `(order rotating) after ${result.warmup} warm-up requests each. Took ${fixed(result.durationSeconds, 0)} s.`,
  );
  print();
  const row = (name: string, s: Summary, mime: string, note2: string) => [name, `${fixed(s.cpuUs, 0)} us`, `${fixed(s.userUs, 0)} us`, `${fixed(s.systemUs, 0)} us`, `${fixed(s.wallMs, 2)} ms`, mime, note2];
  print(
    table([
      ['', 'CPU/request', 'user', 'system', 'wall/request', 'MIME built', ''],
      row('ours', ours, kb(ours.mimeBytes), ''),
      row('floor', fl, kb(fl.mimeBytes), ''),
      ['ratio ours/floor', ratio(result.ratio), '', '', '', '', `target <= ${MAX_RATIO.toFixed(2)}x  ${passFail(result.checks[0]!.pass)}`],
      row('handler only', ho, '', `${ratio(result.handlerOnlyRatio)} of parse + compose`),
      row('parse + compose', pc, '', ''),
    ]),
  );
  print();
  const roundsOf = (s: Summary) => s.rounds.map((r) => fixed(r.cpuUs, 0)).join(', ');
  print(`Rounds (CPU us/request): ours ${roundsOf(ours)}; floor ${roundsOf(fl)}; handler only ${roundsOf(ho)}; parse + compose ${roundsOf(pc)}.`);
  print(`ours latency (wall, stand-ins' time included): p50 ${fixed(ours.latencyP50Ms, 2)} ms, p99 ${fixed(ours.latencyP99Ms, 2)} ms.`);
  print(`AWS calls per request (ours): ${describeCalls(ours.awsCallsPerRequest)}; log lines per request: ${fixed(ours.logLinesPerRequest, 2)}.`);
  print(`TCP connections opened by ours per 100 requests (after warm-up): ${ours.socketsPer100Requests} (the SDK's default agent keeps them alive).`);
  print(`This process while idle: ${fixed(result.idleCpuUsPerSecond, 0)} us of CPU per second (noise under the figures).`);
  print();
  const sdkUs = ours.cpuUs - ho.cpuUs;
  const share = (us: number) => `${fixed((100 * us) / ours.cpuUs, 0)}%`;
  print(`Where ours' CPU goes (process.cpuUsage):`);
  print();
  print(
    table([
      ['part of one request', 'CPU/request', 'share of ours'],
      ['parse + compose', `${fixed(pc.cpuUs, 0)} us`, share(pc.cpuUs)],
      ['rest of the handler (= handler only - parse + compose)', `${fixed(ho.cpuUs - pc.cpuUs, 0)} us`, share(ho.cpuUs - pc.cpuUs)],
      ['its AWS calls through the SDK (= ours - handler only)', `${fixed(sdkUs, 0)} us`, share(sdkUs)],
      ["the floor's AWS calls (= floor - parse + compose)", `${fixed(fl.cpuUs - pc.cpuUs, 0)} us`, ''],
    ]),
  );
  print();
  print(`Per call: the handler's AWS calls replayed without it (same inputs and order, fresh keys, each step timed alone, mean of`);
  print(`${result.replay.replays} replays spread over the rounds), through ours' clients and through the floor's plain ones:`);
  print();
  const fc = result.replay.floorCalls;
  print(
    table([
      ['call', 'ours CPU/call', 'floor CPU/call', 'ours - floor'],
      ...result.replay.calls.map((c, i) => [
        `${c.what}${c.calls > 1 ? ` x${c.calls} (concurrent)` : ''}`,
        `${fixed(c.cpuUs, 0)} us`,
        fc[i] ? `${fixed(fc[i]!.cpuUs, 0)} us` : '',
        fc[i] ? `${fixed(c.cpuUs - fc[i]!.cpuUs, 0)} us` : '',
      ]),
      ['all calls', `${fixed(result.replay.totalUs, 0)} us`, `${fixed(result.replay.floorTotalUs, 0)} us`, `${fixed(result.replay.totalUs - result.replay.floorTotalUs, 0)} us`],
      ['for scale: the GetItem sent bare (node:http, keep-alive, no SDK)', `${fixed(result.replay.bareGetItemUs, 0)} us`, '', ''],
    ]),
  );
  print(`The target allows ${fixed(MAX_RATIO * fl.cpuUs, 0)} us per request (${MAX_RATIO.toFixed(2)} x the floor's ${fixed(fl.cpuUs, 0)} us).`);
  print();
  print(`Below the floor: each setting A/B on the call it touches, two clients differing only in it, ${sizes.abPerRound}-call batches alternating,`);
  print(`median of ${sizes.abRounds} batches each (per-call CPU):`);
  print();
  print(
    table([
      ['setting', 'call', 'without', 'with', 'saving (A/B)', 'the work itself, timed alone'],
      ...result.settings.map((x) => [
        x.setting,
        x.call,
        `${fixed(x.withoutUs, 0)} us`,
        `${fixed(x.withUs, 0)} us`,
        `${fixed(x.withoutUs - x.withUs, 0)} us`,
        x.work ? `${x.work.what}: ${fixed(x.work.us, 1)} us` : '',
      ]),
    ]),
  );
  print();
  const p = result.profile;
  if (p) {
    print(`V8 profile (one more run of ${p.requests} requests each, not used for the figures): main-thread self time per request, idle excluded,`);
    print('each sample counted as one median sampling interval (approximates on-CPU time while other processes compete for the cores).');
    print(`Sampled busy time per request: ours ${fixed(p.busyUs.ours, 0)} us, handler only ${fixed(p.busyUs.handlerOnly, 0)} us, floor ${fixed(p.busyUs.floor, 0)} us, parse + compose ${fixed(p.busyUs.parseCompose, 0)} us.`);
    print();
    print(table([['layer', 'ours us', 'handler only us', 'floor us', 'parse + compose us'], ...p.groups.map((g) => [g.name, fixed(g.ours), fixed(g.handlerOnly), fixed(g.floor), fixed(g.parseCompose)])]));
    print();
    print(
      table([
        ['where the handler alone spends more than parse + compose', 'handler only us', 'parse + compose us', 'extra us'],
        ...p.handlerExtra.map((r) => [r.name, fixed(r.handlerOnlyUs), fixed(r.floorUs), fixed(r.extraUs)]),
      ]),
    );
    print();
    print(table([["ours' hottest functions (self time per request)", 'us'], ...p.oursTopFunctions.map((r) => [r.name, fixed(r.us)])]));
    print();
    print(`Profiles: ${OUT_DIR}/send-cpu-{ours,handlerOnly,floor,parseCompose}.cpuprofile (open in Chrome DevTools).`);
    print();
  }
}

if (require.main === module) {
  sendCpu({ profile: !process.argv.includes('--no-profile') })
    .then(printSendCpu)
    .catch((error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    });
}
