import { Duration } from 'aws-cdk-lib';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { grantSendToQueue } from './area-permissions';
import { Workflow } from './workflows';

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

  constructor(scope: Construct, id: string, props: SchedulingProps) {
    super(scope, id);
    this.workflow = new Workflow(this, 'ScheduledDelivery', {
      name: 'scheduled-delivery',
      substitutions: { SendQueueUrl: props.sendQueue.queueUrl },
    });
    this.stateMachine = this.workflow.stateMachine;
    // SendMessage only, on the send queue only (the queue is SSE-SQS: no key grant needed).
    grantSendToQueue({ role: this.stateMachine.role, scope: this.workflow }, props.sendQueue);
  }
}
