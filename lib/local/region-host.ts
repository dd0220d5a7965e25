import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { DEFAULT_AWS_REGIONS, type PlatformRegion } from '../regions';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ensurePrimaryAccount } from '../../functions/accounts/bootstrap';
import { handler as authorizer } from '../../functions/authorizer/handler';
import { handler as eventStreamHandler } from '../../functions/event-stream/handler';
import { EVENT_STREAM_BATCH_SIZE } from '../../functions/event-stream/process-batch';
import { handler as notificationsWorker } from '../../functions/events/ses-notifications';
import { handler as sendWorker } from '../../functions/messages/send-worker';
import { handler as scheduleUndelivered } from '../../functions/messages/schedule-undelivered';
import { handler as webhookWorker } from '../../functions/webhooks/delivery-worker';
import { withEnv } from '../../functions/platform/env';
import { routes } from '../../functions/routes';
import { gateway } from './api-gateway';
import { startDynamo, type LocalDynamo } from './dynamodb';
import { DynamoStreamProxy, streamQueueWorker } from './dynamodb-stream';
import { RouteMatcher } from './route-matcher';
import { startS3, type LocalS3 } from './s3';
import { SesStandIn } from './ses-standin';
import { SfnStandIn } from './sfn-standin';
import { SqsStandIn } from './sqs-standin';
import { LAMBDA_INVOKE, lambdaInvokeTask, LocalWorkflow, SQS_SEND_MESSAGE, sqsSendMessageTask } from './workflow-runner';



const MESSAGES_BUCKET = 'mailplane-messages';
/** The stack's two configuration sets (lib/constructs/sending.ts): opportunistic TLS, and TLS required. */
const SES_CONFIGURATION_SET = 'mailplane-events';
const SES_TLS_CONFIGURATION_SET = 'mailplane-events-require-tls';

export interface RegionHostOptions {
  region: PlatformRegion;
  port: number;
  host: string;
  /** The region's own data folder; undefined keeps everything in memory. */
  dataDir?: string;
  adminKey: string;
  encryptionKey: string;
  authorizerCacheSeconds: number;
  /** Visibility timeout of the send queue (deployed: 6x the worker's timeout); tests shorten it to see redelivery. */
  sendVisibilitySeconds?: number;
  /** Step Functions Retry intervals, overridden (tests); default: as the definitions say. */
  workflowRetryIntervalMs?: number;
  /** Extra environment for the handlers (DNS_SERVERS, SANDBOX_DOMAIN, ...). */
  env: Record<string, string | undefined>;
}

export interface RegionHost {
  region: PlatformRegion;
  url: string;
  env: Record<string, string | undefined>;
  ses: SesStandIn;
  sqs: SqsStandIn;
  /** Step Functions: the scheduled-delivery executions. */
  sfn: SfnStandIn;
  /** Runs `fn` with this region's configuration, as its handlers see it. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The area's Lambda entry module, loaded the way Lambda does: by its path, once. */
function loadAreaHandler(area: string) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(join(__dirname, '..', '..', 'functions', area, 'handler')) as { handler: never }).handler;
}

/** One region: its own dynalite, SES stand-in and HTTP API, all on loopback, sharing nothing. */
export async function startRegion(options: RegionHostOptions): Promise<RegionHost> {
  const { region, dataDir } = options;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const tableName = 'mailplane';
  const dynamo: LocalDynamo = await startDynamo(dataDir ? join(dataDir, 'dynamodb') : undefined, tableName, DEFAULT_AWS_REGIONS[region]);
  // The handlers reach dynalite through the stream stand-in, which publishes new events to the
  // event-stream queue once that exists (below); nothing records events before then.
  let publishStream: (bodies: string[]) => Promise<void> = async () => {
    throw new Error('the event stream is not wired yet');
  };
  const stream = new DynamoStreamProxy(dynamo.endpoint, tableName, DEFAULT_AWS_REGIONS[region], (records) => publishStream(records.map((record) => JSON.stringify(record))));
  const dynamoEndpoint = await stream.listen();
  const ses = new SesStandIn(dataDir ? join(dataDir, 'ses-identities.json') : undefined, {
    [SES_CONFIGURATION_SET]: 'OPTIONAL',
    [SES_TLS_CONFIGURATION_SET]: 'REQUIRE',
  });
  const sesEndpoint = await ses.listen();
  // Without a data dir, objects live in a scratch folder removed on close.
  const scratch = dataDir ? undefined : mkdtempSync(join(tmpdir(), 'mailplane-s3-'));
  const s3: LocalS3 = await startS3(dataDir ? join(dataDir, 's3') : scratch!, MESSAGES_BUCKET);

  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`;

  const env: Record<string, string | undefined> = {
    PLATFORM_REGION: region,
    AWS_REGION: DEFAULT_AWS_REGIONS[region],
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    SES_ENDPOINT: sesEndpoint,
    ENCRYPTION_KEY: options.encryptionKey,
    S3_ENDPOINT: s3.endpoint,
    MESSAGES_BUCKET,
    SES_CONFIGURATION_SET,
    SES_TLS_CONFIGURATION_SET,
    PUBLIC_API_URL: url,
    // Receivers on this machine are the point of local mode; and changes to webhooks apply at once.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_CONFIG_CACHE_SECONDS: '0',
    // Settings not given keep the defaults above and the schema's.
    ...Object.fromEntries(Object.entries(options.env).filter(([, value]) => value !== undefined)),
  };
  const run = <T>(fn: () => Promise<T>) => withEnv(env, fn);

  // Queues as the stack defines them: the send queue feeds the send worker, SES's event
  // destination (SNS) feeds the notifications worker.
  const sqs = new SqsStandIn(dataDir, DEFAULT_AWS_REGIONS[region], run);
  env.SQS_ENDPOINT = await sqs.listen();
  env.SEND_QUEUE_URL = sqs.createQueue('send', { visibilityTimeoutSeconds: options.sendVisibilitySeconds ?? 60, maxReceiveCount: 5, batchSize: 10 }, sendWorker);
  const notificationsQueue = sqs.createQueue('ses-notifications', { visibilityTimeoutSeconds: 30, maxReceiveCount: 5, batchSize: 10 }, notificationsWorker);
  ses.onNotification((body) => void sqs.send(notificationsQueue, body));
  // The table's stream (new events) feeds analytics, the tag registry and webhooks, in batches as
  // large as the deployed event source's (EVENT_STREAM_BATCH_SIZE) so counters aggregate as much.
  const eventStreamQueue = sqs.createQueue(
    'event-stream',
    { visibilityTimeoutSeconds: 60, maxReceiveCount: 10, batchSize: EVENT_STREAM_BATCH_SIZE, retryDelaySeconds: 0.2 },
    streamQueueWorker(eventStreamHandler),
  );
  publishStream = (bodies) => sqs.sendAll(eventStreamQueue, bodies);
  // Webhook deliveries: several batches at once, as Lambda would run them, so a slow receiver holds back no other.
  env.WEBHOOK_QUEUE_URL = sqs.createQueue('webhooks', { visibilityTimeoutSeconds: 180, maxReceiveCount: 5, batchSize: 10, maxConcurrency: 8 }, webhookWorker);
  // Step Functions as the stack defines it: scheduled delivery waits, then queues the send job.
  const sfn = new SfnStandIn(dataDir, DEFAULT_AWS_REGIONS[region], (fn) => withEnv(env, fn));
  env.SFN_ENDPOINT = await sfn.listen();
  const undeliveredFunction = `arn:aws:lambda:${DEFAULT_AWS_REGIONS[region]}:000000000000:function:schedule-undelivered`;
  const scheduledDelivery = new LocalWorkflow(
    'scheduled-delivery',
    { SendQueueUrl: sqs.queueUrl('send'), UndeliveredFunctionArn: undeliveredFunction },
    {
      [SQS_SEND_MESSAGE]: sqsSendMessageTask((queueUrl, body) => sqs.send(queueUrl, body)),
      [LAMBDA_INVOKE]: lambdaInvokeTask({ [undeliveredFunction]: scheduleUndelivered }),
    },
    undefined,
    options.workflowRetryIntervalMs,
  );
  env.SCHEDULE_STATE_MACHINE_ARN = sfn.createStateMachine(scheduledDelivery);
  Object.freeze(env);
  // The operator verifies the sandbox parent domain in SES once; its subdomains may then send.
  ses.verifyDomain(env.SANDBOX_DOMAIN ?? 'sandbox.localhost');

  await run(() => ensurePrimaryAccount({ adminKey: options.adminKey }));
  // Executions that were waiting when the host last stopped carry on.
  sfn.resume();

  const matcher = new RouteMatcher(routes);
  server.on(
    'request',
    gateway({
      matcher,
      authorizer,
      authorizerCacheSeconds: options.authorizerCacheSeconds,
      scope: run,
      areaHandler: async (area) => loadAreaHandler(area),
    }),
  );

  return {
    region,
    url,
    env,
    ses,
    sqs,
    sfn,
    run,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sfn.close();
      await sqs.close();
      await ses.close();
      await s3.close();
      await stream.close();
      await dynamo.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
}
