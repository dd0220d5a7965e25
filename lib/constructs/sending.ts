import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { PlatformRegion } from '../regions';
import { queueWorker } from '../../functions/workers';
import { type AreaResources, configurationSetArn, ipConfigurationSetArns, grantAbandonUnsent, grantNotificationsWorker, grantSendWorker } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import type { QueueWithDlq } from './queue';
import { workerOf, workerQueue, workerTimeout } from './queue-worker';

const SEND = queueWorker('send');
const SEND_DEAD_LETTERS = queueWorker('send-dead-letters');
const NOTIFICATIONS = queueWorker('ses-notifications');

/**
 * The send worker's timeout (functions/workers.ts, from functions/delivery/send-timing.ts): the
 * send queue's visibility timeout is six times it, so a claim is always dead by the time its job
 * can be redelivered. A batch is up to 10 jobs handled one after another; the worker hands back
 * what it cannot send before the timeout, so nothing is cut off mid-call.
 */
export const SEND_WORKER_TIMEOUT = workerTimeout(SEND);
/** The send dead-letter consumer's timeout. */
export const SEND_DEAD_LETTER_WORKER_TIMEOUT = workerTimeout(SEND_DEAD_LETTERS);
/** The notifications worker's timeout. */
export const NOTIFICATIONS_WORKER_TIMEOUT = workerTimeout(NOTIFICATIONS);
/** The SQS event source's maxConcurrency bound: Lambda accepts 2 to 1000. */
const SEND_CONCURRENCY_RANGE = { min: 2, max: 1000 } as const;

/** The SES events that become Mailgun events (functions/delivery/ses-notifications.ts reads these). */
const NOTIFIED_EVENTS = [
  ses.EmailSendingEvent.DELIVERY,
  ses.EmailSendingEvent.BOUNCE,
  ses.EmailSendingEvent.COMPLAINT,
  ses.EmailSendingEvent.REJECT,
  ses.EmailSendingEvent.DELIVERY_DELAY,
] as const;

export interface SendingProps {
  platformRegion: PlatformRegion;
}

/**
 * The sending pipeline's plumbing, as local mode wires it (lib/local/region-host.ts): the send
 * queue between the messages area and the send worker, and SES's configuration set whose event
 * destination publishes delivery, bounce, complaint, reject and delay events to an SNS topic
 * that the notifications queue subscribes to. The workers come in SendingWorkers, once the
 * platform environment exists (it names this queue and configuration set).
 */
export class Sending extends Construct {
  readonly sendQueue: QueueWithDlq;
  readonly configurationSet: ses.ConfigurationSet;
  /**
   * The same with SES's TLS policy Require, for messages that must go over TLS (o:require-tls, a
   * domain's require_tls): SES sets TLS per configuration set, not per message.
   */
  readonly requireTlsConfigurationSet: ses.ConfigurationSet;
  /** Encrypts the SES events topic; SES may use it only for this configuration set. */
  readonly eventsKey: kms.Key;
  readonly eventsTopic: sns.Topic;
  readonly notificationsQueue: QueueWithDlq;

  constructor(scope: Construct, id: string, props: SendingProps) {
    super(scope, id);

    this.sendQueue = workerQueue(this, 'SendQueue', SEND);

    this.configurationSet = new ses.ConfigurationSet(this, 'ConfigurationSet', {
      configurationSetName: `mailplane-${props.platformRegion}`,
    });
    this.requireTlsConfigurationSet = new ses.ConfigurationSet(this, 'RequireTlsConfigurationSet', {
      configurationSetName: `mailplane-${props.platformRegion}-require-tls`,
      tlsPolicy: ses.ConfigurationSetTlsPolicy.REQUIRE,
    });
    const configurationSets = [this.configurationSet, this.requireTlsConfigurationSet];
    const configurationSetArns = configurationSets.map((set) => configurationSetArn(set));
    // The sets made at run time for each dedicated IP (functions/sending-ips) publish here too.
    const dedicatedIpSetArns = ipConfigurationSetArns(configurationSets);

    // A customer managed key, not the AWS managed alias/aws/sns: SES publishes to an encrypted
    // topic only if the key policy lets ses.amazonaws.com use the key, and an AWS managed key's
    // policy cannot be changed. SNS decrypts before delivering to the queue (SSE-SQS), so the
    // queue and the worker need nothing of this key.
    this.eventsKey = new kms.Key(this, 'EventsKey', {
      description: 'Encrypts the SES sending-events topic of this region',
      enableKeyRotation: true,
      // Nothing stays encrypted under it once the topic is gone (SNS keeps no messages).
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    this.eventsKey.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'SesPublishesSendingEvents',
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
        // Only on behalf of this account's configuration set (the confused-deputy guard the
        // topic policy has too).
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID }, ArnLike: { 'aws:SourceArn': [...configurationSetArns, ...dedicatedIpSetArns] } },
      }),
    );

    this.eventsTopic = new sns.Topic(this, 'EventsTopic', {
      displayName: `Mailplane SES events (${props.platformRegion})`,
      masterKey: this.eventsKey,
      enforceSSL: true,
    });
    // Each also grants ses.amazonaws.com sns:Publish in the topic policy, for its configuration set only.
    configurationSets.forEach((configurationSet, i) => {
      new ses.ConfigurationSetEventDestination(this, i === 0 ? 'EventDestination' : 'RequireTlsEventDestination', {
        configurationSet,
        configurationSetEventDestinationName: 'notifications-queue',
        destination: ses.EventDestination.snsTopic(this.eventsTopic),
        events: [...NOTIFIED_EVENTS],
      });
    });
    this.eventsTopic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'SesPublishesDedicatedIpEvents',
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.eventsTopic.topicArn],
        conditions: { StringEquals: { 'AWS:SourceAccount': Aws.ACCOUNT_ID }, ArnLike: { 'AWS:SourceArn': dedicatedIpSetArns } },
      }),
    );

    this.notificationsQueue = workerQueue(this, 'NotificationsQueue', NOTIFICATIONS);
    // Raw delivery off: the worker reads the SNS envelope (sesEventOf in ses-notifications.ts).
    this.eventsTopic.addSubscription(new subscriptions.SqsSubscription(this.notificationsQueue.queue, { rawMessageDelivery: false }));
  }
}

export interface SendingWorkersProps {
  sending: Sending;
  resources: AreaResources;
  /** The platform environment (functions/platform/env.ts) the workers run with. */
  environment: Record<string, string>;
  /**
   * The most send-worker invocations running at once (the SQS event source's maxConcurrency),
   * which is what bounds the rate of calls to SES. One invocation handles its batch one message
   * after another, one SendEmail call each (a few table calls, an S3 read and the SES call: on
   * the order of 5 messages a second), and SES counts every recipient of a call against the
   * account's maximum send rate (`aws sesv2 get-account`, SendQuota.MaxSendRate: 1/s in the SES
   * sandbox, 14/s for a new production account). So size it as
   *   sendConcurrency ~ MaxSendRate / (5 x average recipients per message):
   * the default (the send row's bound in functions/workers.ts) suits a new production account;
   * raise it as SES raises the quota. Beyond the
   * rate SES throttles, and the worker re-queues throttled sends with a delay, so too high a
   * value costs retries and latency, not mail.
   */
  sendConcurrency?: number;
}

/** The queue workers of the sending pipeline, on the same build as every platform Lambda. */
export class SendingWorkers extends Construct {
  readonly sendWorker: PlatformFunction;
  readonly notificationsWorker: PlatformFunction;
  /** Gives the recipients of a send job the queue gave up on their final failed events. */
  readonly sendDeadLetterWorker: PlatformFunction;

  constructor(scope: Construct, id: string, props: SendingWorkersProps) {
    super(scope, id);
    const { sendConcurrency } = props;
    const { min, max } = SEND_CONCURRENCY_RANGE;
    if (sendConcurrency !== undefined && (!Number.isInteger(sendConcurrency) || sendConcurrency < min || sendConcurrency > max)) {
      throw new Error(`sendConcurrency must be a whole number from ${min} to ${max} (the SQS event source's maxConcurrency); got ${sendConcurrency}`);
    }

    this.sendWorker = workerOf(this, 'SendWorker', SEND, {
      environment: props.environment,
      queue: props.sending.sendQueue.queue,
      grant: (grantee) => grantSendWorker(grantee, props.resources),
      maxConcurrency: sendConcurrency,
    });
    this.sendDeadLetterWorker = workerOf(this, 'SendDeadLetterWorker', SEND_DEAD_LETTERS, {
      environment: props.environment,
      queue: props.sending.sendQueue.deadLetterQueue,
      grant: (grantee) => grantAbandonUnsent(grantee, props.resources),
    });
    this.notificationsWorker = workerOf(this, 'NotificationsWorker', NOTIFICATIONS, {
      environment: props.environment,
      queue: props.sending.notificationsQueue.queue,
      grant: (grantee) => grantNotificationsWorker(grantee, props.resources),
    });
  }
}
