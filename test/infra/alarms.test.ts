import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { platformStackConfigs } from '../../lib/app-config';
import { maxHealthyAgeSeconds, SQS_MAX_DELAY_SECONDS } from '../../lib/constructs/alarms';
import { REPO_ROOT } from '../../lib/paths';
import type { PlatformStack } from '../../lib/platform-stack';
import { removeSynthOutput, synthPlatform } from './synth';

afterAll(removeSynthOutput);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A resource of one synthesized template: the stack's construct path and the logical id. */
type ResourceRef = `${string}#${string}`;

interface Templates {
  /** Each template by its stack's construct path. */
  byStack: Map<string, Json>;
  /** A nested stack's template by its AWS::CloudFormation::Stack resource in its parent. */
  nestedAt: Map<ResourceRef, string>;
  /** The stack that holds each nested stack (by the nested stack's path). */
  parentOf: Map<string, { parent: string; logicalId: string }>;
}

function templatesOf(root: Stack): Templates {
  const byStack = new Map<string, Json>([[root.node.path, Template.fromStack(root).toJSON()]]);
  const nestedAt = new Map<ResourceRef, string>();
  const parentOf = new Map<string, { parent: string; logicalId: string }>();
  for (const nested of root.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c))) {
    byStack.set(nested.node.path, Template.fromStack(nested).toJSON());
    const parent = nested.nestedStackParent!;
    const logicalId = parent.getLogicalId(nested.nestedStackResource!);
    nestedAt.set(`${parent.node.path}#${logicalId}`, nested.node.path);
    parentOf.set(nested.node.path, { parent: parent.node.path, logicalId });
  }
  return { byStack, nestedAt, parentOf };
}

/**
 * The resource a value in `stack`'s template stands for: a Ref or GetAtt of one of its own
 * resources, a parameter its parent fills in, or an output of a sibling nested stack (CDK's way
 * across stacks), followed until a resource is reached.
 */
function resolve(t: Templates, stack: string, value: unknown): ResourceRef | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Json;
  const template = t.byStack.get(stack)!;
  if (typeof v['Ref'] === 'string') {
    const name = v['Ref'] as string;
    if (template['Resources']?.[name]) return `${stack}#${name}`;
    if (template['Parameters']?.[name]) {
      const parent = t.parentOf.get(stack);
      if (!parent) return undefined;
      const given = t.byStack.get(parent.parent)!['Resources'][parent.logicalId]['Properties']['Parameters'][name];
      return resolve(t, parent.parent, given);
    }
    return undefined;
  }
  const getAtt = v['Fn::GetAtt'] as [string, string] | undefined;
  if (getAtt) {
    const [id, attribute] = getAtt;
    const nested = t.nestedAt.get(`${stack}#${id}`);
    if (nested && attribute.startsWith('Outputs.')) return resolve(t, nested, t.byStack.get(nested)!['Outputs'][attribute.slice('Outputs.'.length)]['Value']);
    return template['Resources']?.[id] ? `${stack}#${id}` : undefined;
  }
  return undefined;
}

interface AlarmFacts {
  stack: string;
  id: string;
  alarm: Json;
  /** Each metric of the alarm (its own, or those of its math): name and the resources its dimensions name. */
  metrics: Array<{ name: string; namespace: string; resources: ResourceRef[] }>;
}

function alarmsOf(t: Templates): AlarmFacts[] {
  const facts: AlarmFacts[] = [];
  for (const [stack, template] of t.byStack) {
    for (const [id, resource] of Object.entries<Json>(template['Resources'] ?? {})) {
      if (resource['Type'] !== 'AWS::CloudWatch::Alarm') continue;
      const p = resource['Properties'];
      const single = p['MetricName'] ? [{ MetricName: p['MetricName'], Namespace: p['Namespace'], Dimensions: p['Dimensions'] ?? [] }] : [];
      const fromMath = (p['Metrics'] ?? []).flatMap((m: Json) => (m['MetricStat'] ? [m['MetricStat']['Metric']] : []));
      const metrics = [...single, ...fromMath].map((m: Json) => ({
        name: m['MetricName'],
        namespace: m['Namespace'],
        resources: (m['Dimensions'] ?? []).map((d: Json) => resolve(t, stack, d['Value'])).filter(Boolean),
      }));
      facts.push({ stack, id, alarm: p, metrics });
    }
  }
  return facts;
}

/** The name the alarm was given; the load balancer's scaling alarms have none. */
const nameOf = (a: AlarmFacts): string => (typeof a.alarm['AlarmName'] === 'string' ? a.alarm['AlarmName'] : '');

/** Resources of a type in every template. */
function resourcesOf(t: Templates, type: string): Array<{ ref: ResourceRef; resource: Json }> {
  return [...t.byStack].flatMap(([stack, template]) =>
    Object.entries<Json>(template['Resources'] ?? {})
      .filter(([, r]) => r['Type'] === type)
      .map(([id, resource]) => ({ ref: `${stack}#${id}` as ResourceRef, resource })),
  );
}

/** Queues failed work is parked in: a redrive target of another queue, or a stream source's on-failure destination. */
function deadLetterQueuesOf(t: Templates): Set<ResourceRef> {
  const found = new Set<ResourceRef>();
  for (const [stack, template] of t.byStack) {
    for (const resource of Object.values<Json>(template['Resources'] ?? {})) {
      const target = resource['Type'] === 'AWS::SQS::Queue' ? resource['Properties']?.['RedrivePolicy']?.['deadLetterTargetArn'] : resource['Type'] === 'AWS::Lambda::EventSourceMapping' ? resource['Properties']?.['DestinationConfig']?.['OnFailure']?.['Destination'] : undefined;
      const ref = resolve(t, stack, target);
      if (ref) found.add(ref);
    }
  }
  return found;
}

/**
 * What is missing: for each function, queue, dead-letter queue, state machine and target group in
 * the templates, the alarm metrics it must be named in. Read from the templates alone, so it holds
 * whatever code made them.
 */
function missingAlarms(t: Templates, alarms: AlarmFacts[]): string[] {
  const covered = (ref: ResourceRef, namespace: string, names: string[]) =>
    alarms.some((a) => names.every((name) => a.metrics.some((m) => m.namespace === namespace && m.name === name && m.resources.includes(ref))));
  const missing: string[] = [];
  const need = (ref: ResourceRef, what: string, namespace: string, names: string[]) => {
    if (!covered(ref, namespace, names)) missing.push(`${ref} (${what}): no alarm on ${names.join(' + ')}`);
  };
  for (const { ref } of resourcesOf(t, 'AWS::Lambda::Function')) {
    need(ref, 'function', 'AWS/Lambda', ['Errors']);
    need(ref, 'function', 'AWS/Lambda', ['Throttles']);
  }
  const deadLetters = deadLetterQueuesOf(t);
  for (const { ref } of resourcesOf(t, 'AWS::SQS::Queue')) {
    if (deadLetters.has(ref)) need(ref, 'dead-letter queue', 'AWS/SQS', ['ApproximateNumberOfMessagesVisible']);
    else need(ref, 'queue', 'AWS/SQS', ['ApproximateAgeOfOldestMessage']);
  }
  for (const { ref } of resourcesOf(t, 'AWS::StepFunctions::StateMachine')) need(ref, 'state machine', 'AWS/States', ['ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted']);
  for (const { ref } of resourcesOf(t, 'AWS::ElasticLoadBalancingV2::TargetGroup')) need(ref, 'target group', 'AWS/NetworkELB', ['UnHealthyHostCount']);
  return missing;
}

const SMTP = {
  hostname: 'smtp.example.com',
  certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0f0e0d0c-0b0a-0908-0706-050403020100',
  tlsSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:mailplane-smtp-tls-AbCdEf',
};

const runbook = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
/** GitHub's anchor of each heading of the runbook. */
const anchors = new Set([...runbook.matchAll(/^#+\s+(.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')));

describe.each([
  ['us with SMTP on (its largest shape)', () => synthPlatform('us', { smtp: SMTP })],
  ['eu', () => synthPlatform('eu')],
])('alarms of the %s stack', (_name, synth) => {
  let stack: PlatformStack;
  let t: Templates;
  let alarms: AlarmFacts[];
  beforeAll(() => {
    stack = synth().stack;
    t = templatesOf(stack);
    alarms = alarmsOf(t);
  }, 180_000);

  test('every function, queue, dead-letter queue, state machine and SMTP target group in the templates (nested stacks included) has its alarms', () => {
    expect(resourcesOf(t, 'AWS::Lambda::Function').length).toBeGreaterThan(50);
    expect(resourcesOf(t, 'AWS::StepFunctions::StateMachine').length).toBeGreaterThanOrEqual(6);
    expect(missingAlarms(t, alarms)).toEqual([]);
  });

  test('the check is live: without one alarm, the part it watched is reported', () => {
    const sendWorker = alarms.find((a) => nameOf(a).endsWith('SendingWorkers/SendWorker errors'))!;
    expect(sendWorker).toBeDefined();
    const missing = missingAlarms(t, alarms.filter((a) => a !== sendWorker));
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatch(/\(function\): no alarm on Errors$/);
  });

  test('every alarm notifies the region topic when it fires and when it clears, and names its runbook section', () => {
    const topics = resourcesOf(t, 'AWS::SNS::Topic').filter(({ ref }) => ref.includes('/Alarms#'));
    expect(topics).toHaveLength(1);
    const platformAlarms = alarms.filter((a) => a.stack.endsWith('/Alarms'));
    expect(platformAlarms.length).toBeGreaterThan(120);
    for (const { alarm, stack: where } of platformAlarms) {
      expect(alarm['AlarmActions']).toHaveLength(1);
      expect(resolve(t, where, alarm['AlarmActions'][0])).toBe(topics[0]!.ref);
      expect(alarm['OKActions']).toEqual(alarm['AlarmActions']);
      const description = alarm['AlarmDescription'] as string;
      expect(description.length).toBeLessThanOrEqual(1024);
      const section = /Runbook: docs\/operations\.md#([a-z0-9-]+)$/.exec(description)?.[1];
      expect(section && anchors.has(section) ? section : description).toBe(section);
    }
  });

  test('the send queue alarms when accepted mail waits longer than a throttled retry may delay it', () => {
    const alarm = alarms.find((a) => nameOf(a).endsWith('Sending/SendQueue oldest message'))!;
    const visibilityTimeoutSeconds = (stack.sending.sendQueue.queue.node.defaultChild as sqs.CfnQueue).visibilityTimeout as number;
    expect(alarm.alarm['Threshold']).toBe(maxHealthyAgeSeconds({ visibilityTimeoutSeconds }));
    expect(alarm.alarm['Threshold']).toBeGreaterThan(SQS_MAX_DELAY_SECONDS);
  });

  test('the HTTP APIs (5xx rate, p99 latency), the table (throttles, system errors) and SES reputation (4% and 0.08%) have alarms', () => {
    const byName = (suffix: string) => alarms.find((a) => nameOf(a).endsWith(suffix))?.alarm;
    for (const api of ['API', 'Tracking API']) {
      expect(byName(`${api} 5xx rate`)?.['Metrics'].map((m: Json) => m['MetricStat']?.['Metric']['MetricName']).filter(Boolean).sort()).toEqual(['5xx', 'Count']);
      expect(byName(`${api} p99 latency`)).toMatchObject({ MetricName: 'Latency', ExtendedStatistic: 'p99', Threshold: 5000 });
    }
    expect(byName('table throttled requests')?.['Metrics'].some((m: Json) => m['MetricStat']?.['Metric']['MetricName'] === 'ThrottledRequests')).toBe(true);
    expect(byName('table system errors')?.['Metrics'].some((m: Json) => m['MetricStat']?.['Metric']['MetricName'] === 'SystemErrors')).toBe(true);
    expect(byName('SES bounce rate')).toMatchObject({ Namespace: 'AWS/SES', MetricName: 'Reputation.BounceRate', Threshold: 0.04, ComparisonOperator: 'GreaterThanThreshold' });
    expect(byName('SES complaint rate')).toMatchObject({ Namespace: 'AWS/SES', MetricName: 'Reputation.ComplaintRate', Threshold: 0.0008 });
    expect(byName('EventStream/Worker iterator age')).toMatchObject({ MetricName: 'IteratorAge' });
  });

  test("the reputation guard's gauges tell the operator: subaccounts paused, the primary account above a pause level, accounts above a warning level", () => {
    const region = stack.stackName.endsWith('-us') ? 'us' : 'eu';
    for (const [name, metric] of [
      ['reputation guard: subaccounts paused', 'PausedSubaccounts'],
      ['reputation guard: primary account above pause level', 'PrimaryAbovePause'],
      ['reputation guard: accounts above warning level', 'AccountsAboveWarning'],
    ]) {
      const alarm = alarms.find((a) => nameOf(a).endsWith(name!))?.alarm;
      expect(alarm).toMatchObject({ Namespace: 'Mailplane/ReputationGuard', MetricName: metric, Dimensions: [{ Name: 'PlatformRegion', Value: region }], Threshold: 1 });
      expect(alarm!['AlarmDescription']).toMatch(/Runbook: docs\/operations\.md#reputation-guard$/);
    }
  });

  test('a dashboard named for the region shows mail, reputation, queues, Lambdas per part, APIs and workflows', () => {
    const dashboards = resourcesOf(t, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const { resource } = dashboards[0]!;
    expect(resource['Properties']['DashboardName']).toBe(`${stack.stackName}-operations`);
    const body = JSON.stringify(resource['Properties']['DashboardBody']);
    for (const title of ['Mail: accepted and delivered', 'SES reputation (%)', 'Reputation guard (accounts)', 'Queue depth', 'Queue age', 'Dead-letter queues', 'API: latency (ms)', 'SendingWorkers: Lambda errors and throttles', 'SendingWorkers: Lambda duration p99 (ms)', 'Workflow Scheduling/ScheduledDelivery', 'Alarms 1-']) {
      expect(body).toContain(title);
    }
  });

  test("the alarms add one resource to the region's stack (their nested stack), which stays below CloudFormation's 500; the alarms' stack stays below 200 parameters", () => {
    const root = t.byStack.get(stack.node.path)!['Resources'] as Record<string, { Type: string }>;
    expect(Object.keys(root).filter((id) => id.startsWith('Alarms'))).toEqual([expect.stringMatching(/^AlarmsNestedStack/)]);
    expect(Object.keys(root).length).toBeLessThan(500);
    const alarmsStack = [...t.byStack].find(([p]) => p.endsWith('/Alarms'))![1];
    expect(Object.keys(alarmsStack['Parameters']).length).toBeLessThan(200);
    expect(Object.keys(alarmsStack['Resources']).length).toBeLessThan(500);
  });
});

describe('alarm settings', () => {
  test('alarmEmail subscribes an address; alarmTopicArn uses an existing topic, which must be in the region; levels are settable below SES review rates', () => {
    const { stack } = synthPlatform('us', { alarms: { email: 'ops@example.com', bounceRatePercent: 3, complaintRatePercent: 0.05 } });
    const alarmsTemplate = Template.fromStack(stack.alarms);
    alarmsTemplate.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    alarmsTemplate.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } });
    alarmsTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Reputation.BounceRate', Threshold: 0.03 });
    alarmsTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Reputation.ComplaintRate', Threshold: 0.0005 });

    const existing = 'arn:aws:sns:us-east-1:123456789012:ops-alarms';
    const withTopic = Template.fromStack(synthPlatform('us', { alarms: { topicArn: existing } }).stack.alarms);
    withTopic.resourceCountIs('AWS::SNS::Topic', 0);
    withTopic.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Reputation.BounceRate', AlarmActions: [existing] });
  }, 180_000);

  test('context: alarmTopicArn goes to the stack of its region, alarmTopicArn<Us|Eu> per region; bad values are refused', () => {
    const context = (values: Record<string, unknown>) => (key: string) => values[key];
    const [us, eu] = platformStackConfigs(context({ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops', alarmEmail: 'ops@example.com', bounceRateAlarmPercent: '3.5' }));
    expect(us!.props.alarms).toMatchObject({ topicArn: undefined, email: 'ops@example.com', bounceRatePercent: 3.5 });
    expect(eu!.props.alarms).toMatchObject({ topicArn: 'arn:aws:sns:eu-west-1:123456789012:ops', email: 'ops@example.com' });
    const [us2] = platformStackConfigs(context({ alarmTopicArnUs: 'arn:aws:sns:us-east-1:123456789012:us-ops' }));
    expect(us2!.props.alarms?.topicArn).toBe('arn:aws:sns:us-east-1:123456789012:us-ops');
    expect(() => platformStackConfigs(context({ alarmTopicArn: 'arn:aws:sns:ap-south-1:123456789012:ops' }))).toThrow(/ap-south-1, where no stack/);
    expect(() => platformStackConfigs(context({ alarmTopicArn: 'ops' }))).toThrow(/Not an SNS topic ARN/);
    expect(() => platformStackConfigs(context({ alarmEmail: 'ops' }))).toThrow(/alarmEmail/);
    expect(() => platformStackConfigs(context({ complaintRateAlarmPercent: 'lots' }))).toThrow(/complaintRateAlarmPercent/);
  });

  test('an alarm level at or above SES review rate, or a topic of another region, is refused at synth', () => {
    expect(() => synthPlatform('us', { alarms: { bounceRatePercent: 5 } })).toThrow(/below SES's review level of 5%/);
    expect(() => synthPlatform('us', { alarms: { complaintRatePercent: 0.1 } })).toThrow(/below SES's review level of 0.1%/);
    expect(() => synthPlatform('us', { alarms: { topicArn: 'arn:aws:sns:eu-west-1:123456789012:ops' } })).toThrow(/must be in the stack's region \(us-east-1\)/);
  }, 180_000);
});
