import { CfnOutput, Duration, RemovalPolicy, Stack, Stage, Validations } from 'aws-cdk-lib';
import * as applicationautoscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { accessLogBucket } from './data';
import * as path from 'node:path';
import type { SmtpSettings } from '../../functions/smtp/settings';
import { smtpImageContext } from '../smtp-image';
import { type AreaResources, grantMessageObjects, grantSendToQueue, grantStartExecution, grantTableReadWrite } from './area-permissions';

/** The container's ports: unprivileged, so the image runs as a plain user (lib/smtp.Dockerfile). */
const STARTTLS_CONTAINER_PORT = 2587;
const TLS_TERMINATED_CONTAINER_PORT = 2465;

export interface SmtpProps {
  resources: AreaResources;
  /** The platform environment every handler runs with: the accept path needs the same. */
  environment: Record<string, string>;
  /** The name clients connect to (its DNS record points at the load balancer). */
  hostname: string;
  /** An ACM certificate for `hostname` in this region: the load balancer's TLS listener on 465. */
  certificateArn: string;
  /**
   * A Secrets Manager secret, JSON `{"certificate": PEM chain, "privateKey": PEM}` for `hostname`:
   * STARTTLS on 587 happens in the container, which needs the key itself (ACM does not hand out
   * the keys of the certificates it issues).
   */
  tlsSecretArn: string;
  /** Tasks: at least `min` (two, across zones), at most `max`. */
  minTasks?: number;
  maxTasks?: number;
}

/**
 * SMTP submission on AWS (issue 11): the same service local mode runs (functions/smtp) as an ECS
 * Fargate service behind a Network Load Balancer. 587 passes through to the tasks, which offer
 * STARTTLS; 465 is a TLS listener with the ACM certificate, forwarding decrypted. The tasks run in
 * private subnets and reach DynamoDB and S3 through gateway endpoints, the rest through one NAT
 * gateway. The task role may do what accepting a message does and nothing else: read credentials
 * and domains, store the MIME, record the message and its events, queue or schedule it.
 * Scaling follows the load balancer's open connections, and CPU.
 */
export class Smtp extends Construct {
  readonly loadBalancer: elbv2.NetworkLoadBalancer;
  readonly service: ecs.FargateService;
  readonly taskRole: ecs.TaskDefinition['taskRole'];

  constructor(scope: Construct, id: string, props: SmtpProps) {
    super(scope, id);
    const stack = Stack.of(this);

    const flowLogs = new logs.LogGroup(this, 'FlowLogs', { retention: logs.RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'tasks', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 24 },
      ],
      gatewayEndpoints: {
        DynamoDb: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
      },
      flowLogs: { all: { destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: ec2.FlowLogTrafficType.REJECT } },
    });

    const cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });

    const logGroup = new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
    const taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: 512,
      memoryLimitMiB: 1024,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.ARM64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    this.taskRole = taskDefinition.taskRole;
    const tlsSecret = secretsmanager.Secret.fromSecretCompleteArn(this, 'TlsSecret', props.tlsSecretArn);
    const settings: Record<keyof SmtpSettings, string> = {
      SMTP_PORT: String(STARTTLS_CONTAINER_PORT),
      SMTP_TLS_TERMINATED_PORT: String(TLS_TERMINATED_CONTAINER_PORT),
      SMTP_TLS_SECRET_ID: props.tlsSecretArn,
      SMTP_HOSTNAME: props.hostname,
    };
    const bundle = stack.bundlingRequired;
    // The image's build context goes beside the cloud assembly; CDK stages it as an asset from there.
    const contextDir = smtpImageContext(path.join(Stage.of(this)!.outdir, '.smtp-image', stack.stackName), bundle);
    taskDefinition.addContainer('smtp', {
      image: ecs.ContainerImage.fromAsset(contextDir, { platform: Platform.LINUX_ARM64 }),
      environment: { ...props.environment, ...settings },
      logging: ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: 'smtp' }),
      portMappings: [{ containerPort: STARTTLS_CONTAINER_PORT }, { containerPort: TLS_TERMINATED_CONTAINER_PORT }],
      readonlyRootFilesystem: true,
      stopTimeout: Duration.seconds(30),
    });
    Validations.of(taskDefinition.obtainExecutionRole()).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: "The execution role's image pull: ecr:GetAuthorizationToken supports no resource-level permissions; the layer reads name the image's own repository.",
    });
    Validations.of(taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason: "The environment holds configuration only (table, bucket and queue names, the TLS secret's ARN, ports), the same the Lambdas get; the TLS key is read from Secrets Manager at start.",
    });

    // Least privilege: what accepting a message takes (the messages area's grants), and the TLS secret.
    const grantee = { role: taskDefinition.taskRole, scope: taskDefinition };
    grantTableReadWrite(grantee, props.resources.table);
    grantMessageObjects(grantee, props.resources.messagesBucket, ['s3:PutObject']);
    grantSendToQueue(grantee, props.resources.sendQueue);
    grantStartExecution(grantee, props.resources.scheduleStateMachine);
    tlsSecret.grantRead(taskDefinition.taskRole);

    const tasksSecurityGroup = new ec2.SecurityGroup(this, 'TasksSecurityGroup', { vpc, description: 'SMTP tasks: submission ports from the load balancer only', allowAllOutbound: true });
    const lbSecurityGroup = new ec2.SecurityGroup(this, 'LoadBalancerSecurityGroup', { vpc, description: 'SMTP load balancer: 465 and 587 from anywhere', allowAllOutbound: false });
    for (const port of [465, 587]) {
      lbSecurityGroup.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(port), `SMTP submission ${port}`);
    }
    for (const port of [STARTTLS_CONTAINER_PORT, TLS_TERMINATED_CONTAINER_PORT]) {
      lbSecurityGroup.addEgressRule(tasksSecurityGroup, ec2.Port.tcp(port), 'to the SMTP tasks');
      tasksSecurityGroup.addIngressRule(lbSecurityGroup, ec2.Port.tcp(port), 'from the SMTP load balancer');
    }
    Validations.of(lbSecurityGroup).acknowledge({
      id: 'AwsSolutions-EC23',
      reason: 'SMTP submission serves mail clients anywhere, as any submission server must; only 465 and 587 are open, and AUTH is required before any mail is taken.',
    });

    this.service = new ecs.FargateService(this, 'Service', {
      cluster,
      taskDefinition,
      desiredCount: props.minTasks ?? 2,
      securityGroups: [tasksSecurityGroup],
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      circuitBreaker: { rollback: true },
      minHealthyPercent: 100,
    });

    const accessLogs = accessLogBucket(this, 'AccessLogs');
    Validations.of(accessLogs).acknowledge({ id: 'AwsSolutions-S1', reason: "The load balancer's access-log bucket: logging its own accesses would log the log deliveries." });

    this.loadBalancer = new elbv2.NetworkLoadBalancer(this, 'LoadBalancer', {
      vpc,
      internetFacing: true,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      securityGroups: [lbSecurityGroup],
      crossZoneEnabled: true,
    });
    this.loadBalancer.logAccessLogs(accessLogs, 'smtp');

    const target = (name: string, port: number) =>
      new elbv2.NetworkTargetGroup(this, name, {
        vpc,
        port,
        protocol: elbv2.Protocol.TCP,
        targetType: elbv2.TargetType.IP,
        healthCheck: { protocol: elbv2.Protocol.TCP, interval: Duration.seconds(10), healthyThresholdCount: 2, unhealthyThresholdCount: 2 },
        // Sessions in flight get the task's own drain time (stopTimeout) to finish.
        deregistrationDelay: Duration.seconds(30),
        // The tasks see the client's own address (off by default for IP targets), which the
        // account's IP allowlist is checked against at AUTH. The tasks' security group still
        // admits only the load balancer's: an NLB with security groups is matched by them
        // whatever source address it preserves.
        preserveClientIp: true,
        targets: [this.service.loadBalancerTarget({ containerName: 'smtp', containerPort: port })],
      });
    this.loadBalancer.addListener('Submission', { port: 587, protocol: elbv2.Protocol.TCP, defaultTargetGroups: [target('StartTlsTargets', STARTTLS_CONTAINER_PORT)] });
    this.loadBalancer.addListener('Smtps', {
      port: 465,
      protocol: elbv2.Protocol.TLS,
      certificates: [acm.Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn)],
      sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
      defaultTargetGroups: [target('TlsTargets', TLS_TERMINATED_CONTAINER_PORT)],
    });

    // Scaling: out on open connections (the NLB's, across tasks) in steps, and on CPU.
    const scaling = this.service.autoScaleTaskCount({ minCapacity: props.minTasks ?? 2, maxCapacity: props.maxTasks ?? 10 });
    scaling.scaleOnMetric('Connections', {
      metric: this.loadBalancer.metrics.activeFlowCount({ period: Duration.minutes(1), statistic: 'Average' }),
      scalingSteps: [
        { upper: 200, change: -1 },
        { lower: 1000, change: +1 },
        { lower: 4000, change: +3 },
      ],
      adjustmentType: applicationautoscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      cooldown: Duration.minutes(3),
    });
    scaling.scaleOnCpuUtilization('Cpu', { targetUtilizationPercent: 60 });

    new CfnOutput(this, 'SmtpEndpoint', {
      value: this.loadBalancer.loadBalancerDnsName,
      description: `SMTP submission: point ${props.hostname} (CNAME) here; 587 STARTTLS, 465 TLS`,
    });
  }
}
