import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { workflow, type WorkflowName } from '../../functions/workflows';
import { REPO_ROOT, WORKFLOWS_DIR } from '../paths';

/** The entry of a workflow's Lambda task, by its placeholder (functions/workflows.ts). */
export function workflowTaskEntry(name: WorkflowName, placeholder: string): string {
  const entry = workflow(name).tasks[placeholder];
  if (!entry) throw new Error(`Workflow ${name} has no task \${${placeholder}} in functions/workflows.ts`);
  return path.join(REPO_ROOT, 'functions', `${entry}.ts`);
}

export interface WorkflowProps {
  /** The definition's base name: `<directory>/<name>.asl.json`. */
  name: string;
  /** Values for the definition's `${Token}` placeholders (ARNs of task Lambdas, queues ...). */
  substitutions?: Record<string, string>;
  directory?: string;
  type?: sfn.StateMachineType;
  logRetention?: logs.RetentionDays;
}

/** The `${Token}` placeholders of an ASL document, as Step Functions' DefinitionSubstitutions reads them. */
export function placeholdersOf(definition: string): string[] {
  return [...new Set([...definition.matchAll(/\$\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!))];
}

/** A Step Functions state machine from a shared ASL file, logged to CloudWatch and traced with X-Ray. */
export class Workflow extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: WorkflowProps) {
    super(scope, id);
    const file = path.join(props.directory ?? WORKFLOWS_DIR, `${props.name}.asl.json`);
    if (!fs.existsSync(file)) throw new Error(`Workflow definition not found: ${file}`);
    const definition = fs.readFileSync(file, 'utf8');
    const substitutions = props.substitutions ?? {};
    // CloudFormation would only fail at deploy time, with the state machine half created.
    const missing = placeholdersOf(definition).filter((name) => !Object.hasOwn(substitutions, name));
    if (missing.length) throw new Error(`Workflow ${props.name}: no substitution for ${missing.map((n) => '${' + n + '}').join(', ')}`);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      // Under /aws/vendedlogs/ one CloudWatch Logs resource policy covers every workflow's group.
      logGroupName: `/aws/vendedlogs/states/${Stack.of(this).stackName}-${props.name}`,
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      // The name is fixed, so a retained group would block redeploying the stack after a delete.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      definitionBody: sfn.DefinitionBody.fromString(definition),
      // CloudFormation rejects an empty DefinitionSubstitutions map.
      definitionSubstitutions: Object.keys(substitutions).length ? substitutions : undefined,
      stateMachineType: props.type ?? sfn.StateMachineType.STANDARD,
    });

    // Logging and tracing are set on the L1 with their permissions in a policy of their own: the
    // L2 props would put these wildcards in the role's default policy, where the task grants go,
    // and acknowledging them there would also hide a wildcard task grant.
    const observability = new iam.Policy(this, 'ObservabilityPolicy', {
      roles: [this.stateMachine.role],
      statements: [
        new iam.PolicyStatement({
          actions: [
            'logs:CreateLogDelivery',
            'logs:GetLogDelivery',
            'logs:UpdateLogDelivery',
            'logs:DeleteLogDelivery',
            'logs:ListLogDeliveries',
            'logs:PutResourcePolicy',
            'logs:DescribeResourcePolicies',
            'logs:DescribeLogGroups',
          ],
          resources: ['*'],
        }),
        new iam.PolicyStatement({
          actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords', 'xray:GetSamplingRules', 'xray:GetSamplingTargets'],
          resources: ['*'],
        }),
      ],
    });
    Validations.of(observability).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'CloudWatch Logs delivery and X-Ray APIs support no resource-level permissions; this policy holds nothing else.',
    });
    const cfn = this.stateMachine.node.defaultChild as sfn.CfnStateMachine;
    cfn.loggingConfiguration = {
      destinations: [{ cloudWatchLogsLogGroup: { logGroupArn: this.logGroup.logGroupArn } }],
      level: sfn.LogLevel.ALL,
      // Execution input and output carry recipients and message content: keep them out of the logs.
      includeExecutionData: false,
    };
    cfn.tracingConfiguration = { enabled: true };
    // Step Functions checks the log-delivery permission when the state machine is created.
    // (On the L1 only: the L2 also holds the role, which the policy itself depends on.)
    cfn.node.addDependency(observability);
  }
}
