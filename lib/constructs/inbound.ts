import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as actions from 'aws-cdk-lib/aws-ses-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { INBOUND_OBJECT_PREFIX } from '../../functions/inbound/receipt';
import { queueWorker } from '../../functions/workers';
import { type AreaGrantee, type AreaResources, grantMessageObjects, grantSendToQueue, grantTableReadWrite } from './area-permissions';
import type { PlatformFunction } from './platform-function';
import type { QueueWithDlq } from './queue';
import { workerOf, workerQueue } from './queue-worker';

const RECEIVE = queueWorker('inbound');
const ROUTE_ACTIONS = queueWorker('inbound-actions');

/**
 * The AWS regions where SES receives mail (its inbound-smtp.<region>.amazonaws.com endpoints), as
 * SES's endpoint table lists them. Elsewhere the stack builds no receipt rule; `-c inboundReceiving=true`
 * forces one for a region AWS has added since, `false` leaves receiving out anywhere.
 */
export const SES_RECEIVING_REGIONS: readonly string[] = ['us-east-1', 'us-west-2', 'eu-west-1'];

/** The received-mail bucket keeps a message as long as its notification may wait in the dead-letter queue. */
const RAW_RETENTION = Duration.days(14);

export interface InboundProps {
  /** Where the bucket's access logs go (the data stack's). */
  accessLogs: s3.IBucket;
  /**
   * An existing receipt rule set (the account's active one: SES allows one per region) to add the
   * platform's rule to, from `-c inboundRuleSet=<name>`. Absent: the stack makes its own set,
   * which someone must make active (`aws ses set-active-receipt-rule-set`), printed as an output.
   */
  existingRuleSetName?: string;
}

/**
 * SES receiving: a receipt rule stores each message for the account's domains in a bucket of its
 * own (scanning for spam and viruses), and its S3 action's SNS notification, which SES sends only
 * once the object is written, lands on the inbound queue. Why not an S3 event on the bucket: the
 * notification carries the envelope (BCC recipients are in no header) and SES's verdicts, and it
 * arrives after the object exists. Why not SES's Lambda action: SES invokes it asynchronously,
 * with no dead-letter queue of ours and no batching; the queue gives both, and replays. Every step
 * after the queue can repeat (functions/inbound/receive.ts), and both queues have a DLQ.
 */
export class Inbound extends Construct {
  readonly bucket: s3.Bucket;
  readonly topic: sns.Topic;
  readonly queue: QueueWithDlq;
  readonly actionQueue: QueueWithDlq;
  readonly ruleSet: ses.IReceiptRuleSet;
  readonly rule: ses.ReceiptRule;
  receiveWorker?: PlatformFunction;
  actionWorker?: PlatformFunction;

  constructor(scope: Construct, id: string, props: InboundProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'ReceivedMail', {
      // SSE-S3: SES's S3 action writes to it with no key permissions to grant.
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'received-mail/',
      lifecycleRules: [{ expiration: RAW_RETENTION }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const existing = props.existingRuleSetName;
    this.ruleSet = existing ? ses.ReceiptRuleSet.fromReceiptRuleSetName(this, 'RuleSet', existing) : new ses.ReceiptRuleSet(this, 'RuleSet', { receiptRuleSetName: `mailplane-inbound-${Stack.of(this).region}` });
    const ruleName = `mailplane-inbound-${Stack.of(this).region}`;
    const ruleArn = `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:receipt-rule-set/${this.ruleSet.receiptRuleSetName}:receipt-rule/${ruleName}`;

    // As for the sending events topic: a customer managed key SES may use, for this rule only.
    const key = new kms.Key(this, 'TopicKey', { description: 'Encrypts the SES received-mail topic of this region', enableKeyRotation: true, removalPolicy: RemovalPolicy.DESTROY, pendingWindow: Duration.days(7) });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'SesPublishesReceipts',
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID }, ArnLike: { 'aws:SourceArn': ruleArn } },
      }),
    );
    this.topic = new sns.Topic(this, 'Receipts', { displayName: 'Mailplane received mail', masterKey: key, enforceSSL: true });
    // SES publishes the S3 action's notifications on behalf of this rule only (the confused-deputy guard).
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'AWS:SourceAccount': Aws.ACCOUNT_ID }, ArnLike: { 'AWS:SourceArn': ruleArn } },
      }),
    );
    this.queue = workerQueue(this, 'InboundQueue', RECEIVE);
    // Raw delivery off: the worker reads SNS's envelope (receiptOf in functions/inbound/receipt.ts).
    this.topic.addSubscription(new subscriptions.SqsSubscription(this.queue.queue, { rawMessageDelivery: false }));
    this.actionQueue = workerQueue(this, 'RouteActionQueue', ROUTE_ACTIONS);

    // S3Action adds the bucket policy letting ses.amazonaws.com put objects for this account only.
    this.rule = new ses.ReceiptRule(this, 'Rule', {
      ruleSet: this.ruleSet,
      receiptRuleName: ruleName,
      // No recipients: every domain of the AWS account that SES receives for; the worker drops
      // mail for domains the platform does not hold, so a shared rule set loses nothing of yours.
      scanEnabled: true,
      tlsPolicy: ses.TlsPolicy.OPTIONAL,
      actions: [new actions.S3({ bucket: this.bucket, objectKeyPrefix: INBOUND_OBJECT_PREFIX, topic: this.topic })],
    });
    if (!existing) {
      new CfnOutput(this, 'ActivateReceiving', {
        value: `aws ses set-active-receipt-rule-set --region ${Stack.of(this).region} --rule-set-name ${this.ruleSet.receiptRuleSetName}`,
        description: 'SES allows one active receipt rule set per region: run this once (or deploy with -c inboundRuleSet=<your active set> to add the rule to it)',
      });
    }
  }

  /** The two workers, once the platform environment (which names the action queue) exists. */
  /** `previewIntake`: when preview addresses are on, what their mail needs to become preview tests (inspection's). */
  addWorkers(environment: Record<string, string>, resources: AreaResources, previewIntake?: { environment: Record<string, string>; grant: (grantee: AreaGrantee) => void }): void {
    this.receiveWorker = workerOf(this, 'ReceiveWorker', RECEIVE, {
      environment: { ...environment, ...previewIntake?.environment },
      queue: this.queue.queue,
      grant: (grantee) => {
        this.grantReceive(grantee, resources);
        previewIntake?.grant(grantee);
      },
    });
    this.actionWorker = workerOf(this, 'RouteActionWorker', ROUTE_ACTIONS, {
      environment,
      queue: this.actionQueue.queue,
      grant: (grantee) => this.grantActions(grantee, resources),
    });
  }

  /** Reads the raw message SES stored, keeps it in the messages bucket, records it and queues actions. */
  private grantReceive(grantee: AreaGrantee, { table, messagesBucket }: AreaResources): void {
    grantTableReadWrite(grantee, table);
    grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects(`${INBOUND_OBJECT_PREFIX}*`)] }));
    Validations.of(grantee.scope).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/${INBOUND_OBJECT_PREFIX}*]`,
      reason: 'Objects SES stored under inbound/ of the received-mail bucket; their keys are SES message ids, known only when mail arrives.',
    });
    grantMessageObjects(grantee, messagesBucket, ['s3:PutObject']);
    grantSendToQueue(grantee, this.actionQueue.queue);
  }

  /** Reads stored messages, signs with the account key (sealed with the platform key), re-sends and re-queues. */
  private grantActions(grantee: AreaGrantee, { table, encryptionKey, messagesBucket, sendQueue }: AreaResources): void {
    grantTableReadWrite(grantee, table);
    encryptionKey.grantRead(grantee.role);
    grantMessageObjects(grantee, messagesBucket, ['s3:GetObject', 's3:PutObject']);
    grantSendToQueue(grantee, sendQueue);
    grantSendToQueue(grantee, this.actionQueue.queue);
  }
}
