import { CfnResource, type Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { isDeadLetterQueue } from './queue';

/** A part found in the region's construct tree, named by its path below the region's stack. */
interface Part {
  /** `SendingWorkers/SendWorker`, `InspectionApi/PreviewWorkflow`: unique in the region. */
  label: string;
  /** The first segment of the label: the construct (or product stack) the part belongs to. */
  group: string;
}

export interface WatchedFunction extends Part {
  /** The function's name (a token: its Ref). */
  name: string;
  description?: string;
}

export interface WatchedQueue extends Part {
  queue: sqs.Queue;
  /** Failed work is parked here: it should be empty. */
  deadLetter: boolean;
  visibilityTimeoutSeconds: number;
}

export interface WatchedStateMachine extends Part {
  /** The state machine's ARN (a token: its Ref). */
  arn: string;
}

export interface WatchedTargetGroup extends Part {
  targetGroup: elbv2.NetworkTargetGroup;
}

/** Everything in a region that runs or holds work, found by walking its constructs (nested stacks included). */
export interface MovingParts {
  functions: WatchedFunction[];
  queues: WatchedQueue[];
  stateMachines: WatchedStateMachine[];
  targetGroups: WatchedTargetGroup[];
}

/** SQS's default visibility timeout, for a queue that does not set one. */
const SQS_DEFAULT_VISIBILITY_SECONDS = 30;

function partOf(root: Stack, construct: IConstruct, trailing: RegExp): Part {
  const label = construct.node.path.slice(root.node.path.length + 1).replace(trailing, '');
  return { label, group: label.split('/')[0]! };
}

/**
 * The region's functions, queues, state machines and SMTP target groups, wherever they are built
 * (the region's stack or a product's nested stack). Found rather than listed, so a part added
 * later is watched without anyone remembering to: the alarms and the dashboard are made from this.
 * Functions are found at the CloudFormation level, which includes the ones CDK adds itself
 * (custom resource providers).
 */
export function movingPartsOf(root: Stack): MovingParts {
  const parts: MovingParts = { functions: [], queues: [], stateMachines: [], targetGroups: [] };
  const all = root.node.findAll();
  const redriveTargets = new Set(all.flatMap((c) => (c instanceof sqs.Queue && c.deadLetterQueue ? [c.deadLetterQueue.queue] : [])));
  for (const c of all) {
    if (CfnResource.isCfnResource(c) && c.cfnResourceType === 'AWS::Lambda::Function') {
      parts.functions.push({ ...partOf(root, c, /\/(Function\/)?Resource$/), name: c.ref, description: (c as lambda.CfnFunction).description });
    } else if (CfnResource.isCfnResource(c) && c.cfnResourceType === 'AWS::StepFunctions::StateMachine') {
      parts.stateMachines.push({ ...partOf(root, c, /\/(StateMachine\/)?Resource$/), arn: c.ref });
    } else if (c instanceof sqs.Queue) {
      const cfn = c.node.defaultChild as sqs.CfnQueue;
      parts.queues.push({
        ...partOf(root, c, /\/Queue$/),
        queue: c,
        deadLetter: isDeadLetterQueue(c) || redriveTargets.has(c),
        visibilityTimeoutSeconds: typeof cfn.visibilityTimeout === 'number' ? cfn.visibilityTimeout : SQS_DEFAULT_VISIBILITY_SECONDS,
      });
    } else if (c instanceof elbv2.NetworkTargetGroup) {
      parts.targetGroups.push({ ...partOf(root, c, /$/), targetGroup: c });
    }
  }
  return parts;
}
