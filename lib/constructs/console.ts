import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultStackSynthesizer, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { buildConsoleIfStale, CONSOLE_DIST } from '../console-build';
import { consolePolicy } from '../local/console-host';
import type { PlatformRegion } from '../regions';

export interface ConsoleHostingProps {
  /** Where the bucket's server access logs go (the stack's access-log bucket). */
  accessLogs: s3.IBucket;
}

/**
 * The web console on AWS: its build (console/dist) in a private bucket, served only through
 * CloudFront with origin access control. The API's CORS names this distribution's origin alone
 * (lib/constructs/api.ts takes `origin`).
 *
 * The page's Content-Security-Policy comes in two parts that add up. CloudFront's response
 * headers carry everything but the API's address, since the API's CORS needs the distribution's
 * name first and the two cannot name each other; the page itself, deployed after the API exists,
 * carries a `<meta>` policy that narrows connect-src to that API. `console/config.json` tells
 * the page the same address.
 */
export class ConsoleHosting extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** The console's origin, `https://<distribution>.cloudfront.net`: what the API's CORS allows. */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'console/',
      // The build is the source of truth: a deleted stack leaves nothing worth keeping.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    const headers = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Mailplane console: strict CSP (the page narrows connect-src to its API), no framing, no sniffing',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: consolePolicy(['https:']), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Mailplane web console',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
      },
      minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
    });
    this.origin = `https://${this.distribution.distributionDomainName}`;
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'The console is for the account\'s users wherever they are; access is by API key, not by country.' },
      { id: 'AwsSolutions-CFR2', reason: 'Static files only (no forms, no server code behind them); every action goes to the API, which authenticates and throttles each request.' },
      { id: 'AwsSolutions-CFR3', reason: 'The files are public by design and the same for everyone; what users do is logged by the API (its access logs), which is where requests carry meaning.' },
      { id: 'AwsSolutions-CFR4', reason: 'The default cloudfront.net certificate: CloudFront then negotiates TLS 1.2+ with current browsers (minimumProtocolVersion is set for when a custom certificate is added).' },
    );
  }

  /**
   * Uploads the build with the page and its config naming the region's API (known once the API
   * exists), and the origins of the buckets the API redirects to (`objectOrigins`). Builds the
   * console first when its build is missing or stale, as `npm start` does.
   */
  deploy(apiUrl: string, region: PlatformRegion, objectOrigins: readonly string[] = []): s3deploy.BucketDeployment {
    buildConsoleIfStale();
    const page = readFileSync(join(CONSOLE_DIST, 'index.html'), 'utf8');
    // Added to CloudFront's header policy (both apply): connect-src shrinks to this API and the
    // buckets its redirects lead to (screenshots and exports, by presigned URL).
    const narrowing = `<meta http-equiv="Content-Security-Policy" content="connect-src 'self' ${[apiUrl, ...objectOrigins].join(' ')}">`;
    const charset = '<meta charset="utf-8" />';
    if (!page.includes(charset)) throw new Error(`console/dist/index.html has no ${charset} to put the API's policy after`);
    const deployment = new s3deploy.BucketDeployment(this, 'Files', {
      destinationBucket: this.bucket,
      sources: [
        s3deploy.Source.asset(CONSOLE_DIST, { exclude: ['index.html', '.vite'] }),
        s3deploy.Source.data('index.html', page.replace(charset, `${charset}\n    ${narrowing}`)),
        s3deploy.Source.jsonData('console/config.json', { region, regions: [{ id: region, label: region.toUpperCase(), api: apiUrl }], outbox: false }),
      ],
      distribution: this.distribution,
      distributionPaths: ['/index.html', '/console/config.json'],
      memoryLimit: 256,
      // Our role, closed to CDK's grants (managed policy, wildcard actions): exactly what the copy needs.
      role: this.deploymentRole().withoutPolicyUpdates(),
    });
    // CDK's handler for BucketDeployment, one per stack: its runtime is aws-cdk-lib's choice.
    const handler = Stack.of(this).node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
    if (!handler) throw new Error("BucketDeployment's handler was not found in the stack");
    Validations.of(handler).acknowledge({ id: 'AwsSolutions-L1', reason: "CDK's BucketDeployment handler (aws-cdk-lib's own singleton Lambda): its runtime is pinned by aws-cdk-lib and moves when aws-cdk-lib is updated." });
    return deployment;
  }

  /**
   * What BucketDeployment's handler does: read the build's zips from CDK's asset bucket, sync them
   * into the console bucket (write, prune), invalidate the distribution, and write its logs.
   */
  private deploymentRole(): iam.Role {
    const stack = Stack.of(this);
    // CDK's bootstrap bucket, where `cdk deploy` puts the build's zips (DefaultStackSynthesizer's name for it).
    const qualifier = (stack.node.tryGetContext('@aws-cdk/core:bootstrapQualifier') as string | undefined) ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
    const assets = DefaultStackSynthesizer.DEFAULT_FILE_ASSETS_BUCKET_NAME.replace('${Qualifier}', qualifier);
    const role = new iam.Role(this, 'DeploymentRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'), description: 'Copies the web console\'s build into its bucket' });
    role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [Fn.sub(`arn:\${AWS::Partition}:s3:::${assets}/*`)] }));
    role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }));
    role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:DeleteObject'], resources: [this.bucket.arnForObjects('*')] }));
    role.addToPolicy(new iam.PolicyStatement({ actions: ['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation'], resources: [stack.formatArn({ service: 'cloudfront', region: '', resource: 'distribution', resourceName: this.distribution.distributionId })] }));
    role.addToPolicy(new iam.PolicyStatement({ actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'], resources: [Fn.sub('arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/*')] }));
    const bucketId = stack.getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket);
    Validations.of(role).acknowledge(
      { id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`, reason: "The console's files are written and pruned by key in its own bucket." },
      { id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${assets.replace('${AWS::AccountId}', '<AWS::AccountId>').replace('${AWS::Region}', '<AWS::Region>')}/*]`, reason: "The build's zips are read by key from CDK's bootstrap asset bucket, where cdk deploy uploads them." },
      { id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/lambda/*]', reason: "The handler's log group is named after the function, whose name CloudFormation generates: its own logs, in this account and region." },
    );
    return role;
  }
}
