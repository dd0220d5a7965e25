import { Duration, Lazy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type AreaResources, grantAbandonUnsent, grantSendToQueue } from './area-permissions';
import { PlatformFunction } from './platform-function';
import { Workflow, workflowTaskEntry } from './workflows';

/**
 * The platform environment for a workflow's task function: without the state machines' ARNs. A
 * task function does not start workflows, and naming them would make each state machine depend on
 * the other's task function, a cycle CloudFormation cannot deploy.
 */
export function withoutStateMachines(environment: Record<string, string>): Record<string, string> {
  const { SCHEDULE_STATE_MACHINE_ARN: _schedule, CERTIFICATE_STATE_MACHINE_ARN: _certificate, ...rest } = environment;
  return rest;
}

/** How far ahead o:deliverytime may be (functions/messages/send-params.ts, MAX_SCHEDULE_MS): Mailgun's 3 days. */
export const SCHEDULE_HORIZON = Duration.days(3);

export interface SchedulingProps {
  /** The send queue: a scheduled message's send job goes there when its time comes. */
  sendQueue: sqs.IQueue;
}

/**
 * Scheduled delivery (o:deliverytime): the messages area starts one execution of
 * lib/workflows/scheduled-delivery.asl.json per scheduled message; it waits until the delivery
 * time and puts the message's send job on the send queue, where the send worker takes it as any
 * other (a queue cleared meanwhile and suppressions are checked then). Local mode runs the same
 * definition (lib/local/workflow-runner.ts).
 *
 * A Standard workflow, since an Express one lasts at most five minutes; each execution is three
 * state transitions, and a waiting execution costs nothing more. Open executions count against
 * Step Functions' quota of 1,000,000 per account and region, which bounds how much mail may be
 * waiting at once.
 */
export class Scheduling extends Construct {
  readonly workflow: Workflow;
  readonly stateMachine: sfn.StateMachine;
  /** Gives the recipients of a message whose job could not be queued their final event. */
  undelivered?: PlatformFunction;

  constructor(scope: Construct, id: string, props: SchedulingProps) {
    super(scope, id);
    this.workflow = new Workflow(this, 'ScheduledDelivery', {
      name: 'scheduled-delivery',
      substitutions: {
        SendQueueUrl: props.sendQueue.queueUrl,
        // Set by handleUndelivered: that function runs with the platform environment, which names
        // this state machine, so it can only be made after it.
        UndeliveredFunctionArn: Lazy.string({
          produce: () => {
            if (!this.undelivered) throw new Error('Scheduling: handleUndelivered() was not called');
            return this.undelivered.fn.functionArn;
          },
        }),
      },
    });
    this.stateMachine = this.workflow.stateMachine;
    // SendMessage only, on the send queue only (the queue is SSE-SQS: no key grant needed).
    grantSendToQueue({ role: this.stateMachine.role, scope: this.workflow }, props.sendQueue);
  }

  /**
   * Adds the function the workflow invokes when a send job cannot be queued even after its
   * retries (functions/delivery/schedule-undelivered.ts): it gives the unsent recipients a final
   * event. Its environment is the platform's without the state machines' ARNs, which it does not
   * use and which would make the workflows and their task functions depend on each other.
   */
  handleUndelivered(environment: Record<string, string>, resources: AreaResources): PlatformFunction {
    const withoutMachine = withoutStateMachines(environment);
    this.undelivered = new PlatformFunction(this, 'Undelivered', {
      entry: workflowTaskEntry('scheduled-delivery', 'UndeliveredFunctionArn'),
      description: 'Scheduled delivery: final failed events for a message whose send job could not be queued',
      environment: withoutMachine,
      timeout: Duration.seconds(30),
    });
    grantAbandonUnsent(this.undelivered.grantee, resources);
    this.stateMachine.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.undelivered.fn.functionArn] }));
    return this.undelivered;
  }
}
