import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateMachine, type RunOptions, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { WORKFLOWS_DIR } from '../paths';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What a Task state's service integration does locally: its effective Parameters in, its result out. */
export type TaskHandler = (parameters: Json) => Promise<Json>;

/** Local stand-ins for Task resources, by the resource ARN the definition names. */
export type TaskHandlers = Readonly<Record<string, TaskHandler>>;

/** The resource of Step Functions' optimized SQS SendMessage integration. */
export const SQS_SEND_MESSAGE = 'arn:aws:states:::sqs:sendMessage';
/** The resource of Step Functions' optimized Lambda Invoke integration. */
export const LAMBDA_INVOKE = 'arn:aws:states:::lambda:invoke';

/**
 * `${Token}` placeholders replaced as Step Functions' DefinitionSubstitutions does (CDK passes the
 * same map). A placeholder left without a value is refused, as the CDK loader refuses it.
 */
export function substitute(definition: string, substitutions: Readonly<Record<string, string>>): string {
  const missing = new Set<string>();
  const text = definition.replace(/\$\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => {
    if (!Object.hasOwn(substitutions, name)) {
      missing.add(name);
      return whole;
    }
    // Values land inside JSON strings: escape them as JSON would.
    return JSON.stringify(substitutions[name]).slice(1, -1);
  });
  if (missing.size) throw new Error(`no substitution for ${[...missing].map((n) => '${' + n + '}').join(', ')}`);
  return text;
}

interface StateLike {
  Type: string;
  Resource?: string;
  Iterator?: { States: Record<string, StateLike> };
  ItemProcessor?: { States: Record<string, StateLike> };
  Branches?: Array<{ States: Record<string, StateLike> }>;
}

/** Every Task state (nested Map and Parallel states included): its name and resource. */
function taskStates(states: Record<string, StateLike>): Array<[string, string]> {
  return Object.entries(states).flatMap(([name, state]): Array<[string, string]> => [
    ...(state.Type === 'Task' ? [[name, state.Resource ?? ''] as [string, string]] : []),
    ...(state.Iterator ? taskStates(state.Iterator.States) : []),
    ...(state.ItemProcessor ? taskStates(state.ItemProcessor.States) : []),
    ...(state.Branches ?? []).flatMap((branch) => taskStates(branch.States)),
  ]);
}

export interface WorkflowExecution {
  /** Stops the execution where it is (a Wait ends at once, nothing after it runs). */
  abort(): void;
  /** The execution's output; rejects with the error that failed it. Aborted: null. */
  result: Promise<Json>;
}

/**
 * One ASL definition from lib/workflows, run by aws-local-stepfunctions with every Task state
 * mapped to a local handler for its resource. A Task whose resource has no handler is refused
 * when the workflow is loaded: the package would otherwise try to call AWS Lambda.
 */
export class LocalWorkflow {
  readonly definition: StateMachineDefinition;
  private readonly machine: StateMachine;
  /** The Task handlers and retry intervals every run uses, fixed when the workflow is loaded. */
  private readonly overrides: NonNullable<RunOptions['overrides']>;
  /** Task handlers still running: aborting an execution does not stop the one it is in. */
  private readonly tasksRunning = new Set<Promise<unknown>>();

  constructor(
    readonly name: string,
    substitutions: Readonly<Record<string, string>>,
    tasks: TaskHandlers,
    directory: string = WORKFLOWS_DIR,
    options: {
      /** Every Retry waits this long instead of its own intervals (tests: minutes of retries in moments). */
      retryIntervalMs?: number;
      /** Validated as Step Functions would when the state machine is created (default). */
      validate?: boolean;
    } = {},
  ) {
    const { retryIntervalMs, validate = true } = options;
    const file = join(directory, `${name}.asl.json`);
    let text: string;
    try {
      text = substitute(readFileSync(file, 'utf8'), substitutions);
    } catch (error) {
      throw new Error(`Workflow ${name} (${file}): ${(error as Error).message}`, { cause: error });
    }
    this.definition = JSON.parse(text) as StateMachineDefinition;
    const states = (this.definition as unknown as { States: Record<string, StateLike> }).States;
    const handlers: Record<string, (input: never) => Promise<Json>> = {};
    for (const [stateName, resource] of taskStates(states)) {
      const handler = tasks[resource];
      if (!handler) throw new Error(`Workflow ${name}: no local handler for the resource ${resource} of Task state ${stateName}`);
      handlers[stateName] = (input: never) => {
        const running = handler(input as Json);
        this.tasksRunning.add(running);
        void running.then(
          () => this.tasksRunning.delete(running),
          () => this.tasksRunning.delete(running),
        );
        return running;
      };
    }
    const retryIntervalOverrides = retryIntervalMs === undefined ? undefined : Object.fromEntries(Object.keys(handlers).map((state) => [state, retryIntervalMs]));
    this.overrides = { taskResourceLocalHandlers: handlers as NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers'], retryIntervalOverrides };
    this.machine = new StateMachine(this.definition, { validationOptions: { noValidate: !validate } });
  }

  /** Resolves once no task handler runs: after aborting, what a task was doing is finished before the stores close. */
  async tasksSettled(): Promise<void> {
    while (this.tasksRunning.size) await Promise.allSettled([...this.tasksRunning]);
  }

  run(input: Json, context: Record<string, unknown> = {}): WorkflowExecution {
    const options: RunOptions = { overrides: this.overrides, noThrowOnAbort: true, context };
    const execution = this.machine.run(input as never, options);
    return { abort: () => execution.abort(), result: execution.result as Promise<Json> };
  }
}

/**
 * Step Functions' SQS SendMessage integration over an in-process queue: a MessageBody that is
 * JSON rather than a string is sent serialized, as Step Functions sends it.
 */
export function sqsSendMessageTask(send: (queueUrl: string, body: string, delaySeconds: number) => Promise<void>): TaskHandler {
  return async (parameters) => {
    const p = (parameters ?? {}) as { QueueUrl?: unknown; MessageBody?: Json; DelaySeconds?: unknown };
    if (typeof p.QueueUrl !== 'string' || p.MessageBody === undefined) throw Object.assign(new Error('QueueUrl and MessageBody are required'), { name: 'SQS.InvalidParameterValueException' });
    const body = typeof p.MessageBody === 'string' ? p.MessageBody : JSON.stringify(p.MessageBody);
    await send(p.QueueUrl, body, Number(p.DelaySeconds ?? 0));
    return { MessageId: randomUUID(), MD5OfMessageBody: createHash('md5').update(body).digest('hex') };
  };
}

/**
 * Step Functions' Lambda Invoke integration over in-process functions, by the FunctionName the
 * definition passes: the result is shaped as the integration returns it ({Payload, StatusCode}),
 * and a function that throws fails the task with its error's name, as Lambda.ServiceException-free
 * function errors do.
 */
export function lambdaInvokeTask(functions: Readonly<Record<string, (payload: never) => Promise<unknown>>>): TaskHandler {
  return async (parameters) => {
    const p = (parameters ?? {}) as { FunctionName?: unknown; Payload?: Json };
    const fn = typeof p.FunctionName === 'string' ? functions[p.FunctionName] : undefined;
    if (!fn) throw Object.assign(new Error(`Function not found: ${String(p.FunctionName)}`), { name: 'Lambda.ResourceNotFoundException' });
    const payload = (await fn(p.Payload as never)) as Json;
    return { StatusCode: 200, Payload: payload ?? null };
  };
}
