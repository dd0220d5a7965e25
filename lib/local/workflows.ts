import { loadHandler } from './function-handler';
import { workflows, type WorkflowName, type WorkflowRow } from '../../functions/workflows';
import type { QueueName } from '../../functions/workers';
import type { SfnStandIn } from './sfn-standin';
import { LAMBDA_INVOKE, lambdaInvokeTask, LocalWorkflow, SQS_SEND_MESSAGE, sqsSendMessageTask } from './workflow-runner';

/**
 * The workflow table (functions/workflows.ts) in local mode: each row's definition in the Step
 * Functions stand-in, its Lambda tasks invoking the same handlers in-process (under an ARN of
 * this machine's), its queues the SQS stand-in's.
 */

type Task = (payload: never) => Promise<unknown>;

/** The ARN local mode gives a task's function. */
const localFunctionArn = (awsRegion: string, entry: string) => `arn:aws:lambda:${awsRegion}:000000000000:function:${entry.replace(/\//g, '-')}`;

export interface LocalWorkflowsOptions {
  awsRegion: string;
  /** The URL of a queue of the worker table, and how a workflow's task sends to it. */
  queueUrl: (queue: QueueName) => string;
  send: (queueUrl: string, body: string, delaySeconds: number) => Promise<void>;
  /** Step Functions Retry intervals, overridden (tests); default: as the definitions say. */
  retryIntervalMs?: number;
  /** Validate each definition when it is loaded, as Step Functions does (default). */
  validate?: boolean;
  /** How a task's handler is found; default loadHandler. */
  load?: (entry: string) => Task;
}

/** The substitutions and task handlers of one row, in local mode. */
function localWorkflowOf(row: WorkflowRow, options: LocalWorkflowsOptions): LocalWorkflow {
  const load = options.load ?? ((entry: string) => loadHandler<Task>(entry));
  const functions = Object.fromEntries(Object.values(row.tasks).map((entry) => [localFunctionArn(options.awsRegion, entry), load(entry)]));
  const substitutions = {
    ...Object.fromEntries(Object.entries(row.tasks).map(([placeholder, entry]) => [placeholder, localFunctionArn(options.awsRegion, entry)])),
    ...Object.fromEntries(Object.entries(row.queues ?? {}).map(([placeholder, queue]) => [placeholder, options.queueUrl(queue)])),
  };
  const tasks = { [LAMBDA_INVOKE]: lambdaInvokeTask(functions), ...(row.queues ? { [SQS_SEND_MESSAGE]: sqsSendMessageTask(options.send) } : {}) };
  return new LocalWorkflow(row.name, substitutions, tasks, undefined, { retryIntervalMs: options.retryIntervalMs, validate: options.validate });
}

/** Registers every row's state machine; returns the settings that name them (each row's arnSetting). */
export function createWorkflows(sfn: Pick<SfnStandIn, 'createStateMachine'>, options: LocalWorkflowsOptions): Record<WorkflowRow['arnSetting'], string> {
  const rows: readonly WorkflowRow[] = workflows;
  return Object.fromEntries(rows.map((row) => [row.arnSetting, sfn.createStateMachine(localWorkflowOf(row, options))])) as Record<WorkflowRow['arnSetting'], string>;
}

export type { WorkflowName };
