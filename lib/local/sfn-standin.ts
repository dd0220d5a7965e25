import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { readAwsJsonRequest, replyAwsJson } from './aws-json';
import { closeServer, listenOnLoopback, standInServer } from './http';
import type { Json, LocalWorkflow, WorkflowExecution } from './workflow-runner';
import { writeStateFile } from './state-file';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';

/** One execution as Step Functions describes it (dates in epoch milliseconds here). */
export interface ExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  /** The execution input, as the JSON text StartExecution was given. */
  input: string;
  status: ExecutionStatus;
  startDate: number;
  stopDate?: number;
  output?: string;
  error?: string;
  cause?: string;
}

const ACCOUNT = '000000000000';
/** Closed executions kept for DescribeExecution and name reuse checks (Step Functions keeps 90 days). */
const CLOSED_KEPT = 1000;
const NAME = /^[A-Za-z0-9_-]{1,80}$/;

/** An execution in progress; `stopping` when StopExecution ended it, `suspended` when the host is stopping. */
type RunningExecution = WorkflowExecution & { done: Promise<void>; stopping?: boolean; suspended?: boolean };

class SfnError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * AWS Step Functions for local mode: the handlers call it with the real SDK client (SFN_ENDPOINT
 * points here), and each execution runs the state machine's ASL with aws-local-stepfunctions
 * (lib/local/workflow-runner.ts). StartExecution, DescribeExecution and StopExecution speak
 * Step Functions' JSON protocol, errors included.
 *
 * Executions are written to the data dir before StartExecution answers, and those still running
 * when the host stops are started again on the next start. A resumed execution runs from its
 * first state with its original input, so a local workflow must be safe to run again: the
 * scheduled-delivery Wait counts to an absolute time, and a send job queued twice is absorbed by
 * the send worker's per-recipient claims.
 */
export class SfnStandIn {
  private server?: Server;
  private readonly machines = new Map<string, LocalWorkflow>();
  private readonly executions = new Map<string, ExecutionRecord>();
  private readonly running = new Map<string, RunningExecution>();
  private readonly file?: string;
  private closing = false;

  constructor(
    dataDir: string | undefined,
    private readonly region: string,
    /** Runs `fn` (synchronously) in the region's configuration, which the execution's timers and task handlers inherit. */
    private readonly scope: <T>(fn: () => T) => T,
  ) {
    this.file = dataDir ? join(dataDir, 'sfn-executions.json') : undefined;
    if (this.file && existsSync(this.file)) {
      for (const record of JSON.parse(readFileSync(this.file, 'utf8')) as ExecutionRecord[]) this.executions.set(record.executionArn, record);
    }
  }

  async listen(): Promise<string> {
    this.server = standInServer((req, res) => this.handle(req, res));
    return listenOnLoopback(this.server);
  }

  stateMachineArn(name: string): string {
    return `arn:aws:states:${this.region}:${ACCOUNT}:stateMachine:${name}`;
  }

  /** Registers a state machine under the workflow's name and returns its ARN. */
  createStateMachine(workflow: LocalWorkflow): string {
    const arn = this.stateMachineArn(workflow.name);
    this.machines.set(arn, workflow);
    return arn;
  }

  /** Starts again every execution that was running when the host last stopped. */
  resume(): void {
    for (const record of this.executions.values()) {
      if (record.status === 'RUNNING' && !this.running.has(record.executionArn) && this.machines.has(record.stateMachineArn)) this.launch(record);
    }
  }

  /** Executions, newest first, for tests and inspection. */
  list(stateMachineArn?: string, status?: ExecutionStatus): ExecutionRecord[] {
    return [...this.executions.values()]
      .filter((e) => (!stateMachineArn || e.stateMachineArn === stateMachineArn) && (!status || e.status === status))
      .sort((a, b) => b.startDate - a.startDate)
      .map((e) => ({ ...e }));
  }

  /** Stops the running executions where they are, without closing them: the next start resumes them. */
  async close(): Promise<void> {
    this.closing = true;
    const pending = [...this.running.values()];
    for (const execution of pending) {
      execution.suspended = true;
      execution.abort();
    }
    await Promise.all(pending.map((e) => e.done));
    await Promise.all([...this.machines.values()].map((machine) => machine.tasksSettled()));
    await closeServer(this.server);
  }

  private persist(): void {
    const closed = [...this.executions.values()].filter((e) => e.status !== 'RUNNING').sort((a, b) => (b.stopDate ?? 0) - (a.stopDate ?? 0));
    for (const old of closed.slice(CLOSED_KEPT)) this.executions.delete(old.executionArn);
    if (!this.file) return;
    writeStateFile(this.file, JSON.stringify([...this.executions.values()]));
  }

  private launch(record: ExecutionRecord): void {
    const workflow = this.machines.get(record.stateMachineArn)!;
    const context = {
      Execution: { Id: record.executionArn, Name: record.name, Input: JSON.parse(record.input) as Json, StartTime: new Date(record.startDate).toISOString() },
      StateMachine: { Id: record.stateMachineArn, Name: workflow.name },
    };
    // Started inside the region's scope: its timers and task handlers inherit the configuration.
    const execution = this.scope(() => workflow.run(JSON.parse(record.input) as Json, context));
    const entry: RunningExecution = {
      ...execution,
      done: execution.result
        .then(
          (output) => {
            // Stopped by StopExecution (already recorded) or by the host stopping (resumed on the next start).
            if (entry.stopping || entry.suspended) return;
            this.finish(record, { status: 'SUCCEEDED', output: JSON.stringify(output) });
          },
          (error: Error) => {
            if (entry.stopping || entry.suspended) return;
            // The package wraps the state's error (States.TaskFailed, a task's own error name ...).
            const failure = error.cause instanceof Error ? error.cause : error;
            this.finish(record, { status: 'FAILED', error: failure.name, cause: failure.message });
            process.stderr.write(`local workflow ${workflow.name}: execution ${record.name} failed: ${failure.name}: ${failure.message}\n`);
          },
        )
        .finally(() => {
          this.running.delete(record.executionArn);
        }),
    };
    this.running.set(record.executionArn, entry);
  }

  private finish(record: ExecutionRecord, outcome: Partial<ExecutionRecord>): void {
    Object.assign(record, outcome, { stopDate: Date.now() });
    this.persist();
  }

  private startExecution(input: Record<string, unknown>) {
    const stateMachineArn = String(input['stateMachineArn'] ?? '');
    if (!this.machines.has(stateMachineArn)) throw new SfnError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    const name = input['name'] === undefined ? randomUUID() : String(input['name']);
    if (!NAME.test(name)) throw new SfnError('InvalidName', `Invalid Name: '${name}'`);
    const text = input['input'] === undefined ? '{}' : String(input['input']);
    try {
      JSON.parse(text);
    } catch {
      throw new SfnError('InvalidExecutionInput', 'Invalid State Machine Execution Input: the input is not valid JSON');
    }
    const executionArn = `arn:aws:states:${this.region}:${ACCOUNT}:execution:${this.machines.get(stateMachineArn)!.name}:${name}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      // Step Functions' idempotency: the same name and input while running is the same execution.
      if (existing.status === 'RUNNING' && existing.input === text) return { executionArn, startDate: existing.startDate / 1000 };
      throw new SfnError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    if (this.closing) throw new SfnError('ServiceUnavailable', 'The local Step Functions stand-in is stopping');
    const record: ExecutionRecord = { executionArn, stateMachineArn, name, input: text, status: 'RUNNING', startDate: Date.now() };
    this.executions.set(executionArn, record);
    this.persist();
    this.launch(record);
    return { executionArn, startDate: record.startDate / 1000 };
  }

  private describeExecution(input: Record<string, unknown>) {
    const record = this.executions.get(String(input['executionArn'] ?? ''));
    if (!record) throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${String(input['executionArn'])}'`);
    return {
      ...record,
      startDate: record.startDate / 1000,
      ...(record.stopDate === undefined ? {} : { stopDate: record.stopDate / 1000 }),
    };
  }

  private async stopExecution(input: Record<string, unknown>) {
    const record = this.executions.get(String(input['executionArn'] ?? ''));
    if (!record) throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${String(input['executionArn'])}'`);
    const running = this.running.get(record.executionArn);
    if (record.status === 'RUNNING') {
      this.finish(record, {
        status: 'ABORTED',
        ...(input['error'] === undefined ? {} : { error: String(input['error']) }),
        ...(input['cause'] === undefined ? {} : { cause: String(input['cause']) }),
      });
      if (running) {
        running.stopping = true;
        running.abort();
        await running.done;
      }
    }
    return { stopDate: (record.stopDate ?? Date.now()) / 1000 };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, payload: unknown) => replyAwsJson(res, status, payload);
    const { operation: target, input } = await readAwsJsonRequest(req);
    try {
      if (!input) throw new SfnError('SerializationException', 'Malformed JSON');
      if (target === 'StartExecution') return reply(200, this.startExecution(input));
      if (target === 'DescribeExecution') return reply(200, this.describeExecution(input));
      if (target === 'StopExecution') return reply(200, await this.stopExecution(input));
      throw new SfnError('UnknownOperationException', `${target} is not supported by the local stand-in`);
    } catch (error) {
      if (error instanceof SfnError) return reply(400, { __type: `com.amazonaws.states#${error.type}`, message: error.message });
      return reply(500, { __type: 'com.amazonaws.states#InternalServerError', message: (error as Error).message });
    }
  }
}
