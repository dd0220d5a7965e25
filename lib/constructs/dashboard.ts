import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { MovingParts, WatchedFunction } from './moving-parts';

export interface OperationsDashboardProps {
  name: string;
  parts: MovingParts;
  httpApis: Record<string, apigw.HttpApi>;
  table: dynamodb.ITable;
  sendQueue: sqs.IQueue;
  /** The alarm levels of the SES rates (percent), drawn on their graph. */
  levels: { bounceRatePercent: number; complaintRatePercent: number };
  alarms: cloudwatch.IAlarm[];
  /** The reputation guard's region gauges. */
  reputationGuard: { paused: cloudwatch.Metric; aboveWarning: cloudwatch.Metric; primaryAbovePause: cloudwatch.Metric };
}

const FIVE_MINUTES = Duration.minutes(5);
/** An alarm status widget lists at most 100 alarms. */
const ALARMS_PER_WIDGET = 100;

const lambdaMetric = (fn: WatchedFunction, metricName: string, statistic: string) =>
  new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName, dimensionsMap: { FunctionName: fn.name }, statistic, period: FIVE_MINUTES, label: fn.label.split('/').slice(1).join('/') || fn.label });

const sesMetric = (metricName: string, label: string) => new cloudwatch.Metric({ namespace: 'AWS/SES', metricName, statistic: 'Sum', period: FIVE_MINUTES, label });

/**
 * One region's operations at a glance: mail accepted and delivered, bounce and complaint rates,
 * queues, Lambda errors and duration per part of the platform, API latency, workflow outcomes, the
 * table, and the state of every alarm. Built from the same parts the alarms watch.
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const { parts } = props;
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { dashboardName: props.name, defaultInterval: Duration.hours(6) });

    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: '# Mailplane operations\nEach alarm\'s description names its runbook section in `docs/operations.md`. SES figures are the whole SES account\'s in this region.',
        width: 24,
        height: 2,
      }),
    );

    const mainQueues = parts.queues.filter((q) => !q.deadLetter);
    const deadLetterQueues = parts.queues.filter((q) => q.deadLetter);
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Mail: accepted and delivered',
        left: [
          props.sendQueue.metricNumberOfMessagesSent({ statistic: 'Sum', period: FIVE_MINUTES, label: 'send jobs queued (accepted messages and throttled retries)' }),
          sesMetric('Send', 'recipients handed to SES'),
          sesMetric('Delivery', 'delivered'),
        ],
        right: [sesMetric('Bounce', 'bounced'), sesMetric('Complaint', 'complained'), sesMetric('Reject', 'rejected by SES')],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'SES reputation (%)',
        left: [
          new cloudwatch.MathExpression({ expression: '100 * b', usingMetrics: { b: new cloudwatch.Metric({ namespace: 'AWS/SES', metricName: 'Reputation.BounceRate', statistic: 'Maximum', period: Duration.hours(1) }) }, label: 'bounce rate', period: Duration.hours(1) }),
          new cloudwatch.MathExpression({ expression: '100 * c', usingMetrics: { c: new cloudwatch.Metric({ namespace: 'AWS/SES', metricName: 'Reputation.ComplaintRate', statistic: 'Maximum', period: Duration.hours(1) }) }, label: 'complaint rate', period: Duration.hours(1) }),
        ],
        leftAnnotations: [
          { value: props.levels.bounceRatePercent, label: 'bounce alarm', color: cloudwatch.Color.ORANGE },
          { value: props.levels.complaintRatePercent, label: 'complaint alarm', color: cloudwatch.Color.RED },
        ],
        width: 12,
      }),
    );

    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Reputation guard (accounts)',
        left: [props.reputationGuard.aboveWarning.with({ label: 'above a warning level' }), props.reputationGuard.paused.with({ label: 'subaccounts paused' }), props.reputationGuard.primaryAbovePause.with({ label: 'primary account above a pause level' })],
        width: 24,
      }),
    );

    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({ title: 'Queue depth (visible messages)', left: mainQueues.map((q) => q.queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES, label: q.label })), width: 8 }),
      new cloudwatch.GraphWidget({ title: 'Queue age (oldest message, s)', left: mainQueues.map((q) => q.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: FIVE_MINUTES, label: q.label })), width: 8 }),
      new cloudwatch.GraphWidget({ title: 'Dead-letter queues (messages)', left: deadLetterQueues.map((q) => q.queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES, label: q.label })), width: 8 }),
    );

    for (const [name, api] of Object.entries(props.httpApis)) {
      this.dashboard.addWidgets(
        new cloudwatch.GraphWidget({
          title: `${name}: latency (ms)`,
          left: [api.metricLatency({ statistic: 'p50', period: FIVE_MINUTES, label: 'p50' }), api.metricLatency({ statistic: 'p99', period: FIVE_MINUTES, label: 'p99' })],
          width: 12,
        }),
        new cloudwatch.GraphWidget({
          title: `${name}: requests`,
          left: [api.metricCount({ statistic: 'Sum', period: FIVE_MINUTES, label: 'requests' })],
          right: [api.metricClientError({ statistic: 'Sum', period: FIVE_MINUTES, label: '4xx' }), api.metricServerError({ statistic: 'Sum', period: FIVE_MINUTES, label: '5xx' })],
          width: 12,
        }),
      );
    }

    // Lambda errors and duration per part of the platform (the API's areas, the sending workers, each product ...).
    const groups = new Map<string, WatchedFunction[]>();
    for (const fn of parts.functions) groups.set(fn.group, [...(groups.get(fn.group) ?? []), fn]);
    for (const [group, functions] of groups) {
      this.dashboard.addWidgets(
        new cloudwatch.GraphWidget({ title: `${group}: Lambda errors and throttles`, left: functions.map((fn) => lambdaMetric(fn, 'Errors', 'Sum')), right: functions.map((fn) => lambdaMetric(fn, 'Throttles', 'Sum')), width: 12 }),
        new cloudwatch.GraphWidget({ title: `${group}: Lambda duration p99 (ms)`, left: functions.map((fn) => lambdaMetric(fn, 'Duration', 'p99')), width: 12 }),
      );
    }

    const outcome = (arn: string, metricName: string, label: string) => new cloudwatch.Metric({ namespace: 'AWS/States', metricName, dimensionsMap: { StateMachineArn: arn }, statistic: 'Sum', period: FIVE_MINUTES, label });
    this.dashboard.addWidgets(
      ...parts.stateMachines.map(
        (machine) =>
          new cloudwatch.GraphWidget({
            title: `Workflow ${machine.label}`,
            left: [
              outcome(machine.arn, 'ExecutionsStarted', 'started'),
              outcome(machine.arn, 'ExecutionsSucceeded', 'succeeded'),
              outcome(machine.arn, 'ExecutionsFailed', 'failed'),
              outcome(machine.arn, 'ExecutionsTimedOut', 'timed out'),
              outcome(machine.arn, 'ExecutionsAborted', 'aborted'),
            ],
            width: 8,
          }),
      ),
    );

    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Table: consumed capacity',
        left: [props.table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period: FIVE_MINUTES, label: 'read units' }), props.table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period: FIVE_MINUTES, label: 'write units' })],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Table: throttled requests and system errors',
        left: [
          props.table.metric('ReadThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES, label: 'read throttle events' }),
          props.table.metric('WriteThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES, label: 'write throttle events' }),
        ],
        width: 12,
      }),
    );

    for (let i = 0; i < props.alarms.length; i += ALARMS_PER_WIDGET) {
      this.dashboard.addWidgets(
        new cloudwatch.AlarmStatusWidget({
          title: `Alarms ${i + 1}-${Math.min(i + ALARMS_PER_WIDGET, props.alarms.length)}`,
          alarms: props.alarms.slice(i, i + ALARMS_PER_WIDGET),
          sortBy: cloudwatch.AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
          width: 24,
          height: 8,
        }),
      );
    }
  }
}
