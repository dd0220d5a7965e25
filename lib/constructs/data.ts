import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../../functions/data/table';
import { DEFAULT_MAX_MESSAGE_TTL } from './platform-env';

export interface DataProps {
  /**
   * How long after its MIME is written a stored message may still be read: a message is readable
   * through the API until its record's ttl, which is the longest message_ttl a domain may have
   * (MAX_MESSAGE_TTL of the handlers' environment) after its delivery time, so the stack passes
   * that plus the scheduling horizon. Default: the handlers' own default message_ttl (7 days).
   */
  messageHorizon?: Duration;
  /**
   * How long stored MIME messages are kept (the S3 lifecycle is the retention policy), in whole
   * days, at least messageHorizon. Default: messageHorizon rounded up to whole days, plus one.
   */
  messageRetention?: Duration;
  /**
   * A table to use instead of making one: a table restored from a backup or a point in time
   * (docs/operations.md, "Restore"), with its stream on (NEW_IMAGE) and the same keys and gsi1. The
   * stack then only uses it: it never deletes or changes it.
   */
  existingTable?: ExistingTable;
}

export interface ExistingTable {
  tableName: string;
  /** Its stream's ARN (`aws dynamodb describe-table --query Table.LatestStreamArn`): the event stream reads it. */
  tableStreamArn: string;
}

/**
 * The messages bucket's expiration: whole days (an S3 lifecycle counts days), never shorter than
 * `horizon`, how long a stored message may still be read (at least the longest message_ttl). The
 * default adds a day so an object written just before its record never expires before the
 * record does; nothing reads a message past its record's ttl (the table entry is the API's only
 * way to it), so keeping MIME longer would only keep mail content around with no way to reach it.
 */
export function messageRetentionDays(horizon: Duration, messageRetention?: Duration): number {
  const floor = Math.ceil(horizon.toSeconds() / 86_400);
  if (messageRetention === undefined) return floor + 1;
  const days = messageRetention.toDays({ integral: false });
  if (!Number.isInteger(days) || days < floor) {
    throw new Error(`messageRetention must be a whole number of days of at least ${floor} (how long a stored message stays readable); got ${messageRetention.toHumanString()}`);
  }
  return days;
}

/** The region's state: the single table, the stored-messages bucket and the platform encryption key. */
/**
 * A bucket for access logs (S3 server access logs, load balancer logs): SSE-S3, as both log
 * deliveries require, private, TLS only, kept 90 days and retained with the stack's data.
 */
export function accessLogBucket(scope: Construct, id: string): s3.Bucket {
  return new s3.Bucket(scope, id, {
    encryption: s3.BucketEncryption.S3_MANAGED,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ expiration: Duration.days(90) }],
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

export class Data extends Construct {
  readonly table: dynamodb.ITable;
  readonly messages: s3.Bucket;
  readonly accessLogs: s3.Bucket;
  readonly encryptionKey: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: DataProps = {}) {
    super(scope, id);
    const retentionDays = messageRetentionDays(props.messageHorizon ?? DEFAULT_MAX_MESSAGE_TTL, props.messageRetention);

    const { gsi1 } = TABLE_KEYS;
    this.table = props.existingTable ? dynamodb.Table.fromTableAttributes(this, 'Table', { ...props.existingTable, globalIndexes: [gsi1.name] }) : this.makeTable();

    this.accessLogs = accessLogBucket(this, 'AccessLogs');

    this.messages = new s3.Bucket(this, 'Messages', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // Not versioned: a message's MIME is written once under a key of its own and never
      // overwritten, so versions would restore nothing, and noncurrent versions of deleted
      // messages would keep mail content past the retention the lifecycle rule promises.
      versioned: false,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'messages/',
      lifecycleRules: [
        {
          expiration: Duration.days(retentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.encryptionKey = new secretsmanager.Secret(this, 'EncryptionKey', {
      description: 'Platform key that encrypts secrets at rest in the table (DKIM private keys).',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Deleting it would make every sealed secret in the (retained) table unreadable.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.encryptionKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'The key seals data at rest with no re-encryption step yet; rotating it would make existing DKIM keys unreadable.',
    });
  }

  /**
   * The region's table: on demand, with point-in-time recovery (any second of the last 35 days
   * can be restored into a new table: docs/operations.md), the stream of new images the event
   * stream reads, items expiring by `ttl`, and retained when the stack is deleted.
   */
  private makeTable(): dynamodb.Table {
    const { partitionKey, sortKey, gsi1, ttl } = TABLE_KEYS;
    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: ttl,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      // New events reach analytics, the tag registry and webhooks through the stream
      // (lib/constructs/event-stream.ts); only the new image is needed.
      stream: dynamodb.StreamViewType.NEW_IMAGE,
      // Accounts, keys and domains outlive any one deployment of the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    table.addGlobalSecondaryIndex({
      indexName: gsi1.name,
      partitionKey: { name: gsi1.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: gsi1.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });
    return table;
  }
}
