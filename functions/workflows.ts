import type { QueueName } from './workers';

/**
 * Every Step Functions workflow, in one table (beside routes.ts, workers.ts and schedules.ts). Its
 * definition is `lib/workflows/<name>.asl.json`, read by CDK (lib/constructs/workflows.ts) and by
 * local mode's runner alike; each `${Placeholder}` of it is a Lambda task (a module under
 * functions/ exporting `handler`) or a queue of the worker table. CDK makes the task Lambdas and
 * passes their ARNs; local mode (lib/local/workflows.ts) invokes the same handlers in-process.
 */
export interface WorkflowRow {
  /** The definition's base name. */
  name: string;
  /** The setting through which the handlers that start executions find the state machine. */
  arnSetting: 'SCHEDULE_STATE_MACHINE_ARN' | 'CERTIFICATE_STATE_MACHINE_ARN' | 'PREVIEW_STATE_MACHINE_ARN' | 'PREVIEW_EXPORT_STATE_MACHINE_ARN' | 'BLOCKLIST_STATE_MACHINE_ARN' | 'PLACEMENT_STATE_MACHINE_ARN';
  /** Lambda tasks: the placeholder for the function's ARN, and the module under functions/ (without `.ts`). */
  tasks: Readonly<Record<string, string>>;
  /** Queues the definition sends to: the placeholder for the queue's URL, and the worker table's queue. */
  queues?: Readonly<Record<string, QueueName>>;
}

export const workflows = [
  // Scheduled delivery: waits until o:deliverytime, then queues the send job; the last resort fails what could not be queued.
  { name: 'scheduled-delivery', arnSetting: 'SCHEDULE_STATE_MACHINE_ARN', tasks: { UndeliveredFunctionArn: 'delivery/schedule-undelivered' }, queues: { SendQueueUrl: 'send' } },
  // Tracking certificates: one execution per job (and per release).
  { name: 'tracking-certificate', arnSetting: 'CERTIFICATE_STATE_MACHINE_ARN', tasks: { CertificateTasksFunctionArn: 'certificates/workflow-tasks' } },
  // Email previews: a Map over a test's clients, each one render in Chromium.
  { name: 'email-preview', arnSetting: 'PREVIEW_STATE_MACHINE_ARN', tasks: { RenderTaskFunctionArn: 'inspect/preview/render-task' } },
  // Preview exports: a test's screenshots zipped into S3.
  { name: 'preview-export', arnSetting: 'PREVIEW_EXPORT_STATE_MACHINE_ARN', tasks: { ExportTaskFunctionArn: 'inspect/preview/export-task' } },
  // Blocklist checks: a self-test of every list, then a Map over the subjects.
  { name: 'blocklist-check', arnSetting: 'BLOCKLIST_STATE_MACHINE_ARN', tasks: { CheckTaskFunctionArn: 'optimize/blocklists/check-task' } },
  // Inbox placement: each result's poll of its seeds over IMAP, in a Wait loop.
  { name: 'placement-poll', arnSetting: 'PLACEMENT_STATE_MACHINE_ARN', tasks: { PollTaskFunctionArn: 'optimize/inbox/poll-task' } },
] as const satisfies readonly WorkflowRow[];

export type WorkflowName = (typeof workflows)[number]['name'];

/** The row of a workflow. */
export function workflow(name: WorkflowName): WorkflowRow {
  return workflows.find((row) => row.name === name)!;
}
