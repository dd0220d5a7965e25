import { Duration, type NestedStack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { grantStartExecution, grantTableReadWrite, type AreaGrantee, type AreaResources } from './area-permissions';
import { PlatformFunction } from './platform-function';
import { Workflow, workflowTaskEntry } from './workflows';

/** The API areas that start checks: blocklists (an IP added) and managed domains (a domain verified). */
const STARTING_AREAS = new Set(['optimize/blocklists', 'optimize/domains']);

/**
 * Blocklist monitoring in the Optimization nested stack (ProductApi's `prepare`): the check
 * workflow (lib/workflows/blocklist-check.asl.json) and its task function; the 15-minute sweep
 * that starts it is the product's periodic job, given `sweepGrant`. The task needs the table and the
 * alerts queue: its DNS questions go to the resolvers in BLOCKLIST_RESOLVERS over the network.
 */
export function addBlocklistMonitoring(stack: NestedStack, environment: Record<string, string>, resources: AreaResources, grantRaiseAlerts: (grantee: AreaGrantee) => void) {
  const checkTask = new PlatformFunction(stack, 'BlocklistCheckTask', {
    entry: workflowTaskEntry('blocklist-check', 'CheckTaskFunctionArn'),
    description: 'Blocklist monitoring: self-tests the lists, checks a chunk of IPs or domains against them and records transitions',
    environment,
    // A chunk of 100 subjects, 8 at a time, each asking every list in parallel at ~2 s a try and two
    // tries: 13 rounds of at most ~4 s, under a minute even when every list times out.
    timeout: Duration.minutes(2),
  });
  grantTableReadWrite(checkTask.grantee, resources.table);
  // A transition raises its alerts: one message per setting on the alerts queue.
  grantRaiseAlerts(checkTask.grantee);
  const workflow = new Workflow(stack, 'BlocklistWorkflow', { name: 'blocklist-check', substitutions: { CheckTaskFunctionArn: checkTask.fn.functionArn } });
  workflow.stateMachine.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [checkTask.fn.functionArn] }));

  const workflowEnvironment = { BLOCKLIST_STATE_MACHINE_ARN: workflow.stateMachine.stateMachineArn };
  return {
    checkTask,
    workflow,
    environment: workflowEnvironment,
    /** What the sweep (functions/schedules.ts's blocklist-checks job) may do: read the subjects, start runs. */
    sweepGrant: (grantee: AreaGrantee) => {
      grantTableReadWrite(grantee, resources.table);
      grantStartExecution(grantee, workflow.stateMachine);
    },
    grant: (area: string, fn: PlatformFunction) => {
      if (STARTING_AREAS.has(area)) grantStartExecution(fn.grantee, workflow.stateMachine);
    },
  };
}
