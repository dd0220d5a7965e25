import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { DEFAULT_AWS_REGIONS, type PlatformRegion } from '../regions';
import { tmpdir } from 'node:os';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ensurePrimaryAccount } from '../../functions/accounts/bootstrap';
import { sandboxDomainOf } from '../../functions/domains/sandbox-domain';
import { handler as authorizer } from '../../functions/authorizer/handler';
import { handler as eventStreamHandler } from '../../functions/event-stream/handler';
import { EVENT_STREAM_BATCH_SIZE } from '../../functions/event-stream/process-batch';
import { closeBrowser } from '../../functions/inspect/preview/renderer';
import { signIn } from '../../functions/credentials/credentials';
import { MAX_MIME_MESSAGE_BYTES } from '../../functions/messages/mime-submission';
import { MAX_RECIPIENTS } from '../../functions/messages/recipients';
import { logger } from '../../functions/platform/logger';
import { startSmtpService, type SmtpService } from '../../functions/smtp/server';
import { submitMessage } from '../../functions/smtp/submit';
import { routes } from '../../functions/routes';
import { periodicJobs } from '../../functions/schedules';
import { queueWorkers, type QueueName, type QueueWorker } from '../../functions/workers';
import { lookup } from '../../functions/platform/dns';
import { trackingRoutes } from '../../functions/tracking/routes';
import { env as platformEnv, withEnv } from '../../functions/platform/env';
import { AcmStandIn } from './acm-standin';
import { gateway } from './api-gateway';
import { ApiGatewayStandIn } from './apigateway-standin';
import type { LocalCa } from './local-ca';
import { startDnsServer, type DnsServer } from './dns-server';
import { startInboundSmtp } from './inbound-smtp';
import { Outbox } from './outbox';
import { DEFAULT_DEDICATED_IPS, LOCAL_DEFAULTS } from './settings';
import { outboxApi } from './outbox-api';
import { consoleHost, corsFor, originsOf, type ConsoleRegion } from './console-host';
import { CONSOLE_DIST } from '../console-build';
import { domainZone } from './domain-zone';
import { PublishedRecords } from './published-records';
import { startTrackingTls } from './tracking-tls';
import { startDynamo, type LocalDynamo } from './dynamodb';
import { DynamoStreamProxy, streamQueueWorker } from './dynamodb-stream';
import { startS3, type LocalS3 } from './s3';
import { SesStandIn, type DeliveryListener } from './ses-standin';
import { SfnStandIn } from './sfn-standin';
import { SqsStandIn } from './sqs-standin';
import { createQueueWorkers } from './queue-workers';
import { createWorkflows } from './workflows';

const MESSAGES_BUCKET = 'mailplane-messages';
const INSPECT_BUCKET = 'mailplane-inspections';
/** The stack's two configuration sets (lib/constructs/sending.ts): opportunistic TLS, and TLS required. */
const SES_CONFIGURATION_SET = 'mailplane-events';
const SES_TLS_CONFIGURATION_SET = 'mailplane-events-require-tls';
/** Where the configuration sets the platform creates (one per dedicated IP) publish, as the stack's topic. */
const SES_EVENTS_TOPIC_ARN = 'arn:aws:sns:local:000000000000:ses-events';
/** The local id of the tracking API (lib/constructs/api.ts): what tracking hosts' custom domain names map to. */
const LOCAL_TRACKING_API_ID = 'tracking';

/**
 * The event stream's batching window in local mode: the deployed one (2 s) would hold every
 * webhook and counter back that long on a developer's machine; this still gathers a burst.
 */
const LOCAL_EVENT_STREAM_BATCHING_WINDOW_SECONDS = 0.25;

export interface RegionHostOptions {
  region: PlatformRegion;
  port: number;
  host: string;
  /** The region's own data folder; undefined keeps everything in memory. */
  dataDir?: string;
  adminKey: string;
  encryptionKey: string;
  /** Local mode's certificate authority, standing in for ACM's (lib/local/local-ca.ts). */
  ca: LocalCa;
  authorizerCacheSeconds: number;
  /**
   * The send worker's timeout, from which the send queue's visibility timeout and the lifetime of
   * a recipient's claim follow (functions/delivery/send-timing.ts); tests shorten it.
   */
  sendWorkerTimeoutSeconds?: number;
  /** How long a shutdown waits for requests in flight before cutting their connections. */
  drainTimeoutMs?: number;
  /** Step Functions Retry intervals, overridden (tests); default: as the definitions say. */
  workflowRetryIntervalMs?: number;
  /** Validate the workflow definitions when they are loaded (default), as Step Functions does. */
  validateWorkflows?: boolean;
  /** The period of every periodic job (functions/schedules.ts), overridden (tests); default: the job's own. */
  periodicJobEveryMs?: number;
  /** SMTP submission: STARTTLS on `port`, implicit TLS on `securePort` (0 picks a free one). */
  smtp: { port: number; securePort: number };
  /** The inbound SMTP stand-in for SES receiving (INBOUND_SMTP_PORT; 0 picks a free one). */
  inboundSmtpPort: number;
  /** The HTTPS port of tracking hosts with a certificate (TRACKING_TLS_PORT); 0 or absent: any free port. */
  trackingTlsPort?: number;
  /** The ACM stand-in's certificate lifetime and renewal window (tests shorten them); default 395 and 60 days. */
  certificateValidityMs?: number;
  certificateRenewBeforeMs?: number;
  /** The event stream's batching window; default LOCAL_EVENT_STREAM_BATCHING_WINDOW_SECONDS. */
  eventStreamBatchingWindowSeconds?: number;
  /** Extra environment for the handlers (DNS_SERVERS, SANDBOX_DOMAIN, ...). */
  env: Record<string, string | undefined>;
  /** Every region the console switches between (known once all have started); default: this one alone. */
  consoleRegions?: () => ConsoleRegion[];
  /** The built console served at `/`; default console/dist. */
  consoleDistDir?: string;
}

export interface RegionHost {
  region: PlatformRegion;
  url: string;
  env: Record<string, string | undefined>;
  /**
   * The table's own endpoint (dynalite), behind the stream stand-in the handlers use: a write made
   * there reaches no stream consumer. Benchmarks seed data through it.
   */
  tableEndpoint: string;
  ses: SesStandIn;
  sqs: SqsStandIn;
  /** Step Functions: scheduled deliveries and tracking-certificate jobs. */
  sfn: SfnStandIn;
  /** The SMTP submission ports: STARTTLS (`port`) and implicit TLS (`securePort`). */
  smtp: { host: string; port: number; securePort: number };
  /** SES receiving's stand-in: mail to the region's domains is delivered here (plain SMTP, no AUTH). */
  inboundSmtp: { host: string; port: number };
  /** ACM: tracking certificates, issued by the local CA once their validation record resolves. */
  acm: AcmStandIn;
  /** API Gateway's custom domain names: which tracking hosts the HTTPS port serves. */
  apiGateway: ApiGatewayStandIn;
  /** Records published by hand in this region's local DNS (its `dns-zone.txt`). */
  dns: PublishedRecords;
  /** What SES was handed: the console's Outbox and `/_local/outbox`. */
  outbox: Outbox;
  /** The HTTPS port of tracking hosts (TRACKING_TLS_PORT). */
  trackingTlsPort: number;
  /** The primary account's sandbox domain in this region. */
  sandboxDomain: string;
  /** Where what SES delivered is written, one .eml per message (absent without a data dir). */
  outboxDir?: string;
  /** Runs `fn` with this region's configuration, as its handlers see it. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A periodic job's handler (functions/schedules.ts), loaded by its path as Lambda would. */
function loadJobHandler(entry: string): () => Promise<unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(join(__dirname, '..', '..', 'functions', entry)) as { handler: () => Promise<unknown> }).handler;
}

/** How often local mode runs a job: the tests' period, else its own, or its cadence setting's when that is shorter. */
function periodOf(job: (typeof periodicJobs)[number], everyMs: number | undefined, settings: Record<string, string | undefined>): number {
  if (everyMs !== undefined) return everyMs;
  const own = job.everyMinutes * 60_000;
  const cadence = job.cadenceSetting ? Number(settings[job.cadenceSetting]) * 1000 : NaN;
  return Number.isFinite(cadence) && cadence > 0 ? Math.min(own, cadence) : own;
}

/**
 * EventBridge rules as timers: each job runs at its period, never two runs of one job at once
 * (a sweep slower than its period is not stacked), and a failed run is reported and retried at
 * the next tick as the rule would.
 */
function startPeriodicJobs(run: <T>(fn: () => Promise<T>) => Promise<T>, everyMs: number | undefined, settings: Record<string, string | undefined>): () => Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  for (const job of periodicJobs) {
    const handler = loadJobHandler(job.entry);
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      const done = run(handler)
        .catch((error: unknown) => process.stderr.write(`periodic job ${job.name}: ${(error as Error).message}\n`))
        .finally(() => {
          busy = false;
          running.delete(done);
        });
      running.add(done);
    };
    timers.push(setInterval(tick, periodOf(job, everyMs, settings)));
  }
  return async () => {
    timers.forEach((timer) => clearInterval(timer));
    await Promise.all(running);
  };
}

/** The area's Lambda entry module, loaded the way Lambda does: by its path, once. */
function loadAreaHandler(area: string) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(join(__dirname, '..', '..', 'functions', area, 'handler')) as { handler: never }).handler;
}

/**
 * Local mode's send worker timeout. Shorter than the deployed one (SEND_WORKER_TIMEOUT_SECONDS)
 * because claims left by a host that was killed are taken over once it has passed: a restarted
 * host then finishes what the old one had in hand within about a minute.
 */
const LOCAL_SEND_WORKER_TIMEOUT_SECONDS = 60;
const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/**
 * The region's HTTP server, open before the region is ready (its address is part of the
 * configuration the handlers get) but answering nothing until then: a request that arrives early
 * waits and is answered, or gets a 503 if the region fails to start. It counts requests in flight
 * so a shutdown can let them finish.
 */
function gatedServer() {
  let serve: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let failed = false;
  const waiting: Array<() => void> = [];
  let inFlight = 0;
  const idle: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) idle.splice(0).forEach((resolve) => resolve());
    });
    const answer = () => {
      if (serve) return serve(req, res);
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ message: 'Service Unavailable' }));
    };
    if (serve || failed) answer();
    else waiting.push(answer);
  });
  return {
    server,
    open(handler: (req: IncomingMessage, res: ServerResponse) => void) {
      serve = handler;
      waiting.splice(0).forEach((answer) => answer());
    },
    fail() {
      failed = true;
      waiting.splice(0).forEach((answer) => answer());
    },
    /** Resolves once no request is in flight, or after `timeoutMs`. */
    drained(timeoutMs: number): Promise<void> {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/** Things to stop, in the reverse of the order they were started. */
class Stack {
  private readonly closers: Array<() => Promise<void> | void> = [];
  add(close: () => Promise<void> | void): void {
    this.closers.push(close);
  }
  /** Runs every closer, even after one fails, and then throws the first failure. */
  async closeAll(): Promise<void> {
    const failures: unknown[] = [];
    for (const close of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length) throw failures[0];
  }
}

/** One region: its own dynalite, SES stand-in and HTTP API, all on loopback, sharing nothing. */
export async function startRegion(options: RegionHostOptions): Promise<RegionHost> {
  const opened = new Stack();
  try {
    return await startRegionOn(options, opened);
  } catch (error) {
    await opened.closeAll();
    throw error;
  }
}

async function startRegionOn(options: RegionHostOptions, opened: Stack): Promise<RegionHost> {
  const { region, dataDir } = options;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const tableName = 'mailplane';

  // The API's port first, so its address can be given to the handlers; it answers once all is ready.
  const gate = gatedServer();
  const server = gate.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  opened.add(async () => {
    gate.fail();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`;

  const dynamo: LocalDynamo = await startDynamo(dataDir ? join(dataDir, 'dynamodb') : undefined, tableName, DEFAULT_AWS_REGIONS[region]);
  opened.add(() => dynamo.close());
  // The handlers reach dynalite through the stream stand-in, which publishes new events to the
  // event-stream queue once that exists (below); nothing records events before then.
  let publishStream: (bodies: string[]) => Promise<void> = async () => {
    throw new Error('the event stream is not wired yet');
  };
  const stream = new DynamoStreamProxy(dynamo.endpoint, tableName, DEFAULT_AWS_REGIONS[region], (records) => publishStream(records.map((record) => JSON.stringify(record))));
  const dynamoEndpoint = await stream.listen();
  opened.add(() => stream.close());
  const dedicatedIps = (options.env.LOCAL_DEDICATED_IPS ?? DEFAULT_DEDICATED_IPS[region]).split(',').map((ip) => ip.trim()).filter(Boolean);
  const ses = new SesStandIn(
    dataDir ? { file: join(dataDir, 'ses-identities.json'), encryptionKey: options.encryptionKey } : undefined,
    { [SES_CONFIGURATION_SET]: 'OPTIONAL', [SES_TLS_CONFIGURATION_SET]: 'REQUIRE' },
    dedicatedIps,
  );
  const sesEndpoint = await ses.listen();
  opened.add(() => ses.close());
  // Without a data dir, objects live in a scratch folder removed on close.
  const scratch = dataDir ? undefined : mkdtempSync(join(tmpdir(), 'mailplane-s3-'));
  if (scratch) opened.add(() => rmSync(scratch, { recursive: true, force: true }));
  const s3: LocalS3 = await startS3(dataDir ? join(dataDir, 's3') : scratch!, [MESSAGES_BUCKET, INSPECT_BUCKET]);
  opened.add(() => s3.close());

  const env: Record<string, string | undefined> = {
    PLATFORM_REGION: region,
    AWS_REGION: DEFAULT_AWS_REGIONS[region],
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    SES_ENDPOINT: sesEndpoint,
    ENCRYPTION_KEY: options.encryptionKey,
    S3_ENDPOINT: s3.endpoint,
    MESSAGES_BUCKET,
    INSPECT_BUCKET,
    SES_CONFIGURATION_SET,
    SES_TLS_CONFIGURATION_SET,
    SES_EVENTS_TOPIC_ARN,
    PUBLIC_API_URL: url,
    ...LOCAL_DEFAULTS,
    // Settings not given keep the defaults above and the schema's.
    ...Object.fromEntries(Object.entries(options.env).filter(([, value]) => value !== undefined)),
  };
  const run = <T>(fn: () => Promise<T>) => withEnv(env, fn);

  // Public DNS for the domains created here, unless the user named real resolvers; and what the
  // user publishes by hand (the tracking CNAME, a certificate's validation record).
  const published = new PublishedRecords(dataDir ? join(dataDir, 'dns-zone.txt') : undefined);
  if (!env.DNS_SERVERS) {
    const dns: DnsServer = await startDnsServer(domainZone(run, published));
    opened.add(() => dns.close());
    env.DNS_SERVERS = dns.address;
  }
  // What SES was handed: delivered copies as the recipients' server stores them (DKIM checked,
  // one .eml per message in the data dir), and what it bounced or refused.
  const deliveryListeners: DeliveryListener[] = [];
  ses.onDelivery((message, recipients) => deliveryListeners.forEach((listener) => listener(message, recipients)));
  const outboxDir = dataDir ? join(dataDir, 'outbox') : undefined;
  const outbox = new Outbox(outboxDir, env.DNS_SERVERS.split(',').map((s) => s.trim()).filter(Boolean));
  deliveryListeners.push((message, recipients) => outbox.record(message, recipients));
  ses.onRefusal((send) => outbox.refuse(send));
  opened.add(() => outbox.close());

  // SQS: the worker table's queues, and the table stream's stand-in.
  const sqs = new SqsStandIn(dataDir, DEFAULT_AWS_REGIONS[region], run);
  env.SQS_ENDPOINT = await sqs.listen();
  // Closed before the stores: in-flight batches finish and record their outcome first.
  opened.add(() => sqs.close());
  // Every queue worker of the table (functions/workers.ts), as CDK builds it, the send worker
  // with local mode's shorter timeout (and the clocks that follow from it); SES's event
  // destination (SNS on AWS) feeds the notifications queue.
  const queues = createQueueWorkers(sqs, { timeoutSeconds: { send: options.sendWorkerTimeoutSeconds ?? LOCAL_SEND_WORKER_TIMEOUT_SECONDS } });
  for (const row of queueWorkers as readonly QueueWorker[]) if (row.urlSetting) env[row.urlSetting] = queues[row.queue as QueueName];
  ses.onNotification((body, delaySeconds) => sqs.send(queues['ses-notifications'], body, delaySeconds));
  // The table's stream (new events) feeds analytics, the tag registry and webhooks, in batches as
  // large as the deployed event source's (EVENT_STREAM_BATCH_SIZE) so counters aggregate as much,
  // gathered over a shorter window than the deployed one unless told otherwise.
  const eventStreamQueue = sqs.createQueue(
    'event-stream',
    {
      visibilityTimeoutSeconds: 60,
      maxReceiveCount: 10,
      batchSize: EVENT_STREAM_BATCH_SIZE,
      batchingWindowSeconds: options.eventStreamBatchingWindowSeconds ?? LOCAL_EVENT_STREAM_BATCHING_WINDOW_SECONDS,
      retryDelaySeconds: 0.2,
    },
    streamQueueWorker(eventStreamHandler),
  );
  publishStream = (bodies) => sqs.sendAll(eventStreamQueue, bodies);
  // Tracking certificates: ACM issues them (signed by the local CA once the validation record
  // resolves), API Gateway's custom domain names say which host each serves, and the workflow
  // (below) that ties them together runs the same task function as on AWS. Both open before Step
  // Functions, so they close after it: no execution's step finds them gone.
  const acm = new AcmStandIn({
    ca: options.ca,
    region: DEFAULT_AWS_REGIONS[region],
    stateFile: dataDir ? join(dataDir, 'acm-certificates.json') : undefined,
    resolveCname: (name) => run(() => lookup('CNAME', name)),
    validityMs: options.certificateValidityMs,
    renewBeforeMs: options.certificateRenewBeforeMs,
  });
  env.ACM_ENDPOINT = await acm.listen();
  opened.add(() => acm.close());
  const apiGateway = new ApiGatewayStandIn({
    region: DEFAULT_AWS_REGIONS[region],
    stateFile: dataDir ? join(dataDir, 'apigateway-domains.json') : undefined,
    // Every custom domain name answers on this machine, where the tracking CNAME target points.
    regionalTarget: () => withEnv(env, () => platformEnv().TRACKING_CNAME_TARGET),
    apiIds: [LOCAL_TRACKING_API_ID],
    certificates: acm,
  });
  env.APIGATEWAY_ENDPOINT = await apiGateway.listen();
  opened.add(() => apiGateway.close());
  env.TRACKING_API_ID = LOCAL_TRACKING_API_ID;
  // Step Functions: the stand-in, and the workflow table's state machines in it (below).
  const sfn = new SfnStandIn(dataDir, DEFAULT_AWS_REGIONS[region], (fn) => withEnv(env, fn));
  env.SFN_ENDPOINT = await sfn.listen();
  // Closed before the queues: an execution's last step may still be putting a job on one.
  opened.add(() => sfn.close());
  // Every workflow of the table (functions/workflows.ts), on the same definitions and task
  // handlers as on AWS: scheduled delivery, tracking certificates, previews (Chromium is launched
  // on the first render) and their exports, blocklist checks, inbox placement polls.
  const stateMachines = createWorkflows(sfn, {
    awsRegion: DEFAULT_AWS_REGIONS[region],
    queueUrl: (queue) => queues[queue],
    send: async (queueUrl, body, delaySeconds) => sqs.send(queueUrl, body, delaySeconds),
    retryIntervalMs: options.workflowRetryIntervalMs,
    validate: options.validateWorkflows,
  });
  Object.assign(env, stateMachines);
  // The browser is closed on stop; a render cut short by it is tried again when its execution resumes.
  opened.add(() => closeBrowser(env.CHROMIUM_PATH));

  // The tracking hosts' HTTPS port: its handshakes wait until the region is ready (its number is
  // part of the handlers' configuration, so it opens now, as the API's port does).
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const tls = await startTrackingTls({
    port: options.trackingTlsPort ?? 0,
    host: options.host,
    domains: apiGateway,
    certificates: acm,
    // The tracking API: the public tracking routes, on the same handler as the HTTP ones.
    apis: {
      [LOCAL_TRACKING_API_ID]: gateway({
        routes: trackingRoutes,
        authorizer,
        authorizerCacheSeconds: options.authorizerCacheSeconds,
        scope: run,
        areaHandler: async (area) => loadAreaHandler(area),
      }),
    },
    ready,
  });
  opened.add(() => tls.close(0));
  // Tracking links name these ports, where the tracking hosts are served.
  env.TRACKING_HTTP_PORT ??= String(port);
  env.TRACKING_HTTPS_PORT ??= String(tls.port);
  Object.freeze(env);
  // The operator verifies the sandbox parent domain in SES once; its subdomains may then send.
  ses.verifyDomain(env.SANDBOX_DOMAIN ?? 'sandbox.localhost');

  const { accountId } = await run(() => ensurePrimaryAccount({ adminKey: options.adminKey }));
  const sandbox = await run(() => sandboxDomainOf(accountId));
  if (!sandbox) throw new Error(`the ${region} primary account has no sandbox domain`);
  // Work left from the last run carries on only now that everything it uses is in place:
  // queued jobs, and executions that were waiting when the host last stopped.
  sqs.start();
  sfn.resume();
  // Stopped before the stores they use.
  opened.add(startPeriodicJobs(run, options.periodicJobEveryMs, env));

  markReady();
  const api = gateway({
    routes,
    authorizer,
    authorizerCacheSeconds: options.authorizerCacheSeconds,
    scope: run,
    areaHandler: async (area) => loadAreaHandler(area),
  });
  // The console at `/` and the outbox's JSON beside the API, on paths no API route uses.
  const hostNames = [...new Set(['127.0.0.1', 'localhost', ...(options.host === '0.0.0.0' ? [] : [options.host])])];
  const ownRegion: ConsoleRegion = { id: region, label: region.toUpperCase(), api: url };
  const consoleRegions = () => {
    const all = options.consoleRegions?.() ?? [];
    return all.length ? all : [ownRegion];
  };
  const serveConsole = consoleHost({ distDir: options.consoleDistDir ?? CONSOLE_DIST, region, regions: consoleRegions, hostNames, outbox: true });
  const serveOutbox = outboxApi({ outbox, region, run });
  const cors = corsFor(() => consoleRegions().flatMap((r) => originsOf(r.api, hostNames)));
  gate.open((req, res) => {
    if (cors(req, res)) return;
    const target = (() => {
      try {
        return new URL(req.url ?? '/', 'http://localhost');
      } catch {
        return undefined;
      }
    })();
    if (target && serveConsole(req, res, target)) return;
    if (!target) return api(req, res);
    serveOutbox(req, res, target).then(
      (served) => served || api(req, res),
      (error: unknown) => {
        process.stderr.write(`local outbox: ${(error as Error).stack ?? String(error)}\n`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Internal Server Error' }));
        else res.end();
      },
    );
  });

  // SMTP submission opens only now that the region answers: the same accept path as the API's.
  const smtp = await startSmtp(options, run);
  opened.add(() => smtp.service.close());
  const inboundSmtp = await startInboundSmtp({
    port: options.inboundSmtpPort,
    host: options.host,
    bucket: MESSAGES_BUCKET,
    run,
    notify: (body) => sqs.send(queues.inbound, body),
    closeTimeoutMs: options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
  });
  opened.add(() => inboundSmtp.close());
  // What SES delivers to the region's seed list domain comes back in through its receiving, as on
  // AWS (SES sends to the domain's MX, which is SES): with the Received line of SES's sending host.
  deliveryListeners.push((message, recipients) => {
    const targets = recipients.filter((r) => r.split('@')[1]?.toLowerCase() === env.SEED_INBOX_DOMAIN);
    if (!targets.length) return;
    const received = `Received: from a8-1.smtp-out.amazonses.com (a8-1.smtp-out.amazonses.com [${message.sendingIp ?? '127.0.0.1'}]) by inbound-smtp.localhost; ${new Date().toUTCString()}\r\n`;
    inboundSmtp.accept(Buffer.concat([Buffer.from(received), message.raw]), '', targets).catch((error: unknown) => process.stderr.write(`seed target delivery: ${(error as Error).message}\n`));
  });

  let closing: Promise<void> | undefined;
  return {
    region,
    url,
    env,
    tableEndpoint: dynamo.endpoint,
    ses,
    sqs,
    sfn,
    smtp: { host: smtp.host, port: smtp.service.ports[0]!, securePort: smtp.service.ports[1]! },
    inboundSmtp: { host: smtp.host, port: inboundSmtp.port },
    acm,
    apiGateway,
    dns: published,
    outbox,
    trackingTlsPort: tls.port,
    sandboxDomain: sandbox.name,
    outboxDir,
    run,
    close() {
      closing ??= (async () => {
        // No new connections; requests and SMTP sessions in flight finish (up to the drain
        // timeout) before anything they use is stopped, and idle keep-alive connections are let go at once.
        const smtpClosed = Promise.all([smtp.service.close(), inboundSmtp.close()]);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await Promise.all([gate.drained(options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS), tls.close(options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS)]);
        server.closeAllConnections();
        await closed;
        await smtpClosed;
        await opened.closeAll();
      })();
      return closing;
    },
  };
}

/**
 * The region's SMTP submission listeners (functions/smtp/server.ts) with a certificate from the
 * local CA for localhost, 127.0.0.1 and the host it listens on; AUTH and each message run with the
 * region's configuration, as its handlers do.
 */
async function startSmtp(options: RegionHostOptions, run: <T>(fn: () => Promise<T>) => Promise<T>): Promise<{ service: SmtpService; host: string }> {
  const host = options.host === '0.0.0.0' ? '127.0.0.1' : options.host;
  const names = [...new Set(['localhost', '127.0.0.1', host])];
  const certificate = options.ca.issue(names, 365);
  const service = await startSmtpService({
    listeners: [
      { port: options.smtp.port, host: options.host, mode: 'starttls' },
      { port: options.smtp.securePort, host: options.host, mode: 'implicit-tls' },
    ],
    tls: { cert: certificate.certificatePem, key: certificate.privateKeyPem },
    hostname: 'localhost',
    maxMessageBytes: MAX_MIME_MESSAGE_BYTES,
    maxRecipients: MAX_RECIPIENTS,
    closeTimeoutMs: options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
    authenticate: (login, password, remoteAddress) => run(() => signIn(login, password, remoteAddress)),
    submit: (identity, envelope, mime) => run(() => submitMessage(identity, envelope, mime)),
    log: (level, message, fields) => logger[level](message, { region: options.region, ...fields }),
  });
  return { service, host };
}
