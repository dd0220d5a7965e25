import { LIST_WORKER_CONCURRENCY, LIST_WORKER_TIMEOUT } from '../../lib/constructs/lists';
import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { createTableInput } from '../../functions/data/table';
import { platformEnvSchema } from '../../functions/platform/env';
import { areas, routes } from '../../functions/routes';
import { periodicJobs } from '../../functions/schedules';
import { SES_DEDICATED_IP_ACTIONS, SES_IDENTITY_ACTIONS, SES_IP_CONFIGURATION_SET_ACTIONS, SES_SEND_ACTIONS } from '../../lib/constructs/area-permissions';
import { sendQueueTiming } from '../../functions/delivery/send-timing';
import { queueWorker } from '../../functions/workers';
import { NOTIFICATIONS_WORKER_TIMEOUT, SEND_DEAD_LETTER_WORKER_TIMEOUT, SEND_WORKER_TIMEOUT } from '../../lib/constructs/sending';
import { messageRetentionDays } from '../../lib/constructs/data';
import { DEFAULT_MAX_MESSAGE_TTL, platformEnvironment } from '../../lib/constructs/platform-env';
import type { PlatformRegion } from '../../lib/regions';
import { SCHEDULE_HORIZON } from '../../lib/constructs/scheduling';
import { EVENT_STREAM_BATCH_SIZE } from '../../functions/event-stream/process-batch';
import { EVENT_ITEM_KIND } from '../../functions/events/event-store';
import { MAX_SCHEDULE_MS } from '../../functions/messages/send-params';
import { PlatformStack, type PlatformStackProps } from '../../lib/platform-stack';
import { WEBHOOK_WORKER_TIMEOUT } from '../../lib/constructs/webhooks';
import { INSPECT_WORKER_CONCURRENCY, INSPECT_WORKER_TIMEOUT, PREVIEW_RENDER_MEMORY_MB, PREVIEW_RENDER_TIMEOUT } from '../../lib/constructs/inspection';
import { API_ROUTES, AREA_MEMORY_MB, productOfArea } from '../../lib/constructs/api';
import { gatewayRouteKey, ROUTE_BUDGET } from '../../functions/platform/http/gateway-routes';
import { AWS_REGIONS, logicalIdOf, removeSynthOutput, SANDBOX_DOMAIN, synthPlatform, testApp } from './synth';
import { TASKS_AT_ONCE } from '../../functions/optimize/blocklists/start-checks';

afterAll(removeSynthOutput);

// Template JSON is untyped by nature; the assertions below say what they expect of it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[]; DeletionPolicy?: string };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

function only(template: Template, type: string, props: Record<string, unknown> = {}): [string, Resource] {
  const found = Object.entries(template.findResources(type, props.Properties ? props : { Properties: props }));
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
}

function all(template: Template, type: string): Array<[string, Resource]> {
  return Object.entries(template.findResources(type)) as Array<[string, Resource]>;
}

const byRef = (a: { Ref: string }, b: { Ref: string }) => a.Ref.localeCompare(b.Ref);

/** The ARN the stack builds for a configuration set (lib/constructs/area-permissions.ts). */
const configurationSetArnOf = (logicalId: string) => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ses:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':configuration-set/', { Ref: logicalId }]],
});
/** The sets made at run time for each dedicated IP: the stack's set's name plus `-ip-<address>`. */
const ipConfigurationSetArnOf = (logicalId: string) => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ses:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':configuration-set/', { Ref: logicalId }, '-ip-*']],
});

/** Every Allow statement of the policies attached to a function's role, and the role itself. */
function permissionsOf(template: Template, functionLogicalId: string) {
  const fn = template.toJSON().Resources[functionLogicalId] as Resource;
  const roleId: string = fn.Properties.Role['Fn::GetAtt'][0];
  const role = template.toJSON().Resources[roleId] as Resource;
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
  const statements = policies
    .filter((p) => (p.Properties.Roles as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId })))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
  const actions = (s: Statement) => [s.Action].flat();
  // Log writing and tracing are every function's baseline; the rest is what the area may do.
  const business = statements.filter((s) => !actions(s).every((a) => a.startsWith('logs:') || a.startsWith('xray:')));
  return { role, statements, business, actions: business.flatMap(actions) };
}

/** What every platform Lambda is built with; only its timeout differs. */
const platformLambdaProperties = (timeoutSeconds: number) => ({
  Runtime: 'nodejs24.x',
  Architectures: ['arm64'],
  Handler: 'index.handler',
  MemorySize: 512,
  Timeout: timeoutSeconds,
  TracingConfig: { Mode: 'Active' },
  LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
});

const inspectAreas = areas.filter((area) => productOfArea(area) === 'Inspection');
const mainAreas = areas.filter((area) => !productOfArea(area));
const mainRoutes = API_ROUTES.filter((route) => !productOfArea(route.area));
// A product's periodic jobs live in its nested stack, beside the workflows they start.
const mainJobs = periodicJobs.filter((job) => !job.product);

function functionIdByDescription(template: Template, description: string): string {
  return only(template, 'AWS::Lambda::Function', { Description: description })[0];
}

describe.each<PlatformRegion>(['us', 'eu'])('PlatformStack (%s)', (region) => {
  let stack: PlatformStack;
  let template: Template;
  let ids: {
    table: string;
    encryptionKey: string;
    adminKey: string;
    api: string;
    authorizer: string;
    bootstrap: string;
    bucket: string;
    sendQueue: string;
    sendDlq: string;
    notificationsQueue: string;
    notificationsDlq: string;
    configurationSet: string;
    tlsConfigurationSet: string;
    topic: string;
    eventsKey: string;
    sendWorker: string;
    sendDeadLetterWorker: string;
    notificationsWorker: string;
    scheduleMachine: string;
    streamWorker: string;
    streamFailures: string;
    undelivered: string;
    webhookQueue: string;
    webhookDlq: string;
    webhookWorker: string;
    listQueue: string;
    listDlq: string;
    listWorker: string;
    listDeadLetterWorker: string;
    inspectQueue: string;
    inspectDlq: string;
    inspectBucket: string;
    trackingApi: string;
    certificateMachine: string;
    certificateTasks: string;
  };

  let inspectionTemplate: Template;
  const mainEnvironment = () => template.toJSON().Resources[ids.authorizer].Properties.Environment.Variables as Record<string, unknown>;

  beforeAll(() => {
    // Receiving adds its own topic, queues and workers; test/infra/inbound.test.ts asserts those.
    ({ stack, template } = synthPlatform(region, { inbound: { enabled: false } }));
    inspectionTemplate = Template.fromStack(stack.inspectionApi);
    ids = {
      table: logicalIdOf(stack, stack.data.table),
      encryptionKey: logicalIdOf(stack, stack.data.encryptionKey),
      adminKey: logicalIdOf(stack, stack.bootstrap.adminKeySecret),
      api: logicalIdOf(stack, stack.api.httpApi),
      authorizer: logicalIdOf(stack, stack.api.authorizerFunction.fn),
      bootstrap: functionIdByDescription(template, 'Custom resource: primary account and first admin key'),
      bucket: logicalIdOf(stack, stack.data.messages),
      sendQueue: logicalIdOf(stack, stack.sending.sendQueue.queue),
      sendDlq: logicalIdOf(stack, stack.sending.sendQueue.deadLetterQueue),
      notificationsQueue: logicalIdOf(stack, stack.sending.notificationsQueue.queue),
      notificationsDlq: logicalIdOf(stack, stack.sending.notificationsQueue.deadLetterQueue),
      configurationSet: logicalIdOf(stack, stack.sending.configurationSet),
      tlsConfigurationSet: logicalIdOf(stack, stack.sending.requireTlsConfigurationSet),
      topic: logicalIdOf(stack, stack.sending.eventsTopic),
      eventsKey: logicalIdOf(stack, stack.sending.eventsKey),
      sendWorker: logicalIdOf(stack, stack.sendingWorkers.sendWorker.fn),
      sendDeadLetterWorker: logicalIdOf(stack, stack.sendingWorkers.sendDeadLetterWorker.fn),
      inspectQueue: logicalIdOf(stack, stack.inspection.queue.queue),
      inspectDlq: logicalIdOf(stack, stack.inspection.queue.deadLetterQueue),
      inspectBucket: logicalIdOf(stack, stack.inspection.bucket),
      notificationsWorker: logicalIdOf(stack, stack.sendingWorkers.notificationsWorker.fn),
      scheduleMachine: logicalIdOf(stack, stack.scheduling.stateMachine),
      streamWorker: logicalIdOf(stack, stack.eventStream.worker.fn),
      streamFailures: logicalIdOf(stack, stack.eventStream.failures),
      undelivered: logicalIdOf(stack, stack.scheduling.undelivered!.fn),
      webhookQueue: logicalIdOf(stack, stack.webhooks.queue.queue),
      webhookDlq: logicalIdOf(stack, stack.webhooks.queue.deadLetterQueue),
      webhookWorker: logicalIdOf(stack, stack.webhooks.worker!.fn),
      listQueue: logicalIdOf(stack, stack.lists.queue.queue),
      listDlq: logicalIdOf(stack, stack.lists.queue.deadLetterQueue),
      listWorker: logicalIdOf(stack, stack.lists.worker!.fn),
      listDeadLetterWorker: logicalIdOf(stack, stack.lists.deadLetterWorker!.fn),
      trackingApi: logicalIdOf(stack, stack.api.trackingApi),
      certificateMachine: logicalIdOf(stack, stack.certificates.stateMachine),
      certificateTasks: logicalIdOf(stack, stack.certificates.tasks!.fn),
    };
  });

  test('the single table has the keys and index the local host creates', () => {
    const [, table] = only(template, 'AWS::DynamoDB::Table');
    const local = createTableInput('any');
    expect(table.Properties.KeySchema).toEqual(local.KeySchema);
    expect(table.Properties.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
    expect(new Set(table.Properties.AttributeDefinitions)).toEqual(new Set(local.AttributeDefinitions));
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    expect(table.DeletionPolicy).toBe('Retain');
  });

  test('the message bucket is private, encrypted, TLS-only, logged and expires objects', () => {
    // The longest message_ttl (7 days) from a delivery time up to 3 days ahead, plus a day.
    const [bucketId, bucket] = only(template, 'AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 11 })]) },
    });
    expect(bucketId).toBe(ids.bucket);
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 11, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: expect.any(String) } },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  test('the encryption key secret is generated (64 chars, no punctuation) and retained', () => {
    template.hasResource('AWS::SecretsManager::Secret', {
      Properties: Match.objectLike({ GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true } }),
      DeletionPolicy: 'Retain',
    });
  });

  test('one Lambda per area, nodejs24.x on arm64, traced, with its own log group', () => {
    for (const area of areas) {
      const product = productOfArea(area);
      const nested = { Inspection: () => inspectionTemplate, Administration: () => Template.fromStack(stack.administrationApi), Optimization: () => Template.fromStack(stack.optimizationApi), Suppressions: () => Template.fromStack(stack.suppressionsApi), Reference: () => Template.fromStack(stack.referenceApi) };
      const holder = product ? nested[product as keyof typeof nested]() : template;
      const id = functionIdByDescription(holder, `API area: ${area}`);
      expect(holder.toJSON().Resources[id].Properties).toMatchObject({ ...platformLambdaProperties(29), MemorySize: AREA_MEMORY_MB[area] ?? 512 });
    }
    // The areas, the authorizer, the bootstrap handler, the six queue workers (send, send dead
    // letters, notifications, webhooks, lists, list dead letters, inspection), the stream worker, scheduled delivery's undelivered
    // handler, the certificate workflow's tasks, and one per periodic job (functions/schedules.ts); the provider framework's
    // function runs CDK's latest Node runtime, which is 24 too, and is not ours.
    const ours = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs24.x' } })).filter(
      (fn) => !String(fn.Properties.Description).startsWith('AWS CDK resource provider framework'),
    );
    expect(ours).toHaveLength(mainAreas.length + 11 + mainJobs.length);
  });

  test('alert delivery lives in the optimization stack: a queue with its dead-letter queue, its worker, and the queue named to the areas', () => {
    const optimization = Template.fromStack(stack.optimizationApi);
    const resources = optimization.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>;
    const queues = Object.keys(resources).filter((id) => resources[id]!.Type === 'AWS::SQS::Queue' && id.startsWith('AlertQueue'));
    const queueId = queues.find((id) => resources[id]!.Properties['RedrivePolicy'])!;
    const dlqId = queues.find((id) => id !== queueId)!;
    expect(queues).toHaveLength(2);
    expect(resources[queueId]!.Properties).toMatchObject({ VisibilityTimeout: 180, RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 } });
    const worker = functionIdByDescription(optimization, 'Queue worker: delivers alerts by webhook (signed), email and Slack, re-queues retries');
    expect(resources[worker]!.Properties).toMatchObject({ ...platformLambdaProperties(30), Environment: { Variables: { ALERT_QUEUE_URL: { Ref: queueId } } } });
    optimization.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionName: { Ref: worker }, EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] }, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    const area = functionIdByDescription(optimization, 'API area: optimize/alerts');
    expect((resources[area]!.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables['ALERT_QUEUE_URL']).toEqual({ Ref: queueId });
  });

  test('each periodic job is a Lambda an EventBridge rule invokes at its rate, allowed the SES calls its row names', () => {
    // CDK writes a rate in the largest whole unit: minutes, hours or days.
    const rate = (minutes: number) => {
      const [n, unit] = minutes % 1440 === 0 ? [minutes / 1440, 'day'] : minutes % 60 === 0 ? [minutes / 60, 'hour'] : [minutes, 'minute'];
      return `rate(${n} ${unit}${n === 1 ? '' : 's'})`;
    };
    // DKIM rotation changes identities; the warm-up sweep tells SES how warm an address is; the
    // Postmaster fetch talks to Google, not SES.
    const SES_BY_GRANT = {
      'sending-identities': [...SES_IDENTITY_ACTIONS].sort(),
      'dedicated-ips': [...SES_DEDICATED_IP_ACTIONS, ...SES_IP_CONFIGURATION_SET_ACTIONS].sort(),
      'postmaster-credentials': [],
      'blocklist-checks': [],
      'reputation-guard': [],
    };
    for (const job of mainJobs) {
      const id = functionIdByDescription(template, job.description);
      expect(template.toJSON().Resources[id].Properties).toMatchObject(platformLambdaProperties(300));
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: rate(job.everyMinutes),
        State: 'ENABLED',
        Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [id, 'Arn'] } })]),
      });
      const sesActions = permissionsOf(template, id).actions.filter((a) => a.startsWith('ses:')).sort();
      expect(sesActions).toEqual(SES_BY_GRANT[job.grant]);
    }
  });

  test("blocklist monitoring is in the Optimization stack: its workflow invokes only its task, and only its sweep and the areas that add subjects start it", () => {
    const optimization = Template.fromStack(stack.optimizationApi);
    const resources = optimization.toJSON().Resources as Record<string, Resource>;
    const [machineId, machine] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::StepFunctions::StateMachine' && JSON.stringify(r.Properties.DefinitionString).includes('CheckSubjects'))!;
    expect(JSON.stringify(machine.Properties.DefinitionString)).toMatch(new RegExp(`MaxConcurrency\\W+${TASKS_AT_ONCE}\\b`));
    const task = functionIdByDescription(optimization, 'Blocklist monitoring: self-tests the lists, checks a chunk of IPs or domains against them and records transitions');
    const sweep = functionIdByDescription(optimization, periodicJobs.find((job) => job.name === 'blocklist-checks')!.description);
    expect(resources[sweep]!.Properties).toMatchObject(platformLambdaProperties(300));
    optimization.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(15 minutes)', Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [sweep, 'Arn'] } })]) });
    // Who may start it: the sweep and the two areas that add subjects, nobody else in the stack.
    const starters = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties).includes('states:StartExecution') && JSON.stringify(r.Properties).includes(machineId));
    expect(starters).toHaveLength(3);
    const invokes = JSON.stringify(Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties).includes('lambda:InvokeFunction')));
    expect(invokes).toContain(task);
    // Lookups go to the operator's resolvers: without any, every list reads unknown.
    expect(Object.keys(resources[task]!.Properties.Environment.Variables)).not.toContain('BLOCKLIST_RESOLVERS');
  });

  test("the reputation guard runs every 15 minutes in the Optimization stack: it may use the table and queue alerts, and nothing of SES's", () => {
    const optimization = Template.fromStack(stack.optimizationApi);
    const resources = optimization.toJSON().Resources as Record<string, Resource>;
    const guard = functionIdByDescription(optimization, periodicJobs.find((job) => job.name === 'reputation-guard')!.description);
    expect(resources[guard]!.Properties).toMatchObject(platformLambdaProperties(300));
    optimization.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(15 minutes)', Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [guard, 'Arn'] } })]) });
    const alertQueue = Object.keys(resources).find((id) => resources[id]!.Type === 'AWS::SQS::Queue' && id.startsWith('AlertQueue') && resources[id]!.Properties['RedrivePolicy'])!;
    const { actions, business } = permissionsOf(optimization, guard);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'sqs:SendMessage']));
    expect(actions.filter((a) => a.startsWith('ses:') || a.startsWith('states:'))).toEqual([]);
    expect(JSON.stringify(business.filter((s) => [s.Action].flat().includes('sqs:SendMessage')))).toContain(alertQueue);
    expect(Object.keys(resources[guard]!.Properties.Environment.Variables)).toContain('ALERT_QUEUE_URL');
  });

  test('inbox placement polls in the Optimization stack: its workflow invokes its poll task (5 min); in that stack only the inbox area starts it (a test it sends), and mail reaching a target does through the receive worker', () => {
    const optimization = Template.fromStack(stack.optimizationApi);
    const resources = optimization.toJSON().Resources as Record<string, Resource>;
    const [machineId, machine] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::StepFunctions::StateMachine' && JSON.stringify(r.Properties.DefinitionString).includes('WaitForNextPoll'))!;
    const task = functionIdByDescription(optimization, 'Inbox placement: searches the seed mailboxes of one result over IMAP and records where each copy landed');
    expect(JSON.stringify(machine.Properties.DefinitionSubstitutions)).toContain(task);
    expect(resources[task]!.Properties).toMatchObject(platformLambdaProperties(300));
    expect(stack.optimizationApi.node.tryFindChild('PlacementWorkflow')).toBeDefined();
    // Inside the Optimization stack only the inbox area's role starts it: a placement test is polled from its start.
    const starters = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties).includes('states:StartExecution') && JSON.stringify(r.Properties).includes(machineId));
    expect(starters.map((r) => (r.Properties['Roles'] as Array<{ Ref: string }>).map((role) => role.Ref))).toEqual([[expect.stringMatching(/^Areaoptimizeinbox/)]]);
  });

  test('the Postmaster fetch (in the Optimization stack) may read the service account secret only when one is configured, and no other Lambda may', () => {
    const description = periodicJobs.find((job) => job.name === 'postmaster-fetch')!.description;
    const optimization = Template.fromStack(stack.optimizationApi);
    const id = functionIdByDescription(optimization, description);
    expect(permissionsOf(optimization, id).actions.filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
    optimization.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 day)', Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [id, 'Arn'] } })]) });
    expect(stack.platformEnvironment['POSTMASTER_CREDENTIALS_SECRET_ID']).toBeUndefined();

    const secret = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:postmaster-key-AbCdEf';
    const configured = synthPlatform(region, { inbound: { enabled: false }, postmasterCredentialsSecretArn: secret });
    expect(configured.stack.platformEnvironment['POSTMASTER_CREDENTIALS_SECRET_ID']).toBe(secret);
    const templates = [configured.template, ...[configured.stack.inspectionApi, configured.stack.administrationApi, configured.stack.optimizationApi, configured.stack.suppressionsApi, configured.stack.referenceApi].map((nested) => Template.fromStack(nested))];
    const readers = templates.flatMap((t) => (Object.values(t.findResources('AWS::IAM::Policy')) as Resource[]).filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes(secret)));
    const nested = Template.fromStack(configured.stack.optimizationApi);
    const fetchId = functionIdByDescription(nested, description);
    const fetchRole = (nested.toJSON().Resources[fetchId] as Resource).Properties.Role['Fn::GetAtt'][0];
    expect(readers.flatMap((p) => p.Properties.Roles as unknown[])).toEqual([{ Ref: fetchRole }]);
    expect(permissionsOf(nested, fetchId).business).toEqual(expect.arrayContaining([expect.objectContaining({ Action: 'secretsmanager:GetSecretValue', Resource: secret })]));

    const app = testApp();
    app.node.setContext('postmasterCredentialsSecretArn', 'postmaster-key');
    expect(() => new PlatformStack(app, 'Mailplane-postmaster', { platformRegion: region, sandboxDomain: SANDBOX_DOMAIN, env: { region: AWS_REGIONS[region] } })).toThrow(/postmasterCredentialsSecretArn needs the ARN/);
  });

  test('the queue workers are built like every platform Lambda, with their own timeouts', () => {
    const workers = [
      [ids.sendWorker, 'Queue worker: sends accepted messages through SES', SEND_WORKER_TIMEOUT.toSeconds()],
      [ids.sendDeadLetterWorker, 'Queue worker: gives the unsent recipients of dead-lettered send jobs a final event', SEND_DEAD_LETTER_WORKER_TIMEOUT.toSeconds()],
      [ids.notificationsWorker, 'Queue worker: turns SES notifications into events', NOTIFICATIONS_WORKER_TIMEOUT.toSeconds()],
      [ids.webhookWorker, 'Queue worker: signs and POSTs webhook deliveries, re-queues retries', WEBHOOK_WORKER_TIMEOUT.toSeconds()],
      [ids.listWorker, 'Queue worker: expands list posts a page of members at a time, runs bulk member uploads', LIST_WORKER_TIMEOUT.toSeconds()],
      [ids.listDeadLetterWorker, 'Queue worker: ends list posts and uploads the list queue gave up on as failed', 30],
    ] as const;
    for (const [id, description, timeout] of workers) {
      expect(functionIdByDescription(template, description)).toBe(id);
      expect(template.toJSON().Resources[id].Properties).toMatchObject(platformLambdaProperties(timeout));
    }
  });

  test("a product's areas, routes and worker are in its nested stack, on the region's API behind its authorizer", () => {
    const nested = inspectionTemplate.toJSON();
    const inspectRoutes = API_ROUTES.filter((route) => productOfArea(route.area) === 'Inspection');
    const found = Object.values(inspectionTemplate.findResources('AWS::ApiGatewayV2::Route')) as Resource[];
    expect(found.map((r) => r.Properties.RouteKey).sort()).toEqual(inspectRoutes.map(gatewayRouteKey).sort());
    // The previews' rows are past the quota's share: their greedy routes stand for them.
    expect(found.map((r) => r.Properties.RouteKey)).toEqual(expect.arrayContaining(['ANY /v1/preview/{proxy+}', 'ANY /v2/preview/{proxy+}']));
    for (const route of found) {
      const row = inspectRoutes.find((r) => gatewayRouteKey(r) === route.Properties.RouteKey)!;
      // A preview share's page and images: the unguessable uuid in the path is the credential.
      const auth = row.isPublic ? { AuthorizationType: 'NONE' } : { AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: expect.stringMatching(/BasicAuth/) } };
      expect(route.Properties).toMatchObject({ ...auth, ApiId: { Ref: expect.stringMatching(/Api/) } });
    }
    const lambdas = Object.values(nested.Resources as Record<string, Resource>).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(lambdas.map((l) => l.Properties.Description).sort()).toEqual(
      [
        ...inspectAreas.map((a) => `API area: ${a}`),
        'Queue worker: runs inspection tests (links, images, accessibility, code analysis)',
        'Email previews: renders one client of a test in headless Chromium and stores its screenshots',
        "Email previews: zips a test's screenshots into S3 for an export job",
      ].sort(),
    );
    // One inspection run is one invocation: a run may take minutes.
    const [mapping] = Object.values(inspectionTemplate.findResources('AWS::Lambda::EventSourceMapping')) as Resource[];
    expect(mapping!.Properties).toMatchObject({ BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: INSPECT_WORKER_CONCURRENCY } });
    const [worker] = lambdas.filter((l) => l.Properties.Description.startsWith('Queue worker'));
    expect(worker!.Properties).toMatchObject({ ...platformLambdaProperties(INSPECT_WORKER_TIMEOUT.toSeconds()), MemorySize: 2048 });
    // Chromium's npm build is x86-64 only; the render ends before the workflow's 3-minute step timeout.
    const [render] = lambdas.filter((l) => l.Properties.Description.startsWith('Email previews: renders'));
    expect(render!.Properties).toMatchObject({ ...platformLambdaProperties(PREVIEW_RENDER_TIMEOUT.toSeconds()), Architectures: ['x86_64'], MemorySize: PREVIEW_RENDER_MEMORY_MB });
    // The same environment contract as every Lambda, its values passed in from the region's stack;
    // the product's areas also name its workflows, which live in this stack.
    const previewKeys = ['PREVIEW_EXPORT_STATE_MACHINE_ARN', 'PREVIEW_STATE_MACHINE_ARN'];
    for (const lambda of lambdas) {
      const extra = lambda.Properties.Description.startsWith('API area: ') ? previewKeys : [];
      expect(Object.keys(lambda.Properties.Environment.Variables).sort()).toEqual([...Object.keys(mainEnvironment()), ...extra].sort());
    }
  });

  test('a preview test is a workflow in the nested stack: a Map of at most 4 renders, each step timed out at 3 minutes', () => {
    const machines = Object.values(inspectionTemplate.findResources('AWS::StepFunctions::StateMachine')) as Resource[];
    expect(machines).toHaveLength(2);
    const definitions = machines.map((m) => JSON.stringify(m.Properties.DefinitionString));
    const preview = definitions.find((d) => d.includes('RenderClients'))!;
    expect(preview).toMatch(/MaxConcurrency\W+4\b/);
    expect(preview).toMatch(/TimeoutSeconds\W+180\b/);
    // Only the preview area may start them, and nothing else in the stack does.
    const starters = Object.values(inspectionTemplate.findResources('AWS::IAM::Policy')).filter((p) => JSON.stringify(p).includes('states:StartExecution'));
    expect(starters).toHaveLength(1);
  });

  test("every row of the route table is served by a route on its area's Lambda, behind the authorizer unless public", () => {
    const authorizers = Object.entries(template.findResources('AWS::ApiGatewayV2::Authorizer'));
    const authorizerNamed = (name: string) => authorizers.find(([, a]) => a.Properties.Name === name)![0];
    const authorizerId = { cached: authorizerNamed('BasicAuth'), uncached: authorizerNamed('BasicAuthUncached') };
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration', { Properties: { ApiId: { Ref: ids.api } } });
    const integrationOf = (area: string) =>
      Object.entries(integrations).find(
        ([, i]) => i.Properties.IntegrationUri['Fn::GetAtt'][0] === functionIdByDescription(template, `API area: ${area}`),
      )![0];
    for (const route of mainRoutes) {
      // Public routes (tracking links) authenticate by signature in the handler, not by API key.
      const auth = route.isPublic ? { AuthorizationType: 'NONE' } : { AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: route.uncachedAuth ? authorizerId.uncached : authorizerId.cached } };
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        ApiId: { Ref: ids.api },
        RouteKey: gatewayRouteKey(route),
        ...auth,
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationOf(route.area) }]] },
      });
    }
    expect(Object.keys(template.findResources('AWS::ApiGatewayV2::Route', { Properties: { ApiId: { Ref: ids.api } } }))).toHaveLength(mainRoutes.length);
    expect([...new Set(routes.filter((route) => route.access === 'public').map((route) => route.area))].sort()).toEqual(['admin/sandbox', 'inspect/preview', 'openapi', 'optimize/inbox', 'tracking']);
    for (const integration of Object.values(integrations)) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
  });

  test("the HTTP API stays under API Gateway's 300 routes, counting those the product stacks add to it", () => {
    // Past ROUTE_BUDGET rows, areas' rows share greedy routes (functions/platform/http/gateway-routes.ts).
    // The nested stacks name the API through a parameter, so count their routes whole.
    const nested = [stack.inspectionApi, stack.administrationApi, stack.optimizationApi, stack.suppressionsApi, stack.referenceApi].map((product) => Object.keys(Template.fromStack(product).findResources('AWS::ApiGatewayV2::Route')).length);
    const own = Object.keys(template.findResources('AWS::ApiGatewayV2::Route', { Properties: { ApiId: { Ref: ids.api } } })).length;
    const total = own + nested.reduce((sum, n) => sum + n, 0);
    // Every area's routes on the same API (the tracking rows too), as planned over the whole table.
    expect(total).toBe(API_ROUTES.length);
    expect(total).toBeLessThanOrEqual(Math.min(routes.length, ROUTE_BUDGET));
    expect(total).toBeLessThan(300);
  });

  test('the tracking API serves the tracking routes and nothing else, without authorizer, on the tracking Lambda; its stage logs and throttles', () => {
    const trackingRoutes = routes.filter((route) => route.area === 'tracking');
    const found = template.findResources('AWS::ApiGatewayV2::Route', { Properties: { ApiId: { Ref: ids.trackingApi } } });
    expect(Object.values(found).map((r) => r.Properties.RouteKey).sort()).toEqual(trackingRoutes.map((r) => `${r.method} ${r.path}`).sort());
    const [integrationId, integration] = Object.entries(template.findResources('AWS::ApiGatewayV2::Integration', { Properties: { ApiId: { Ref: ids.trackingApi } } }))[0]!;
    expect(integration.Properties.IntegrationUri['Fn::GetAtt'][0]).toBe(functionIdByDescription(template, 'API area: tracking'));
    for (const route of Object.values(found)) {
      expect(route.Properties).toMatchObject({ AuthorizationType: 'NONE', Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] } });
    }
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: ids.trackingApi },
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] }, Format: Match.stringLikeRegexp('\\$context\\.requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
  });

  test('the authorizer is a REQUEST authorizer with simple responses cached on Authorization and the source address (the IP allowlist)', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      IdentitySource: ['$request.header.Authorization', '$context.identity.sourceIp'],
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      AuthorizerResultTtlInSeconds: 60,
      AuthorizerUri: { 'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [ids.authorizer, 'Arn'] }])] },
    });
  });

  test('routes that change credentials use an authorizer that never caches, the others the cached one', () => {
    const authorizers = template.findResources('AWS::ApiGatewayV2::Authorizer');
    const ttlOf = (id: string) => authorizers[id]!.Properties.AuthorizerResultTtlInSeconds as number;
    const routesByKey = new Map<string, { AuthorizerId?: { Ref: string }; AuthorizationType?: string }>();
    for (const resource of Object.values(template.findResources('AWS::ApiGatewayV2::Route'))) routesByKey.set(resource.Properties.RouteKey, resource.Properties);
    const authorizerTtl = (key: string) => ttlOf(routesByKey.get(key)!.AuthorizerId!.Ref);
    expect(authorizerTtl('POST /v1/keys')).toBe(0);
    expect(authorizerTtl('DELETE /v1/keys/{id}')).toBe(0);
    expect(authorizerTtl('GET /v1/keys')).toBe(60);
    expect(authorizerTtl('GET /v4/domains')).toBe(60);
    // Both resolve the key with the same function.
    expect(new Set(Object.values(authorizers).map((a) => JSON.stringify(a.Properties.AuthorizerUri))).size).toBe(1);
  });

  test('the $default stage deploys automatically, logs access and throttles', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: ids.api },
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] }, Format: Match.stringLikeRegexp('\\$context\\.requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
  });

  test('every platform Lambda gets the env contract of functions/platform/env.ts', () => {
    const expected = {
      PLATFORM_REGION: region,
      TABLE_NAME: { Ref: ids.table },
      ENCRYPTION_KEY_SECRET_ID: { Ref: ids.encryptionKey },
      SANDBOX_DOMAIN,
      TRACKING_CNAME_TARGET: { 'Fn::Join': ['', [{ Ref: ids.api }, `.execute-api.${AWS_REGIONS[region]}.`, { Ref: 'AWS::URLSuffix' }]] },
      // Stored messages' URLs in webhooks and route notifications name the API.
      PUBLIC_API_URL: { 'Fn::GetAtt': [ids.api, 'ApiEndpoint'] },
      MESSAGES_BUCKET: { Ref: ids.bucket },
      SEND_QUEUE_URL: { Ref: ids.sendQueue },
      SES_CONFIGURATION_SET: { Ref: ids.configurationSet },
      SES_TLS_CONFIGURATION_SET: { Ref: ids.tlsConfigurationSet },
      SES_EVENTS_TOPIC_ARN: { Ref: ids.topic },
      SCHEDULE_STATE_MACHINE_ARN: { Ref: ids.scheduleMachine },
      CERTIFICATE_STATE_MACHINE_ARN: { Ref: ids.certificateMachine },
      MAX_MESSAGE_TTL: '604800',
      LOG_LEVEL: 'INFO',
      WEBHOOK_QUEUE_URL: { Ref: ids.webhookQueue },
      LIST_QUEUE_URL: { Ref: ids.listQueue },
      INSPECT_BUCKET: { Ref: ids.inspectBucket },
      INSPECT_QUEUE_URL: { Ref: ids.inspectQueue },
      POWERTOOLS_SERVICE_NAME: 'mailplane',
      NODE_OPTIONS: '--enable-source-maps',
    };
    const functionIds = [
      ids.authorizer,
      ids.bootstrap,
      ids.sendWorker,
      ids.notificationsWorker,
      ids.webhookWorker,
      ids.listWorker,
      ...mainAreas.map((a) => functionIdByDescription(template, `API area: ${a}`)),
    ];
    for (const id of functionIds) {
      const variables = template.toJSON().Resources[id].Properties.Environment.Variables;
      expect(variables).toEqual(expected);
    }
    const contractKeys = Object.keys(platformEnvSchema.shape);
    expect(Object.keys(expected).filter((k) => !contractKeys.includes(k))).toEqual(['POWERTOOLS_SERVICE_NAME', 'NODE_OPTIONS']);
  });

  test('no role carries a managed policy or a wildcard action', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
      for (const s of policy.Properties.PolicyDocument.Statement as Statement[]) {
        expect([s.Action].flat().filter((a) => a.includes('*'))).toEqual([]);
      }
    }
  });

  test('the authorizer may only GetItem on the table, and count failed sign-ins on their own items', () => {
    const { business } = permissionsOf(template, ids.authorizer);
    expect(business).toEqual([
      { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] } },
      {
        Effect: 'Allow',
        Action: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AUTHFAIL#*'] } },
      },
    ]);
  });

  test("the domains area manages SES identities of its own account and region, sees and provisions the dedicated IPs, and reads the encryption key", () => {
    const { business, actions } = permissionsOf(template, functionIdByDescription(template, 'API area: domains'));
    expect(business).toContainEqual({
      Effect: 'Allow',
      Action: [...SES_IDENTITY_ACTIONS].sort(),
      Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ses:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':identity/*']] },
    });
    expect(business).toContainEqual({
      Effect: 'Allow',
      Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
      Resource: { Ref: ids.encryptionKey },
    });
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:PutItem']));
    // A domain's IPs and pool name SES's dedicated IPs; a newly leased one gets its configuration sets (this stack's names only).
    expect(business).toContainEqual({ Effect: 'Allow', Action: [...SES_DEDICATED_IP_ACTIONS].sort(), Resource: '*' });
    expect(business).toContainEqual({
      Effect: 'Allow',
      Action: [...SES_IP_CONFIGURATION_SET_ACTIONS].sort(),
      Resource: [ipConfigurationSetArnOf(ids.configurationSet), ipConfigurationSetArnOf(ids.tlsConfigurationSet)],
    });
    expect(actions.filter((a) => a.startsWith('ses:')).sort()).toEqual([...SES_IDENTITY_ACTIONS, ...SES_DEDICATED_IP_ACTIONS, ...SES_IP_CONFIGURATION_SET_ACTIONS].sort());
  });

  test('the keys area has table read/write and nothing of SES or Secrets Manager', () => {
    const { actions } = permissionsOf(template, functionIdByDescription(template, 'API area: keys'));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:DeleteItem']));
    expect(actions.filter((a) => !a.startsWith('dynamodb:'))).toEqual([]);
  });

  test('the send and notifications queues park a message in their DLQ after 5 receives, are encrypted and TLS-only', () => {
    const pairs = [
      [ids.sendQueue, ids.sendDlq, ids.sendWorker],
      [ids.notificationsQueue, ids.notificationsDlq, ids.notificationsWorker],
      [ids.webhookQueue, ids.webhookDlq, ids.webhookWorker],
      [ids.listQueue, ids.listDlq, ids.listWorker],
    ] as const;
    const resources = template.toJSON().Resources as Record<string, Resource>;
    for (const [queueId, dlqId, workerId] of pairs) {
      const workerTimeout: number = resources[workerId]!.Properties.Timeout;
      expect(resources[queueId]!.Properties).toEqual({
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
        SqsManagedSseEnabled: true,
        // AWS's guidance: at least six times the consuming function's timeout.
        VisibilityTimeout: 6 * workerTimeout,
      });
      // The send queue's dead letters are consumed (their recipients still need a final event):
      // that queue's visibility follows its consumer's timeout.
      const consumer = { [ids.sendDlq]: ids.sendDeadLetterWorker, [ids.listDlq]: ids.listDeadLetterWorker }[dlqId];
      const dlqVisibility = consumer ? { VisibilityTimeout: 6 * resources[consumer]!.Properties.Timeout } : {};
      expect(resources[dlqId]!.Properties).toEqual({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true, ...dlqVisibility });
      for (const id of [queueId, dlqId]) {
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
        });
      }
    }
    // The inspection queue ends a run itself on its second receipt: its dead letters wait for a person.
    expect(resources[ids.inspectQueue]!.Properties).toEqual({
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [ids.inspectDlq, 'Arn'] }, maxReceiveCount: 3 },
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * INSPECT_WORKER_TIMEOUT.toSeconds(),
    });
    // Plus the stream's failure destination (tested with the stream).
    expect(Object.keys(template.findResources('AWS::SQS::Queue'))).toHaveLength(11);
  });

  test("the send queue's clocks are the ones the send worker reasons with (functions/delivery/send-timing.ts)", () => {
    const resources = template.toJSON().Resources as Record<string, Resource>;
    const timing = sendQueueTiming();
    expect(resources[ids.sendWorker]!.Properties.Timeout).toBe(timing.workerTimeoutSeconds);
    expect(resources[ids.sendQueue]!.Properties.VisibilityTimeout).toBe(timing.visibilityTimeoutSeconds);
    expect(resources[ids.sendQueue]!.Properties.RedrivePolicy.maxReceiveCount).toBe(timing.maxReceiveCount);
    // A job redelivered after a visibility timeout finds the claims of the invocation before it dead.
    expect(timing.visibilityTimeoutSeconds * 1000).toBeGreaterThan(timing.claimLifetimeMs);
  });

  test('each worker consumes its queue in batches of 10 with partial batch failures; the send worker is bounded by sendConcurrency', () => {
    const mappings = (Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as Resource[]).filter((m) => m.Properties.FunctionName.Ref !== ids.streamWorker);
    expect(mappings.map((m) => m.Properties).sort((a, b) => String(a.FunctionName.Ref).localeCompare(b.FunctionName.Ref))).toEqual(
      [
        {
          FunctionName: { Ref: ids.sendWorker },
          EventSourceArn: { 'Fn::GetAtt': [ids.sendQueue, 'Arn'] },
          BatchSize: 10,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          ScalingConfig: { MaximumConcurrency: queueWorker('send').maxConcurrency },
        },
        {
          FunctionName: { Ref: ids.sendDeadLetterWorker },
          EventSourceArn: { 'Fn::GetAtt': [ids.sendDlq, 'Arn'] },
          BatchSize: 10,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        },
        {
          FunctionName: { Ref: ids.notificationsWorker },
          EventSourceArn: { 'Fn::GetAtt': [ids.notificationsQueue, 'Arn'] },
          BatchSize: 10,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        },
        {
          FunctionName: { Ref: ids.webhookWorker },
          EventSourceArn: { 'Fn::GetAtt': [ids.webhookQueue, 'Arn'] },
          BatchSize: 10,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        },
        {
          FunctionName: { Ref: ids.listWorker },
          EventSourceArn: { 'Fn::GetAtt': [ids.listQueue, 'Arn'] },
          BatchSize: 10,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          ScalingConfig: { MaximumConcurrency: LIST_WORKER_CONCURRENCY },
        },
        {
          FunctionName: { Ref: ids.listDeadLetterWorker },
          EventSourceArn: { 'Fn::GetAtt': [ids.listDlq, 'Arn'] },
          BatchSize: 10,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        },
      ].sort((a, b) => a.FunctionName.Ref.localeCompare(b.FunctionName.Ref)),
    );
  });

  test("new events reach the stream worker from the table's stream, filtered to event inserts, in large batches retried from their first record, ending on a failure queue", () => {
    const [, table] = only(template, 'AWS::DynamoDB::Table');
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    const [mapping] = (Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as Resource[]).filter((m) => m.Properties.FunctionName.Ref === ids.streamWorker);
    expect(mapping!.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [ids.table, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: EVENT_STREAM_BATCH_SIZE,
      BisectBatchOnFunctionError: false,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [ids.streamFailures, 'Arn'] } } },
    });
    // The filter is what local mode's stand-in applies: INSERTs of items whose kind is the event kind.
    const [filter] = mapping!.Properties.FilterCriteria.Filters;
    expect(JSON.parse(filter.Pattern)).toEqual({ eventName: ['INSERT'], dynamodb: { NewImage: { kind: { S: [EVENT_ITEM_KIND] } } } });
    const failures = template.toJSON().Resources[ids.streamFailures];
    expect(failures.Properties).toEqual({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
  });

  test("SES publishes the region's delivery, bounce, complaint, reject and delay events to the encrypted events topic, from both configuration sets", () => {
    const sets = Object.fromEntries(all(template, 'AWS::SES::ConfigurationSet'));
    // The opportunistic set, and its twin that delivers only over TLS (o:require-tls, require_tls).
    expect(sets).toEqual({
      [ids.configurationSet]: { Type: 'AWS::SES::ConfigurationSet', Properties: { Name: `mailplane-${region}` } },
      [ids.tlsConfigurationSet]: { Type: 'AWS::SES::ConfigurationSet', Properties: { Name: `mailplane-${region}-require-tls`, DeliveryOptions: { TlsPolicy: 'REQUIRE' } } },
    });

    const destinations = all(template, 'AWS::SES::ConfigurationSetEventDestination');
    expect(destinations.map(([, d]) => d.Properties.ConfigurationSetName).sort(byRef)).toEqual([{ Ref: ids.configurationSet }, { Ref: ids.tlsConfigurationSet }].sort(byRef));
    const [policyId, topicPolicy] = only(template, 'AWS::SNS::TopicPolicy');
    for (const [, destination] of destinations) {
      expect(destination.Properties.EventDestination).toMatchObject({ Enabled: true, SnsDestination: { TopicARN: { Ref: ids.topic } } });
      expect([...destination.Properties.EventDestination.MatchingEventTypes].sort()).toEqual(['bounce', 'complaint', 'delivery', 'deliveryDelay', 'reject']);
      // SES checks it may publish when the destination is created.
      expect(destination.DependsOn).toContain(policyId);
    }

    const [, topic] = only(template, 'AWS::SNS::Topic');
    expect(topic.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [ids.eventsKey, 'Arn'] });
    expect(topicPolicy.Properties.Topics).toEqual([{ Ref: ids.topic }]);
    const topicStatements = topicPolicy.Properties.PolicyDocument.Statement as Array<Statement & Record<string, unknown>>;
    expect(topicStatements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    const sesPublish = topicStatements.filter((st) => st.Effect === 'Allow');
    expect(sesPublish).toHaveLength(3);
    for (const [i, set] of [ids.configurationSet, ids.tlsConfigurationSet].entries()) {
      expect(sesPublish[i]).toMatchObject({ Action: 'sns:Publish', Principal: { Service: 'ses.amazonaws.com' }, Resource: { Ref: ids.topic } });
      expect(JSON.stringify(sesPublish.map((st) => st.Condition))).toContain(JSON.stringify({ Ref: set }));
    }
    // The sets made at run time for each dedicated IP publish here too, and only they.
    expect(sesPublish[2]).toMatchObject({
      Action: 'sns:Publish',
      Principal: { Service: 'ses.amazonaws.com' },
      Resource: { Ref: ids.topic },
      Condition: { StringEquals: { 'AWS:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnLike: { 'AWS:SourceArn': [ipConfigurationSetArnOf(ids.configurationSet), ipConfigurationSetArnOf(ids.tlsConfigurationSet)] } },
    });

    // A customer managed key whose policy lets SES (for these configuration sets only) encrypt.
    const key = template.toJSON().Resources[ids.eventsKey] as Resource;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const keyStatements = key.Properties.KeyPolicy.Statement as Array<Statement & Record<string, unknown>>;
    const sesKeyUse = keyStatements.find((st) => JSON.stringify(st.Principal) === JSON.stringify({ Service: 'ses.amazonaws.com' }))!;
    expect([sesKeyUse.Action].flat().sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
    expect(sesKeyUse.Condition).toEqual({
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: {
        'aws:SourceArn': [
          configurationSetArnOf(ids.configurationSet),
          configurationSetArnOf(ids.tlsConfigurationSet),
          ipConfigurationSetArnOf(ids.configurationSet),
          ipConfigurationSetArnOf(ids.tlsConfigurationSet),
        ],
      },
    });
  });

  test('the notifications queue subscribes to the events topic with raw delivery off, and only the topic may send to it', () => {
    const [, subscription] = only(template, 'AWS::SNS::Subscription');
    expect(subscription.Properties).toEqual({
      Protocol: 'sqs',
      TopicArn: { Ref: ids.topic },
      Endpoint: { 'Fn::GetAtt': [ids.notificationsQueue, 'Arn'] },
      RawMessageDelivery: false,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: ids.notificationsQueue }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Action: 'sqs:SendMessage',
            Principal: { Service: 'sns.amazonaws.com' },
            Condition: { ArnEquals: { 'aws:SourceArn': { Ref: ids.topic } } },
          }),
        ]),
      },
    });
  });

  test('the messages area stores and reads MIME objects, queues sends and list posts and starts scheduled deliveries, and nothing more', () => {
    const { business, actions } = permissionsOf(template, functionIdByDescription(template, 'API area: messages'));
    const objects = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [ids.bucket, 'Arn'] }, '/*']] };
    expect(business).toContainEqual({ Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: objects });
    // The send queue, and the list queue for sends to a list address (CDK merges the two).
    const queues = business.filter((st) => st.Action === 'sqs:SendMessage').flatMap((st) => [st.Resource].flat());
    expect(queues).toEqual(expect.arrayContaining([{ 'Fn::GetAtt': [ids.sendQueue, 'Arn'] }, { 'Fn::GetAtt': [ids.listQueue, 'Arn'] }]));
    expect(queues).toHaveLength(2);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem']));
    expect(business).toContainEqual({ Effect: 'Allow', Action: 'states:StartExecution', Resource: { Ref: ids.scheduleMachine } });
    expect(actions.filter((a) => !a.startsWith('dynamodb:')).sort()).toEqual(['s3:GetObject', 's3:PutObject', 'sqs:SendMessage', 'states:StartExecution']);
  });

  test('scheduled delivery is a logged, traced Standard workflow that waits for deliverAt, queues the send job, and fails the recipients if it cannot', () => {
    expect(Object.keys(template.findResources('AWS::StepFunctions::StateMachine')).sort()).toEqual([ids.scheduleMachine, ids.certificateMachine].sort());
    const machine = template.toJSON().Resources[ids.scheduleMachine] as Resource;
    expect(machine.Properties).toMatchObject({
      StateMachineType: 'STANDARD',
      DefinitionSubstitutions: { SendQueueUrl: { Ref: ids.sendQueue }, UndeliveredFunctionArn: { 'Fn::GetAtt': [ids.undelivered, 'Arn'] } },
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
    });
    const definition = JSON.parse(machine.Properties.DefinitionString);
    const states = Object.values(definition.States) as Array<Record<string, unknown>>;
    expect(states.map((st) => st.Type)).toEqual(['Wait', 'Task', 'Task', 'Fail']);
    expect(definition.States[definition.StartAt]).toMatchObject({ Type: 'Wait', TimestampPath: '$.deliverAt' });
    // The send job as the send worker reads it, without the delivery time.
    expect(states[1]).toMatchObject({
      Resource: 'arn:aws:states:::sqs:sendMessage',
      Parameters: { QueueUrl: '${SendQueueUrl}', MessageBody: { 'storageKey.$': '$.storageKey', 'attempt.$': '$.attempt' } },
      End: true,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'RecordUndelivered' }],
    });
    expect(definition.States.RecordUndelivered).toMatchObject({
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: '${UndeliveredFunctionArn}', Payload: { 'storageKey.$': '$.storageKey', 'error.$': '$.error' } },
      Next: 'Undelivered',
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: `/aws/vendedlogs/states/Mailplane-${region}-scheduled-delivery` });
  });

  test('the scheduled-delivery state machine may only send to the send queue and invoke its undelivered handler, besides its logs and traces', () => {
    const roleId: string = (template.toJSON().Resources[ids.scheduleMachine] as Resource).Properties.RoleArn['Fn::GetAtt'][0];
    const role = template.toJSON().Resources[roleId] as Resource;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'states.amazonaws.com' } }),
    ]);
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
      .filter((p) => (p.Properties.Roles as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId })))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    const business = statements.filter((st) => ![st.Action].flat().every((a) => a.startsWith('logs:') || a.startsWith('xray:')));
    expect(business).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [ids.sendQueue, 'Arn'] } },
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [ids.undelivered, 'Arn'] } },
    ]);
    // Its handler runs with the platform environment minus the state machines' ARNs (no cycle).
    const handler = template.toJSON().Resources[ids.undelivered] as Resource;
    expect(handler.Properties.Environment.Variables.TABLE_NAME).toBeDefined();
    expect(handler.Properties.Environment.Variables.SCHEDULE_STATE_MACHINE_ARN).toBeUndefined();
    expect(handler.Properties.Environment.Variables.CERTIFICATE_STATE_MACHINE_ARN).toBeUndefined();
  });

  test('tracking certificates are a logged, traced Standard workflow whose every Task invokes its task function, and which records a failure before it ends', () => {
    const machine = template.toJSON().Resources[ids.certificateMachine] as Resource;
    expect(machine.Properties).toMatchObject({
      StateMachineType: 'STANDARD',
      DefinitionSubstitutions: { CertificateTasksFunctionArn: { 'Fn::GetAtt': [ids.certificateTasks, 'Arn'] } },
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
    });
    const definition = JSON.parse(machine.Properties.DefinitionString);
    const states = definition.States as Record<string, Record<string, unknown> & { Parameters?: { FunctionName: string; Payload: { step: string } }; Catch?: Array<{ Next: string }> }>;
    const tasks = Object.entries(states).filter(([, st]) => st.Type === 'Task');
    expect(tasks.map(([, st]) => st.Parameters!.Payload.step).sort()).toEqual(['attach', 'fail', 'poll', 'release', 'request', 'retire']);
    for (const [, st] of tasks) expect(st).toMatchObject({ Resource: 'arn:aws:states:::lambda:invoke', Parameters: { FunctionName: '${CertificateTasksFunctionArn}', Payload: { 'state.$': '$' } } });
    // Every step of an issue job that can fail goes to RecordFailure, which records `error` on the domain.
    for (const name of ['RequestCertificate', 'CheckIssued', 'Attach']) expect(states[name]!.Catch).toEqual([expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'RecordFailure' })]);
    expect(states['WaitForValidation']).toEqual({ Type: 'Wait', SecondsPath: '$.job.pollSeconds', Next: 'CheckIssued' });
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: `/aws/vendedlogs/states/Mailplane-${region}-tracking-certificate` });
    // Its role invokes the task function and nothing else, besides its logs and traces.
    const roleId: string = machine.Properties.RoleArn['Fn::GetAtt'][0];
    const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
      .filter((p) => (p.Properties.Roles as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId })))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    expect(statements.filter((st) => ![st.Action].flat().every((a) => a.startsWith('logs:') || a.startsWith('xray:')))).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [ids.certificateTasks, 'Arn'] } },
    ]);
  });

  test("the certificate task function requests DNS-validated certificates, touches only the platform's tagged ones, and manages API Gateway domain names and mappings", () => {
    const { business, actions } = permissionsOf(template, ids.certificateTasks);
    const certificates = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':acm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':certificate/*']] };
    const domainNames = (suffix: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':apigateway:', { Ref: 'AWS::Region' }, `::/domainnames${suffix}`]] });
    const tagged = { StringLike: { 'aws:ResourceTag/mailplane:tracking-host': '*' } };
    const acm = business.filter((st) => [st.Action].flat().some((a) => a.startsWith('acm:')));
    expect(acm).toEqual([
      { Effect: 'Allow', Action: 'acm:RequestCertificate', Resource: '*', Condition: { StringEquals: { 'acm:ValidationMethod': 'DNS' } } },
      { Effect: 'Allow', Action: 'acm:AddTagsToCertificate', Resource: certificates, Condition: { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['mailplane:tracking-host'] } } },
      { Effect: 'Allow', Action: ['acm:DeleteCertificate', 'acm:DescribeCertificate', 'acm:GetCertificate'], Resource: certificates, Condition: tagged },
    ]);
    const apigateway = business.filter((st) => [st.Action].flat().some((a) => a.startsWith('apigateway:')));
    expect(apigateway).toEqual([
      { Effect: 'Allow', Action: 'apigateway:POST', Resource: [domainNames(''), domainNames('/*/apimappings')] },
      { Effect: 'Allow', Action: 'apigateway:GET', Resource: [domainNames('/*'), domainNames('/*/apimappings')] },
      { Effect: 'Allow', Action: 'apigateway:PATCH', Resource: domainNames('/*') },
      { Effect: 'Allow', Action: 'apigateway:DELETE', Resource: [domainNames('/*'), domainNames('/*/apimappings/*')] },
    ]);
    expect(business).toContainEqual(expect.objectContaining({ Action: 'iam:CreateServiceLinkedRole', Condition: { StringEquals: { 'iam:AWSServiceName': 'ops.apigateway.amazonaws.com' } } }));
    expect(actions.filter((a) => !/^(dynamodb|acm|apigateway):/.test(a))).toEqual(['iam:CreateServiceLinkedRole']);
    const variables = (template.toJSON().Resources[ids.certificateTasks] as Resource).Properties.Environment.Variables;
    expect(variables).toMatchObject({ TRACKING_API_ID: { Ref: ids.trackingApi }, TABLE_NAME: { Ref: ids.table } });
    expect(variables.CERTIFICATE_STATE_MACHINE_ARN).toBeUndefined();
    expect(variables.SCHEDULE_STATE_MACHINE_ARN).toBeUndefined();
  });

  test('the certificates area starts certificate jobs and reads tagged certificates; the domains area may start (release) them too', () => {
    const { business, actions } = permissionsOf(template, functionIdByDescription(template, 'API area: certificates'));
    expect(business).toContainEqual({ Effect: 'Allow', Action: 'states:StartExecution', Resource: { Ref: ids.certificateMachine } });
    expect(business).toContainEqual(expect.objectContaining({ Action: ['acm:DescribeCertificate', 'acm:GetCertificate'], Condition: { StringLike: { 'aws:ResourceTag/mailplane:tracking-host': '*' } } }));
    expect(actions.filter((a) => !a.startsWith('dynamodb:')).sort()).toEqual(['acm:DescribeCertificate', 'acm:GetCertificate', 'states:StartExecution']);
    const domains = permissionsOf(template, functionIdByDescription(template, 'API area: domains'));
    expect(domains.business).toContainEqual({ Effect: 'Allow', Action: 'states:StartExecution', Resource: { Ref: ids.certificateMachine } });
  });

  test('the webhook worker re-queues only on its own queue, reads the platform key for signing keys, and uses the table', () => {
    const { business, actions } = permissionsOf(template, ids.webhookWorker);
    // CDK merges the event source's receive/delete grant with the worker's SendMessage.
    const sqsStatements = business.filter((st) => [st.Action].flat().some((a) => a.startsWith('sqs:')));
    expect(sqsStatements.map((st) => st.Resource)).toEqual([{ 'Fn::GetAtt': [ids.webhookQueue, 'Arn'] }]);
    expect([sqsStatements[0]!.Action].flat()).toContain('sqs:SendMessage');
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'secretsmanager:GetSecretValue']));
    expect(actions.filter((a) => !/^(dynamodb|secretsmanager|sqs):/.test(a))).toEqual([]);
    const { actions: areaActions } = permissionsOf(template, functionIdByDescription(template, 'API area: webhooks'));
    expect(areaActions.filter((a) => !/^(dynamodb|secretsmanager):/.test(a))).toEqual([]);
  });

  test('the list worker accepts copies (MIME, table, send queue, scheduled delivery) and queues only on the send and list queues; the lists area queues uploads', () => {
    const { business, actions } = permissionsOf(template, ids.listWorker);
    const sqsResources = business.filter((st) => [st.Action].flat().some((a) => a.startsWith('sqs:'))).flatMap((st) => [st.Resource].flat());
    expect(sqsResources).toEqual(expect.arrayContaining([{ 'Fn::GetAtt': [ids.sendQueue, 'Arn'] }, { 'Fn::GetAtt': [ids.listQueue, 'Arn'] }]));
    expect(new Set(sqsResources.map((resource) => JSON.stringify(resource))).size).toBe(2);
    expect(business).toContainEqual({ Effect: 'Allow', Action: 'states:StartExecution', Resource: { Ref: ids.scheduleMachine } });
    expect(actions).toEqual(expect.arrayContaining(['s3:GetObject', 's3:PutObject', 'dynamodb:PutItem', 'dynamodb:BatchGetItem']));
    expect(actions.filter((a) => !/^(dynamodb|s3|sqs|states):/.test(a))).toEqual([]);
    const area = permissionsOf(template, functionIdByDescription(template, 'API area: lists'));
    expect(area.business).toContainEqual({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [ids.listQueue, 'Arn'] } });
    expect(area.actions.filter((a) => !a.startsWith('dynamodb:')).sort()).toEqual(['s3:PutObject', 'sqs:SendMessage']);
  });

  test('the send worker reads MIME, re-queues retries, and sends through SES with either configuration set', () => {
    const { business, actions } = permissionsOf(template, ids.sendWorker);
    expect(business).toContainEqual({
      Effect: 'Allow',
      Action: [...SES_SEND_ACTIONS].sort(),
      Resource: expect.arrayContaining([
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ses:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':identity/*']] },
        configurationSetArnOf(ids.configurationSet),
        configurationSetArnOf(ids.tlsConfigurationSet),
        // Each dedicated IP's sets (functions/sending-ips): a domain's mail from its IPs or pool.
        ipConfigurationSetArnOf(ids.configurationSet),
        ipConfigurationSetArnOf(ids.tlsConfigurationSet),
      ]),
    });
    expect(business.find((st) => [st.Action].flat().includes('ses:SendEmail'))!.Resource).toHaveLength(5);
    expect(business).toContainEqual({ Effect: 'Allow', Action: 's3:GetObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [ids.bucket, 'Arn'] }, '/*']] } });
    expect(actions.filter((a) => a.startsWith('ses:')).sort()).toEqual([...SES_SEND_ACTIONS].sort());
    expect(actions.filter((a) => a.startsWith('s3:'))).toEqual(['s3:GetObject']);
    expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'dynamodb:PutItem', 'dynamodb:DeleteItem']));
    // Every queue permission is on its own queue.
    for (const st of business.filter((b) => [b.Action].flat().some((a) => a.startsWith('sqs:')))) {
      expect(st.Resource).toEqual({ 'Fn::GetAtt': [ids.sendQueue, 'Arn'] });
    }
    expect(actions.filter((a) => !/^(dynamodb|sqs|s3|ses):/.test(a))).toEqual([]);
  });

  test('the notifications worker consumes its queue and writes the table, nothing else', () => {
    const { business, actions } = permissionsOf(template, ids.notificationsWorker);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']));
    expect(actions.filter((a) => !/^(dynamodb|sqs):/.test(a))).toEqual([]);
    expect(actions).not.toContain('sqs:SendMessage');
    for (const st of business.filter((b) => [b.Action].flat().some((a) => a.startsWith('sqs:')))) {
      expect(st.Resource).toEqual({ 'Fn::GetAtt': [ids.notificationsQueue, 'Arn'] });
    }
  });

  test('the events area only reads the table', () => {
    const { actions } = permissionsOf(template, functionIdByDescription(template, 'API area: events'));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    expect(actions.filter((a) => !a.startsWith('dynamodb:'))).toEqual([]);
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:PartiQLInsert', 'dynamodb:PartiQLUpdate', 'dynamodb:PartiQLDelete'];
    expect(actions.filter((a) => writes.includes(a))).toEqual([]);
  });

  test('the bootstrap custom resource writes the admin key to its secret', () => {
    const [, resource] = only(template, 'Custom::PrimaryAccount');
    expect(resource.Properties).toEqual({
      ServiceToken: { 'Fn::GetAtt': [expect.any(String), 'Arn'] },
      AdminKeySecretId: { Ref: ids.adminKey },
    });
    const providerId: string = resource.Properties.ServiceToken['Fn::GetAtt'][0];
    expect(template.toJSON().Resources[providerId].Properties.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN).toEqual({
      'Fn::GetAtt': [ids.bootstrap, 'Arn'],
    });
    const { business } = permissionsOf(template, ids.bootstrap);
    expect(business).toContainEqual(
      expect.objectContaining({ Action: expect.arrayContaining(['secretsmanager:PutSecretValue']), Resource: { Ref: ids.adminKey } }),
    );
    expect(business.flatMap((s) => [s.Action].flat()).filter((a) => a.startsWith('secretsmanager:Get'))).toEqual([]);
    template.hasResource('AWS::SecretsManager::Secret', {
      Properties: Match.objectLike({ GenerateSecretString: Match.anyValue() }),
      DeletionPolicy: 'Retain',
    });
  });

  test('outputs the API URL and the admin key secret name', () => {
    template.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [ids.api, 'ApiEndpoint'] } });
    const output = template.toJSON().Outputs.AdminKeySecretName;
    expect(JSON.stringify(output.Value)).toContain(JSON.stringify({ Ref: ids.adminKey }));
  });
});

describe('PlatformStack with a custom domain', () => {
  let template: Template;
  let stack: PlatformStack;
  const customDomain = { domainName: 'api.eu.mail.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0000' };

  beforeAll(() => {
    ({ stack, template } = synthPlatform('eu', { customDomain }));
  });

  test('maps the domain to the $default stage and uses it for the URL and tracking CNAMEs', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: customDomain.domainName,
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: customDomain.certificateArn })],
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', {
      ApiId: { Ref: logicalIdOf(stack, stack.api.httpApi) },
      Stage: '$default',
    });
    template.hasOutput('ApiUrl', { Value: `https://${customDomain.domainName}` });
    const variables = template.toJSON().Resources[logicalIdOf(stack, stack.api.authorizerFunction.fn)].Properties.Environment.Variables;
    expect(variables.TRACKING_CNAME_TARGET).toBe(customDomain.domainName);
    expect(variables.PUBLIC_API_URL).toBe(`https://${customDomain.domainName}`);
  });
});

describe('PlatformStack settings', () => {
  function build(props: Partial<PlatformStackProps> = {}, context: Record<string, unknown> = {}) {
    const app = testApp();
    for (const [key, value] of Object.entries(context)) app.node.setContext(key, value);
    const stack = new PlatformStack(app, 'Mailplane-us', { platformRegion: 'us', sandboxDomain: SANDBOX_DOMAIN, env: { region: 'us-east-1' }, ...props });
    return { stack, template: Template.fromStack(stack) };
  }
  const sendConcurrencyOf = ({ stack, template }: ReturnType<typeof build>) => {
    const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).find(
      (m) => m.Properties.FunctionName.Ref === logicalIdOf(stack, stack.sendingWorkers.sendWorker.fn),
    )!;
    return mapping.Properties.ScalingConfig.MaximumConcurrency as number;
  };

  test('sendConcurrency comes from the stack prop, else the context (as `-c` passes it, a string), else 2', () => {
    expect(sendConcurrencyOf(build())).toBe(2);
    expect(sendConcurrencyOf(build({}, { sendConcurrency: '6' }))).toBe(6);
    expect(sendConcurrencyOf(build({ sendConcurrency: 3 }, { sendConcurrency: 8 }))).toBe(3);
    expect(() => build({}, { sendConcurrency: 'two' })).toThrow(/Context "sendConcurrency" must be a whole number/);
    // SQS event sources accept a maxConcurrency of 2 to 1000.
    expect(() => build({ sendConcurrency: 1 })).toThrow(/sendConcurrency must be a whole number from 2 to 1000/);
    expect(() => build({ sendConcurrency: 2.5 })).toThrow(/sendConcurrency/);
  });

  test('a longer maxMessageTtl reaches the handlers and lengthens the bucket lifecycle with it', () => {
    const { stack, template } = build({ maxMessageTtl: Duration.days(14) });
    const variables = template.toJSON().Resources[logicalIdOf(stack, stack.sendingWorkers.sendWorker.fn)].Properties.Environment.Variables;
    expect(variables.MAX_MESSAGE_TTL).toBe(String(14 * 86_400));
    const bucket = template.toJSON().Resources[logicalIdOf(stack, stack.data.messages)];
    // 14 days of message_ttl from a delivery time up to 3 days ahead, plus a day.
    expect(bucket.Properties.LifecycleConfiguration.Rules[0].ExpirationInDays).toBe(18);
  });

  test('the stack schedules as far ahead as the handlers accept o:deliverytime', () => {
    expect(SCHEDULE_HORIZON.toMilliseconds()).toBe(MAX_SCHEDULE_MS);
  });

  test('the messages bucket never expires objects before the longest message_ttl', () => {
    expect(DEFAULT_MAX_MESSAGE_TTL.toSeconds()).toBe(platformEnvSchema.parse({ TABLE_NAME: 't' }).MAX_MESSAGE_TTL);
    expect(messageRetentionDays(Duration.days(7))).toBe(8);
    expect(messageRetentionDays(Duration.hours(60))).toBe(4);
    expect(messageRetentionDays(Duration.days(7), Duration.days(30))).toBe(30);
    expect(messageRetentionDays(Duration.days(7), Duration.days(7))).toBe(7);
    expect(() => messageRetentionDays(Duration.days(7), Duration.days(6))).toThrow(/at least 7/);
    expect(() => messageRetentionDays(Duration.days(7), Duration.hours(180))).toThrow(/whole number of days/);
  });

  test('the environment is checked against the handlers\' contract at synth time, tokens by their shape', () => {
    const settings = {
      platformRegion: 'us' as const,
      tableName: 'table',
      encryptionKeySecretId: 'secret',
      sandboxDomain: 'sandbox.example.com',
      trackingCnameTarget: 'api.example.com',
      messagesBucket: 'bucket',
      sesConfigurationSet: 'mailplane-us',
    };
    const stack = new Stack();
    const queueUrl = new sqs.Queue(stack, 'Queue').queueUrl;
    expect(platformEnvironment({ ...settings, sendQueueUrl: queueUrl }).SEND_QUEUE_URL).toBe(queueUrl);
    expect(() => platformEnvironment({ ...settings, sendQueueUrl: 'send-queue' })).toThrow(/url/i);
    const arn = 'arn:aws:states:us-east-1:123456789012:stateMachine:scheduled-delivery';
    expect(platformEnvironment({ ...settings, scheduleStateMachineArn: arn }).SCHEDULE_STATE_MACHINE_ARN).toBe(arn);
    expect(() => platformEnvironment({ ...settings, scheduleStateMachineArn: 'scheduled-delivery' })).toThrow(/state machine ARN/);
    expect(() => platformEnvironment({ ...settings, scheduleStateMachineArn: 'arn:aws:sqs:us-east-1:123456789012:q' })).toThrow(/state machine ARN/);
  });

  test('inbox placement settings reach the handlers from props or context, and a bad scorer address fails the synth', () => {
    const settings = { platformRegion: 'us' as const, tableName: 'table', encryptionKeySecretId: 'secret', sandboxDomain: 'sandbox.example.com', trackingCnameTarget: 'api.example.com', messagesBucket: 'bucket', sesConfigurationSet: 'mailplane-us' };
    expect(platformEnvironment({ ...settings, placement: { spamdAddress: 'spamd.internal:783', pollSeconds: 120, deadlineSeconds: 1800 } })).toMatchObject({ SPAMD_ADDRESS: 'spamd.internal:783', PLACEMENT_POLL_SECONDS: '120', PLACEMENT_DEADLINE_SECONDS: '1800' });
    expect(() => platformEnvironment({ ...settings, placement: { spamdAddress: 'spamd.internal' } })).toThrow(/host:port/);
    const app = testApp();
    app.node.setContext('rspamdUrl', 'http://rspamd.internal:11333');
    app.node.setContext('seedInboxDomain', 'seeds.example.com');
    const stack = new PlatformStack(app, 'Mailplane-placement', { platformRegion: 'us', sandboxDomain: SANDBOX_DOMAIN, env: { region: AWS_REGIONS.us } });
    expect(stack.platformEnvironment).toMatchObject({ RSPAMD_URL: 'http://rspamd.internal:11333', SEED_INBOX_DOMAIN: 'seeds.example.com' });
    expect(stack.platformEnvironment['SPAMD_ADDRESS']).toBeUndefined();
  });
});
