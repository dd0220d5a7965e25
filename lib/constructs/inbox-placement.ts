import { Duration, type NestedStack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { grantMessageObjects, grantSendToQueue, grantStartExecution, grantTableReadWrite, type AreaGrantee, type AreaResources } from './area-permissions';
import { PlatformFunction } from './platform-function';
import { Workflow, workflowTaskEntry } from './workflows';

/**
 * Inbox placement in the Optimization nested stack (ProductApi's `prepare`): the poll workflow
 * (lib/workflows/placement-poll.asl.json) and its task, which signs in to the operator's seed
 * mailboxes over IMAP (their secrets unsealed with the platform key) and writes results. The
 * inbox area starts it with each test it sends through the sending pipeline, and seals seed
 * secrets (`grant`); the inbound receive worker starts it when a message the user sent themselves
 * reaches a seed list's target (`intake`).
 */
export function addInboxPlacement(stack: NestedStack, environment: Record<string, string>, resources: AreaResources) {
  const pollTask = new PlatformFunction(stack, 'PlacementPollTask', {
    entry: workflowTaskEntry('placement-poll', 'PollTaskFunctionArn'),
    description: 'Inbox placement: searches the seed mailboxes of one result over IMAP and records where each copy landed',
    environment,
    // Eight seeds at once, each sign-in and search bounded at 30 s: a few minutes for the largest lists.
    timeout: Duration.minutes(5),
  });
  grantTableReadWrite(pollTask.grantee, resources.table);
  resources.encryptionKey.grantRead(pollTask.grantee.role);
  const workflow = new Workflow(stack, 'PlacementWorkflow', { name: 'placement-poll', substitutions: { PollTaskFunctionArn: pollTask.fn.functionArn } });
  workflow.stateMachine.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [pollTask.fn.functionArn] }));
  const workflowEnvironment = { PLACEMENT_STATE_MACHINE_ARN: workflow.stateMachine.stateMachineArn };
  return {
    pollTask,
    workflow,
    environment: workflowEnvironment,
    grant: (area: string, fn: PlatformFunction) => {
      if (area !== 'optimize/inbox') return;
      resources.encryptionKey.grantRead(fn.grantee.role);
      // A test is sent as any message: its copies stored and queued for the send worker.
      grantMessageObjects(fn.grantee, resources.messagesBucket, ['s3:PutObject']);
      grantSendToQueue(fn.grantee, resources.sendQueue);
      // A test's result is polled from the moment it starts, so it ends even if no copy arrives.
      grantStartExecution(fn.grantee, workflow.stateMachine);
    },
    /** What the inbound receive worker needs to start a result's poll. */
    intake: { environment: workflowEnvironment, grant: (grantee: AreaGrantee) => grantStartExecution(grantee, workflow.stateMachine) },
  };
}
