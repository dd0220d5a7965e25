import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../../functions/data/table';

export interface DataProps {
  /** How long stored MIME messages are kept (the S3 lifecycle is the retention policy). */
  messageRetention?: Duration;
}

/** The region's state: the single table, the stored-messages bucket and the platform encryption key. */
export class Data extends Construct {
  readonly table: dynamodb.Table;
  readonly messages: s3.Bucket;
  readonly accessLogs: s3.Bucket;
  readonly encryptionKey: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: DataProps = {}) {
    super(scope, id);

    const { partitionKey, sortKey, gsi1, ttl } = TABLE_KEYS;
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: ttl,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      // Accounts, keys and domains outlive any one deployment of the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: gsi1.name,
      partitionKey: { name: gsi1.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: gsi1.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    this.accessLogs = new s3.Bucket(this, 'AccessLogs', {
      // S3 server access logging can only deliver to SSE-S3 buckets.
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.messages = new s3.Bucket(this, 'Messages', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: false,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'messages/',
      lifecycleRules: [
        {
          expiration: props.messageRetention ?? Duration.days(30),
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
}
