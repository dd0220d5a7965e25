import { type CfnElement, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { platformStackConfigs } from '../../lib/app-config';
import { removeSynthOutput, type SynthesizedPlatform, synthPlatform } from './synth';

afterAll(removeSynthOutput);

// SMTP submission on AWS (lib/constructs/smtp.ts): off by default, an ECS Fargate service behind
// a Network Load Balancer with `-c smtp=true`.
const SMTP = {
  hostname: 'smtp.example.com',
  certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0f0e0d0c-0b0a-0908-0706-050403020100',
  tlsSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:mailplane-smtp-tls-AbCdEf',
};
const context = (values: Record<string, unknown>) => (key: string) => values[key];

function findingsIn(scope: IConstruct): string[] {
  return new AwsSolutionsChecks().validateScope(scope).violations.flatMap((v) => v.violatingResources.map((r) => `${v.severity} ${v.ruleName} at ${r.constructPath ?? '?'}`));
}

describe('context', () => {
  test('smtp is off unless smtp=true, which needs the host, the ACM certificate and the TLS secret per region', () => {
    expect(platformStackConfigs(context({})).map((c) => c.props.smtp)).toEqual([undefined, undefined]);
    expect(platformStackConfigs(context({ smtp: 'false' })).map((c) => c.props.smtp)).toEqual([undefined, undefined]);
    const [us] = platformStackConfigs(context({ smtp: 'true', regions: 'us', smtpHostUs: SMTP.hostname, smtpCertificateArnUs: SMTP.certificateArn, smtpTlsSecretArnUs: SMTP.tlsSecretArn }));
    expect(us!.props.smtp).toEqual(SMTP);
    expect(() => platformStackConfigs(context({ smtp: 'true', regions: 'eu', smtpHostEu: SMTP.hostname }))).toThrow(/smtpCertificateArnEu.*smtpTlsSecretArnEu/);
    expect(() => platformStackConfigs(context({ smtp: 'yes please' }))).toThrow(/"smtp" must be true or false/);
  });

  test('a plain deploy stays serverless: no cluster, service, load balancer or VPC', () => {
    const { template } = synthPlatform('us');
    for (const type of ['AWS::ECS::Cluster', 'AWS::ECS::Service', 'AWS::ElasticLoadBalancingV2::LoadBalancer', 'AWS::EC2::VPC']) template.resourceCountIs(type, 0);
  });
});

describe('with smtp=true', () => {
  let platform: SynthesizedPlatform;
  beforeAll(() => {
    platform = synthPlatform('us', { smtp: SMTP });
  });

  test("the region's stack keeps room under CloudFormation's 500 resources with SMTP on, its largest shape", () => {
    // 465 today. Past 480 the next area or worker goes to a product's nested stack (lib/constructs/product-api.ts).
    expect(Object.keys(platform.template.toJSON().Resources as object).length).toBeLessThanOrEqual(480);
  });

  test('runs the service on Fargate (arm64) from the image built from the repo, in private subnets, at least two tasks', () => {
    const { template } = platform;
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      ContainerDefinitions: [
        Match.objectLike({
          Name: 'smtp',
          ReadonlyRootFilesystem: true,
          PortMappings: [Match.objectLike({ ContainerPort: 2587 }), Match.objectLike({ ContainerPort: 2465 })],
        }),
      ],
    });
    const [definition] = Object.values(template.findResources('AWS::ECS::TaskDefinition'));
    const environment = Object.fromEntries(
      (definition!.Properties.ContainerDefinitions[0].Environment as Array<{ Name: string; Value: unknown }>).map((e) => [e.Name, e.Value]),
    );
    expect(environment).toMatchObject({ SMTP_TLS_SECRET_ID: SMTP.tlsSecretArn, SMTP_HOSTNAME: SMTP.hostname, SMTP_PORT: '2587', SMTP_TLS_TERMINATED_PORT: '2465' });
    expect(Object.keys(environment)).toEqual(expect.arrayContaining(['TABLE_NAME', 'MESSAGES_BUCKET', 'SEND_QUEUE_URL', 'SCHEDULE_STATE_MACHINE_ARN', 'PLATFORM_REGION']));
    template.hasResourceProperties('AWS::ECS::Service', { LaunchType: 'FARGATE', DesiredCount: 2, NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'DISABLED' }) } });
    const image = JSON.stringify(template.findResources('AWS::ECS::TaskDefinition'));
    expect(image).toMatch(/cdk-hnb659fds-container-assets/);
  });

  test('puts a Network Load Balancer in front: 587 passed through for STARTTLS, 465 as TLS with the ACM certificate', () => {
    const { template } = platform;
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Type: 'network', Scheme: 'internet-facing' });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 587, Protocol: 'TCP' });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 465, Protocol: 'TLS', Certificates: [{ CertificateArn: SMTP.certificateArn }] });
    // Both keep the client's address, which the account's IP allowlist is checked against at AUTH.
    const preserved = Match.arrayWith([{ Key: 'preserve_client_ip.enabled', Value: 'true' }]);
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', { Port: 2587, Protocol: 'TCP', TargetType: 'ip', TargetGroupAttributes: preserved });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', { Port: 2465, Protocol: 'TCP', TargetType: 'ip', TargetGroupAttributes: preserved });
  });

  test("gives the task role what accepting a message takes, and nothing of SES's or the platform key's", () => {
    const { template, stack } = platform;
    const roleId = stack.getLogicalId(stack.smtp!.taskRole.node.defaultChild as CfnElement);
    const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }));
    const actions = policies.flatMap((p) => (p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>).flatMap((s) => [s.Action].flat()));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchWriteItem', 's3:PutObject', 'sqs:SendMessage', 'states:StartExecution', 'secretsmanager:GetSecretValue']));
    expect(actions.filter((a) => a.startsWith('ses:') || a === 's3:GetObject' || a.startsWith('kms:') || a === '*')).toEqual([]);
    expect(JSON.stringify(policies)).not.toContain(stack.resolve(stack.data.encryptionKey.secretArn).Ref ?? 'no-ref');
  });

  test('scales on the load balancer’s open connections and on CPU', () => {
    const { template } = platform;
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 2, MaxCapacity: 10, ScalableDimension: 'ecs:service:DesiredCount' });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ActiveFlowCount', Namespace: 'AWS/NetworkELB' });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', { PolicyType: 'StepScaling' });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ PredefinedMetricSpecification: { PredefinedMetricType: 'ECSServiceAverageCPUUtilization' } }),
    });
  });

  test('is cdk-nag clean, every acknowledgement answering a finding that exists without it', () => {
    expect(findingsIn(platform.stack)).toEqual([]);
    const spy = jest.spyOn(Validations.prototype, 'acknowledge').mockImplementation(() => undefined);
    let bare: SynthesizedPlatform;
    try {
      bare = synthPlatform('us', { smtp: SMTP });
    } finally {
      spy.mockRestore();
    }
    const raw = findingsIn(bare.stack.smtp!);
    expect(raw.sort()).toEqual(
      [
        'error AwsSolutions-EC23 at Mailplane-us/Smtp/LoadBalancerSecurityGroup/Resource',
        'error AwsSolutions-ECS2 at Mailplane-us/Smtp/Task/Resource',
        'error AwsSolutions-IAM5[Resource::*] at Mailplane-us/Smtp/Task/ExecutionRole/DefaultPolicy/Resource',
        // The messages area's own grants, acknowledged where they are made (area-permissions.ts).
        'error AwsSolutions-IAM5[Resource::<DataMessagesCEC34E34.Arn>/*] at Mailplane-us/Smtp/Task/TaskRole/DefaultPolicy/Resource',
        'error AwsSolutions-IAM5[Resource::<DataTableFDBAD0F2.Arn>/index/*] at Mailplane-us/Smtp/Task/TaskRole/DefaultPolicy/Resource',
        'error AwsSolutions-S1 at Mailplane-us/Smtp/AccessLogs/Resource',
      ].sort(),
    );
  });
});
