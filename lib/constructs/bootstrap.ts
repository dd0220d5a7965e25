import { CustomResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { handlerEntry } from '../paths';
import { grantTableReadWrite } from './area-permissions';
import { PlatformFunction } from './platform-function';

export interface BootstrapProps {
  table: dynamodb.ITable;
  /** The platform environment (functions/platform/env.ts) the handler runs with. */
  environment: Record<string, string>;
}

/**
 * On first deployment, creates the region's primary account, its sandbox domain and an admin API
 * key, and stores the key in a Secrets Manager secret the operator reads to get started.
 */
export class Bootstrap extends Construct {
  readonly adminKeySecret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: BootstrapProps) {
    super(scope, id);

    this.adminKeySecret = new secretsmanager.Secret(this, 'AdminKeySecret', {
      description: 'The first admin API key of this region: JSON {username, api_key, account_id}.',
      // A placeholder until the custom resource writes the key.
      generateSecretString: { passwordLength: 32, excludePunctuation: true },
      // The key it holds stays valid in the retained table.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.adminKeySecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'A copy of an API key that lives in the table; keys are rotated through the keys API (create, then delete the old one), which Secrets Manager rotation cannot do.',
    });

    const handler = new PlatformFunction(this, 'Handler', {
      entry: handlerEntry('bootstrap'),
      description: 'Custom resource: primary account and first admin key',
      environment: props.environment,
      timeout: Duration.minutes(1),
    });
    grantTableReadWrite(handler.grantee, props.table);
    this.adminKeySecret.grantWrite(handler.role);

    // The framework's default role carries AWSLambdaBasicExecutionRole (write to any log group);
    // this one writes to the framework's own log group only.
    const providerLogs = new logs.LogGroup(this, 'ProviderLogs', { retention: logs.RetentionDays.ONE_MONTH });
    const providerRole = new iam.Role(this, 'ProviderRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    providerLogs.grantWrite(providerRole);
    const provider = new cr.Provider(this, 'Provider', {
      onEventHandler: handler.fn,
      frameworkOnEventRole: providerRole,
      logGroup: providerLogs,
    });
    const handlerLogicalId = Stack.of(this).getLogicalId(handler.fn.node.defaultChild as lambda.CfnFunction);
    Validations.of(providerRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${handlerLogicalId}.Arn>:*]`,
      reason: "The provider framework's lambda:InvokeFunction grant on the bootstrap handler also covers its versions and aliases (ARN:*); it names no other function.",
    });

    new CustomResource(this, 'PrimaryAccount', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::PrimaryAccount',
      properties: { AdminKeySecretId: this.adminKeySecret.secretArn },
    });
  }
}
