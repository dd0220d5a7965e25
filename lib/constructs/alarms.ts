import { Aws, Duration, NestedStack, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { REPUTATION_METRICS } from '../../functions/reputation/metrics';
import type { PlatformRegion } from '../regions';
import { OperationsDashboard } from './dashboard';
import { type MovingParts, movingPartsOf, type WatchedFunction, type WatchedQueue, type WatchedStateMachine, type WatchedTargetGroup } from './moving-parts';

/** Where the runbook lives; each alarm's description names its section. */
const RUNBOOK = 'docs/operations.md';

/** AWS puts an account's sending under review at these rates (percent); the alarms must fire before. */
const SES_REVIEW_RATES = { bounce: 5, complaint: 0.1 } as const;

/** The alarms' levels that an operator may set (`-c bounceRateAlarm=3` and the like, lib/app-config.ts). */
export interface AlarmSettings {
  /** Subscribes this address to the region's alarm topic (it must confirm the subscription). */
  email?: string;
  /** An existing SNS topic in the stack's region to notify instead of one the stack makes. */
  topicArn?: string;
  /** SES Reputation.BounceRate above which the account is told, in percent: 4 unless set, below SES's 5. */
  bounceRatePercent?: number;
  /** SES Reputation.ComplaintRate above which the account is told, in percent: 0.08 unless set, below SES's 0.1. */
  complaintRatePercent?: number;
  /** The HTTP API's p99 latency (ms) that, held for 15 minutes, raises an alarm: 5000 unless set. */
  apiP99LatencyMs?: number;
}

const DEFAULT_ALARM_LEVELS = { bounceRatePercent: 4, complaintRatePercent: 0.08, apiP99LatencyMs: 5000 } as const;

/**
 * The longest a job may wait in a queue while all is well: the longest delay a retry is queued
 * with (SQS's maximum, which the send, list, webhook and alert workers use for their back-offs)
 * plus one visibility timeout (a batch being worked on, or coming back after a worker's crash).
 */
export const SQS_MAX_DELAY_SECONDS = 900;
export const maxHealthyAgeSeconds = (queue: Pick<WatchedQueue, 'visibilityTimeoutSeconds'>) => SQS_MAX_DELAY_SECONDS + queue.visibilityTimeoutSeconds;

/** Below this many requests in five minutes the 5xx rate is not judged (one fault in three requests is not a rate). */
const MIN_REQUESTS_FOR_ERROR_RATE = 20;
/** The share of 5xx answers (percent) that, in two five-minute periods running, raises the alarm. */
const API_5XX_RATE_PERCENT = 1;
/** How far behind (ms) the table stream's consumer may fall before analytics and webhooks are noticeably late. */
const STREAM_ITERATOR_AGE_MS = 5 * 60_000;

export interface AlarmsProps {
  platformRegion: PlatformRegion;
  settings?: AlarmSettings;
  /** The region's HTTP APIs, by the name the alarms give them. */
  httpApis: Record<string, apigw.HttpApi>;
  table: dynamodb.ITable;
  /** The send queue, whose age alarm says what holds mail back. */
  sendQueue: WatchedQueue['queue'];
  /** Functions reading the table's stream: their iterator age says how late events reach analytics and webhooks. */
  streamConsumers: Record<string, WatchedFunction['name']>;
}

const TOPIC_ARN = /^arn:aws[a-z-]*:sns:([a-z0-9-]+):\d{12}:[A-Za-z0-9_-]{1,256}$/;

/** The region of an SNS topic's ARN; throws on anything else. */
export function topicRegion(arn: string): string {
  const match = TOPIC_ARN.exec(arn);
  if (!match) throw new Error(`Not an SNS topic ARN: ${arn}`);
  return match[1]!;
}

function percentSetting(given: number | undefined, fallback: number, review: number, what: string): number {
  const value = given ?? fallback;
  if (!(Number.isFinite(value) && value > 0 && value < review)) {
    throw new Error(`The ${what} alarm level must be a percentage above 0 and below SES's review level of ${review}%; got ${given}`);
  }
  return value;
}

/**
 * The region's alarms, its alarm topic and its dashboard, in a nested stack of their own: the
 * region's stack is near CloudFormation's 500 resources, and alarms are many (two per function).
 * Every function, queue and state machine found in the region (moving-parts.ts) gets its alarms
 * here; so do the HTTP APIs, the table, SES's reputation and, when deployed, SMTP's targets. Each
 * alarm's description is its runbook line, naming the section of docs/operations.md to read.
 */
export class Alarms extends NestedStack {
  readonly topic: sns.ITopic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: OperationsDashboard;
  readonly parts: MovingParts;
  private readonly regionStack: Stack;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id, { description: 'Mailplane operations: alarms, their topic and the dashboard' });
    this.regionStack = Stack.of(scope);
    const settings = props.settings ?? {};
    this.topic = this.alarmTopic(settings);
    this.parts = movingPartsOf(this.regionStack);

    for (const fn of this.parts.functions) this.functionAlarms(fn);
    for (const queue of this.parts.queues) this.queueAlarm(queue, queue.queue === props.sendQueue);
    for (const machine of this.parts.stateMachines) this.stateMachineAlarm(machine);
    for (const target of this.parts.targetGroups) this.targetGroupAlarms(target);
    for (const [name, api] of Object.entries(props.httpApis)) this.apiAlarms(name, api, settings);
    for (const [label, functionName] of Object.entries(props.streamConsumers)) this.streamAlarm(label, functionName);
    this.tableAlarms(props.table);
    this.reputationAlarms(settings);
    const guardMetrics = reputationGuardMetrics(props.platformRegion);
    this.reputationGuardAlarms(guardMetrics);

    this.dashboard = new OperationsDashboard(this, 'Dashboard', {
      name: `${this.regionStack.stackName}-operations`,
      parts: this.parts,
      httpApis: props.httpApis,
      table: props.table,
      sendQueue: props.sendQueue,
      levels: {
        bounceRatePercent: settings.bounceRatePercent ?? DEFAULT_ALARM_LEVELS.bounceRatePercent,
        complaintRatePercent: settings.complaintRatePercent ?? DEFAULT_ALARM_LEVELS.complaintRatePercent,
      },
      alarms: this.alarms,
      reputationGuard: guardMetrics,
    });
  }

  /**
   * The topic every alarm notifies (and tells when it is OK again): the operator's own, or one
   * made here, encrypted with a key CloudWatch may use for this account's alarms only.
   */
  private alarmTopic(settings: AlarmSettings): sns.ITopic {
    let topic: sns.ITopic;
    if (settings.topicArn) {
      const region = topicRegion(settings.topicArn);
      if (!Token.isUnresolved(this.regionStack.region) && region !== this.regionStack.region) {
        throw new Error(`The alarm topic ${settings.topicArn} must be in the stack's region (${this.regionStack.region}): CloudWatch notifies topics of its own region only`);
      }
      topic = sns.Topic.fromTopicArn(this, 'Topic', settings.topicArn);
    } else {
      const key = new kms.Key(this, 'TopicKey', {
        description: `Encrypts the alarm topic of ${this.regionStack.stackName}`,
        enableKeyRotation: true,
        // Nothing stays encrypted under it once the topic is gone (SNS keeps no messages).
        removalPolicy: RemovalPolicy.DESTROY,
        pendingWindow: Duration.days(7),
      });
      const alarmsOfThisAccount = { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID }, ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` } };
      key.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'CloudWatchAlarmsPublish',
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
          resources: ['*'],
          conditions: alarmsOfThisAccount,
        }),
      );
      const made = new sns.Topic(this, 'Topic', { displayName: `Mailplane alarms (${this.regionStack.stackName})`, masterKey: key, enforceSSL: true });
      // enforceSSL writes a topic policy, which replaces the default one: CloudWatch is named in it.
      made.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'CloudWatchAlarmsPublish',
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [made.topicArn],
          conditions: alarmsOfThisAccount,
        }),
      );
      topic = made;
    }
    if (settings.email) topic.addSubscription(new subscriptions.EmailSubscription(settings.email));
    return topic;
  }

  private alarm(id: string, props: Omit<cloudwatch.CreateAlarmOptions, 'alarmDescription' | 'alarmName'> & { metric: cloudwatch.IMetric; name: string; runbook: string; section: string }): cloudwatch.Alarm {
    const { metric, name, runbook, section, ...options } = props;
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      ...options,
      alarmName: `${this.regionStack.stackName} ${name}`,
      alarmDescription: `${runbook} Runbook: ${RUNBOOK}#${section}`,
    });
    const action = new SnsAction(this.topic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    this.alarms.push(alarm);
    return alarm;
  }

  private functionAlarms(fn: WatchedFunction): void {
    const metric = (metricName: string) => new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName, dimensionsMap: { FunctionName: fn.name }, statistic: 'Sum', period: Duration.minutes(5) });
    const what = `Lambda ${fn.label}${fn.description ? ` (${fn.description})` : ''}`;
    this.alarm(`${idOf(fn.label)}-Errors`, {
      name: `${fn.label} errors`,
      metric: metric('Errors'),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      runbook: `${what} failed invocations in the last 5 minutes: a fault of ours or of AWS (a client's mistake is a 4xx answer, not an error).`,
      section: 'lambda-errors',
    });
    this.alarm(`${idOf(fn.label)}-Throttles`, {
      name: `${fn.label} throttles`,
      metric: metric('Throttles'),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      runbook: `${what} was throttled in the last 5 minutes: the account's Lambda concurrency is used up.`,
      section: 'lambda-throttles',
    });
  }

  private queueAlarm(queue: WatchedQueue, isSendQueue: boolean): void {
    if (queue.deadLetter) {
      // In flight counts too: a dead-letter queue with a consumer (the send and list ones) takes
      // its messages at once, and a message being handled there still failed all its tries.
      const held = new cloudwatch.MathExpression({
        expression: 'visible + inFlight',
        usingMetrics: { visible: queue.queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' }), inFlight: queue.queue.metricApproximateNumberOfMessagesNotVisible({ statistic: 'Maximum' }) },
        period: Duration.minutes(5),
        label: `${queue.label} messages`,
      });
      this.alarm(`${idOf(queue.label)}-NotEmpty`, {
        name: `${queue.label} not empty`,
        metric: held,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        runbook: `Dead-letter queue ${queue.label} holds work that failed every try.`,
        section: 'dead-letter-queues',
      });
      return;
    }
    const maxAge = maxHealthyAgeSeconds(queue);
    this.alarm(`${idOf(queue.label)}-OldestMessage`, {
      name: `${queue.label} oldest message`,
      metric: queue.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: Duration.minutes(5) }),
      threshold: maxAge,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      runbook: isSendQueue
        ? `Accepted mail waits on the send queue longer than a throttled retry's longest delay plus one visibility timeout (${maxAge} s): the send worker is failing, or sendConcurrency or the SES send quota is too low for the load.`
        : `Work waits on ${queue.label} longer than a retry's longest delay plus one visibility timeout (${maxAge} s): its worker is failing or cannot keep up.`,
      section: isSendQueue ? 'send-queue-age' : 'queue-age',
    });
  }

  private stateMachineAlarm(machine: WatchedStateMachine): void {
    const metric = (metricName: string) => new cloudwatch.Metric({ namespace: 'AWS/States', metricName, dimensionsMap: { StateMachineArn: machine.arn }, statistic: 'Sum', period: Duration.minutes(5) });
    this.alarm(`${idOf(machine.label)}-Unsuccessful`, {
      name: `${machine.label} failed, timed out or aborted`,
      metric: new cloudwatch.MathExpression({
        expression: 'failed + timedOut + aborted',
        usingMetrics: { failed: metric('ExecutionsFailed'), timedOut: metric('ExecutionsTimedOut'), aborted: metric('ExecutionsAborted') },
        period: Duration.minutes(5),
        label: `${machine.label} unsuccessful executions`,
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      runbook: `Workflow ${machine.label} had executions that failed, timed out or were aborted in the last 5 minutes.`,
      section: 'workflows',
    });
  }

  private targetGroupAlarms(target: WatchedTargetGroup): void {
    this.alarm(`${idOf(target.label)}-Unhealthy`, {
      name: `${target.label} unhealthy targets`,
      metric: target.targetGroup.metrics.unHealthyHostCount({ statistic: 'Maximum', period: Duration.minutes(1) }),
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      runbook: `SMTP submission: tasks behind ${target.label} have failed the load balancer's health check for 3 minutes.`,
      section: 'smtp-targets',
    });
  }

  private apiAlarms(name: string, api: apigw.HttpApi, settings: AlarmSettings): void {
    const period = Duration.minutes(5);
    this.alarm(`${idOf(name)}-5xxRate`, {
      name: `${name} 5xx rate`,
      metric: new cloudwatch.MathExpression({
        expression: `IF(requests >= ${MIN_REQUESTS_FOR_ERROR_RATE}, 100 * errors / requests, 0)`,
        usingMetrics: { errors: api.metricServerError({ statistic: 'Sum', period }), requests: api.metricCount({ statistic: 'Sum', period }) },
        period,
        label: `${name} 5xx (% of requests)`,
      }),
      threshold: API_5XX_RATE_PERCENT,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      runbook: `More than ${API_5XX_RATE_PERCENT}% of the ${name}'s answers were 5xx for 10 minutes (judged from ${MIN_REQUESTS_FOR_ERROR_RATE} requests in 5 minutes).`,
      section: 'api-5xx',
    });
    const p99 = settings.apiP99LatencyMs ?? DEFAULT_ALARM_LEVELS.apiP99LatencyMs;
    this.alarm(`${idOf(name)}-Latency`, {
      name: `${name} p99 latency`,
      metric: api.metricLatency({ statistic: 'p99', period }),
      threshold: p99,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      runbook: `The ${name}'s p99 latency has been above ${p99} ms for 15 minutes.`,
      section: 'api-latency',
    });
  }

  private streamAlarm(label: string, functionName: string): void {
    this.alarm(`${idOf(label)}-IteratorAge`, {
      name: `${label} iterator age`,
      metric: new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName: 'IteratorAge', dimensionsMap: { FunctionName: functionName }, statistic: 'Maximum', period: Duration.minutes(5) }),
      threshold: STREAM_ITERATOR_AGE_MS,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      runbook: `${label} reads the table's stream more than ${STREAM_ITERATOR_AGE_MS / 60_000} minutes behind for 15 minutes: analytics, tags and webhooks are late.`,
      section: 'event-stream',
    });
  }

  private tableAlarms(table: dynamodb.ITable): void {
    const operations = TABLE_OPERATIONS;
    this.alarm('Table-Throttles', {
      name: 'table throttled requests',
      metric: table.metricThrottledRequestsForOperations({ operations, period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      runbook: 'DynamoDB has throttled requests to the table for 15 minutes running (the SDK retries them; sustained, a partition or item is hot).',
      section: 'table-throttles',
    });
    this.alarm('Table-SystemErrors', {
      name: 'table system errors',
      metric: table.metricSystemErrorsForOperations({ operations, period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      runbook: 'DynamoDB answered requests to the table with 500s (its own faults) in the last 5 minutes.',
      section: 'table-errors',
    });
  }

  /** The reputation guard tells the operator (the primary account) what it did and what it cannot do. */
  private reputationGuardAlarms(metrics: ReturnType<typeof reputationGuardMetrics>): void {
    const common = { threshold: 1, evaluationPeriods: 1, comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, section: 'reputation-guard' };
    this.alarm('ReputationGuard-Paused', {
      ...common,
      name: 'reputation guard: subaccounts paused',
      metric: metrics.paused,
      runbook: 'The reputation guard has turned off the sending of one or more subaccounts, whose bounce or complaint rate passed the pause level; it stays off until the parent turns it back on.',
    });
    this.alarm('ReputationGuard-PrimaryAbovePause', {
      ...common,
      name: 'reputation guard: primary account above pause level',
      metric: metrics.primaryAbovePause,
      runbook: "The primary account's own bounce or complaint rate is above the guard's pause level; the guard cannot pause the primary account.",
    });
    this.alarm('ReputationGuard-AboveWarning', {
      ...common,
      name: 'reputation guard: accounts above warning level',
      metric: metrics.aboveWarning,
      runbook: "One or more accounts' bounce or complaint rate is above the guard's warning level (each was alerted through its alert settings).",
    });
  }

  private reputationAlarms(settings: AlarmSettings): void {
    const bounce = percentSetting(settings.bounceRatePercent, DEFAULT_ALARM_LEVELS.bounceRatePercent, SES_REVIEW_RATES.bounce, 'bounce rate');
    const complaint = percentSetting(settings.complaintRatePercent, DEFAULT_ALARM_LEVELS.complaintRatePercent, SES_REVIEW_RATES.complaint, 'complaint rate');
    const ses = (metricName: string) => new cloudwatch.Metric({ namespace: 'AWS/SES', metricName, statistic: 'Maximum', period: Duration.hours(1) });
    this.alarm('Ses-BounceRate', {
      name: 'SES bounce rate',
      metric: ses('Reputation.BounceRate'),
      // SES reports the rate as a fraction.
      threshold: bounce / 100,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      runbook: `The SES account's bounce rate is above ${bounce}%; at ${SES_REVIEW_RATES.bounce}% AWS reviews the account, and may pause sending for every account of the platform.`,
      section: 'ses-reputation',
    });
    this.alarm('Ses-ComplaintRate', {
      name: 'SES complaint rate',
      metric: ses('Reputation.ComplaintRate'),
      threshold: complaint / 100,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      runbook: `The SES account's complaint rate is above ${complaint}%; at ${SES_REVIEW_RATES.complaint}% AWS reviews the account, and may pause sending for every account of the platform.`,
      section: 'ses-reputation',
    });
  }
}

/** The reputation guard's region gauges (functions/reputation/sweep.ts writes them only when one is not zero). */
function reputationGuardMetrics(platformRegion: PlatformRegion) {
  const metric = (metricName: string) =>
    new cloudwatch.Metric({ namespace: REPUTATION_METRICS.namespace, metricName, dimensionsMap: { PlatformRegion: platformRegion }, statistic: 'Maximum', period: Duration.minutes(15) });
  return { paused: metric(REPUTATION_METRICS.paused), aboveWarning: metric(REPUTATION_METRICS.aboveWarning), primaryAbovePause: metric(REPUTATION_METRICS.primaryAbovePause) };
}

/** The table operations the platform makes (functions/data): a CloudWatch alarm's math takes at most 10 metrics. */
const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
];

/** A construct id from a label (`SendingWorkers/SendWorker` -> `SendingWorkers-SendWorker`). */
const idOf = (label: string) => label.replace(/[^A-Za-z0-9-]/g, '-');
