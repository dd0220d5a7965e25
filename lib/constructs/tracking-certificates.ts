import { Aws, Duration, Lazy, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { TRACKING_HOST_TAG } from '../../functions/certificates/acm';
import { acmCertificates, type AreaResources, grantTableReadWrite, PLATFORM_CERTIFICATES } from './area-permissions';
import { PlatformFunction } from './platform-function';
import { withoutStateMachines } from './scheduling';
import { Workflow, workflowTaskEntry } from './workflows';

/** The API Gateway management ARN of a path under /domainnames, in the stack's region. */
const domainNames = (suffix = '') => `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::/domainnames${suffix}`;

/**
 * Tracking-host TLS certificates (POST/PUT /v2/x509/{host}): the workflow of
 * lib/workflows/tracking-certificate.asl.json, whose every step is one task function
 * (functions/certificates/workflow-tasks.ts). It requests a DNS-validated ACM certificate for the
 * host, waits until ACM issues it, and serves the host with it through an API Gateway regional
 * custom domain name mapped to the tracking API (the public tracking routes only).
 *
 * Standard, since a job may wait for its validation record for up to 72 hours; a job costs a few
 * transitions per poll. The workflow exists first (the platform environment names it); its task
 * function once that environment does (`addTasks`), as scheduled delivery's handler.
 */
export class TrackingCertificates extends Construct {
  readonly workflow: Workflow;
  readonly stateMachine: sfn.StateMachine;
  tasks?: PlatformFunction;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.workflow = new Workflow(this, 'Workflow', {
      name: 'tracking-certificate',
      substitutions: {
        CertificateTasksFunctionArn: Lazy.string({
          produce: () => {
            if (!this.tasks) throw new Error('TrackingCertificates: addTasks() was not called');
            return this.tasks.fn.functionArn;
          },
        }),
      },
    });
    this.stateMachine = this.workflow.stateMachine;
  }

  /**
   * The task function: the platform environment without the state machines' ARNs (which it does
   * not use, and which would make them depend on each other), plus the tracking API to map custom
   * domain names to.
   */
  addTasks(environment: Record<string, string>, resources: AreaResources, trackingApi: apigw.IHttpApi): PlatformFunction {
    const withoutMachine = withoutStateMachines(environment);
    const tasks = new PlatformFunction(this, 'Tasks', {
      entry: workflowTaskEntry('tracking-certificate', 'CertificateTasksFunctionArn'),
      description: 'Tracking certificates: the workflow steps (ACM request and polling, API Gateway custom domain names)',
      environment: { ...withoutMachine, TRACKING_API_ID: trackingApi.apiId },
      timeout: Duration.seconds(60),
    });
    this.tasks = tasks;
    const role = tasks.role;
    grantTableReadWrite(tasks.grantee, resources.table);
    role.addToPrincipalPolicy(
      // RequestCertificate has no resource-level permissions; its condition keys narrow it to DNS validation.
      new iam.PolicyStatement({ actions: ['acm:RequestCertificate'], resources: ['*'], conditions: { StringEquals: { 'acm:ValidationMethod': 'DNS' } } }),
    );
    role.addToPrincipalPolicy(
      // Requesting with tags needs AddTagsToCertificate, for the platform's tag and no other.
      new iam.PolicyStatement({ actions: ['acm:AddTagsToCertificate'], resources: [acmCertificates()], conditions: { 'ForAllValues:StringEquals': { 'aws:TagKeys': [TRACKING_HOST_TAG] } } }),
    );
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['acm:DescribeCertificate', 'acm:GetCertificate', 'acm:DeleteCertificate'], resources: [acmCertificates()], conditions: PLATFORM_CERTIFICATES }));
    // API Gateway's management API: custom domain names and their API mappings, each verb on its paths.
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['apigateway:POST'], resources: [domainNames(), domainNames('/*/apimappings')] }));
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['apigateway:GET'], resources: [domainNames('/*'), domainNames('/*/apimappings')] }));
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['apigateway:PATCH'], resources: [domainNames('/*')] }));
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['apigateway:DELETE'], resources: [domainNames('/*'), domainNames('/*/apimappings/*')] }));
    // The first regional custom domain name of an account creates API Gateway's service-linked role.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['iam:CreateServiceLinkedRole'],
        resources: [`arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/aws-service-role/ops.apigateway.amazonaws.com/AWSServiceRoleForAPIGateway`],
        conditions: { StringEquals: { 'iam:AWSServiceName': 'ops.apigateway.amazonaws.com' } },
      }),
    );
    const acknowledge = (resource: string, reason: string) => Validations.of(tasks).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
    acknowledge('*', 'acm:RequestCertificate supports no resource-level permissions (a certificate has no ARN before it is requested); the statement holds that action only, limited by condition to DNS validation.');
    acknowledge(
      'arn:<AWS::Partition>:acm:<AWS::Region>:<AWS::AccountId>:certificate/*',
      "Tracking certificates are requested per customer domain at run time, so their ids are not known at deploy time; reads and deletes are limited to this account and region's certificates that carry the platform's tag.",
    );
    const domainReason = 'Custom domain names are the customers\' tracking hosts, created at run time; the grant covers API Gateway domain names of this region only, each verb on the paths it needs.';
    acknowledge('arn:<AWS::Partition>:apigateway:<AWS::Region>::/domainnames/*', domainReason);
    acknowledge('arn:<AWS::Partition>:apigateway:<AWS::Region>::/domainnames/*/apimappings', domainReason);
    acknowledge('arn:<AWS::Partition>:apigateway:<AWS::Region>::/domainnames/*/apimappings/*', domainReason);
    this.stateMachine.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [tasks.fn.functionArn] }));
    return tasks;
  }
}
