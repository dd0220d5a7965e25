import { DescribeExecutionCommand, SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SfnStandIn } from '../../../lib/local/sfn-standin';
import { LAMBDA_INVOKE, lambdaInvokeTask, LocalWorkflow, SQS_SEND_MESSAGE, sqsSendMessageTask } from '../../../lib/local/workflow-runner';
import { eventually } from '../../support/eventually';

// The Step Functions stand-in as the handlers meet it: through the real SDK client.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const QUEUE = 'https://queue.example/send';

let dataDir: string;
let hosts: SfnStandIn[];
let sends: Array<{ body: string; at: number }>;

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailplane-sfn-'));
  hosts = [];
  sends = [];
});
afterEach(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A stand-in with the scheduled-delivery machine, its queue a list; the SDK client pointed at it. */
async function start(dir: string | undefined = dataDir) {
  const host = new SfnStandIn(dir, 'us-east-1', (fn) => fn());
  hosts.push(host);
  const endpoint = await host.listen();
  const workflow = new LocalWorkflow('scheduled-delivery', { SendQueueUrl: QUEUE, UndeliveredFunctionArn: 'undelivered' }, { [SQS_SEND_MESSAGE]: sqsSendMessageTask(async (_url, body) => void sends.push({ body, at: Date.now() })), [LAMBDA_INVOKE]: lambdaInvokeTask({}) });
  const stateMachineArn = host.createStateMachine(workflow);
  host.resume();
  return { host, stateMachineArn, client: new SFNClient({ region: 'us-east-1', endpoint, maxAttempts: 1 }) };
}

const input = (storageKey: string, deliverAt: Date) => JSON.stringify({ storageKey, attempt: 0, deliverAt: deliverAt.toISOString() });
const errorOf = (promise: Promise<unknown>) => promise.then(() => 'no error', (e: Error) => e.name);
/** DescribeExecution once the execution has ended (whatever its end). */
const ended = (client: SFNClient, executionArn: string | undefined) =>
  eventually(async () => {
    const described = await client.send(new DescribeExecutionCommand({ executionArn }));
    return described.status !== 'RUNNING' && described;
  });

test('StartExecution runs the ASL: the job is queued at deliverAt, and DescribeExecution follows it', async () => {
  const { client, stateMachineArn } = await start();
  const deliverAt = new Date(Date.now() + 300);
  const started = await client.send(new StartExecutionCommand({ stateMachineArn, name: 'deliver-k1', input: input('k1', deliverAt) }));
  expect(started.executionArn).toBe('arn:aws:states:us-east-1:000000000000:execution:scheduled-delivery:deliver-k1');
  expect(started.startDate).toBeInstanceOf(Date);
  expect(await client.send(new DescribeExecutionCommand({ executionArn: started.executionArn }))).toMatchObject({ status: 'RUNNING', name: 'deliver-k1', stateMachineArn });

  // Queued no earlier than deliverAt (asserted on the send's time, not on how fast this machine got here).
  const done = await ended(client, started.executionArn);
  expect(sends).toEqual([{ body: JSON.stringify({ storageKey: 'k1', attempt: 0 }), at: expect.any(Number) }]);
  expect(sends[0]!.at).toBeGreaterThanOrEqual(deliverAt.getTime());
  expect(done).toMatchObject({ status: 'SUCCEEDED', stopDate: expect.any(Date) });
  expect(JSON.parse(done.output!)).toEqual(JSON.parse(input('k1', deliverAt)));
});

test('one execution per name: the same name and input while running is the same execution, anything else ExecutionAlreadyExists', async () => {
  const { client, stateMachineArn, host } = await start();
  const deliverAt = new Date(Date.now() + 200);
  const first = await client.send(new StartExecutionCommand({ stateMachineArn, name: 'deliver-k2', input: input('k2', deliverAt) }));
  const again = await client.send(new StartExecutionCommand({ stateMachineArn, name: 'deliver-k2', input: input('k2', deliverAt) }));
  expect(again.executionArn).toBe(first.executionArn);
  expect(await errorOf(client.send(new StartExecutionCommand({ stateMachineArn, name: 'deliver-k2', input: input('other', deliverAt) })))).toBe('ExecutionAlreadyExists');
  expect(host.list(stateMachineArn)).toHaveLength(1);
  await ended(client, first.executionArn);
  expect(sends).toHaveLength(1);
  // Ended: the name stays taken.
  expect(await errorOf(client.send(new StartExecutionCommand({ stateMachineArn, name: 'deliver-k2', input: input('k2', deliverAt) })))).toBe('ExecutionAlreadyExists');
});

test('StopExecution aborts a waiting execution: nothing is queued', async () => {
  const { client, stateMachineArn } = await start();
  const deliverAt = Date.now() + 1000;
  const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn, name: 'deliver-k3', input: input('k3', new Date(deliverAt)) }));
  const stopped = await client.send(new StopExecutionCommand({ executionArn, cause: 'cancelled' }));
  expect(stopped.stopDate).toBeInstanceOf(Date);
  expect(await client.send(new DescribeExecutionCommand({ executionArn }))).toMatchObject({ status: 'ABORTED', cause: 'cancelled' });
  // Past its time, however long the steps above took: aborted while waiting, it never queues.
  await sleep(Math.max(0, deliverAt - Date.now()) + 300);
  expect(sends).toEqual([]);
});

test("answers Step Functions' errors for unknown machines and executions, bad names and bad input", async () => {
  const { client, stateMachineArn } = await start(undefined);
  expect(await errorOf(client.send(new StartExecutionCommand({ stateMachineArn: `${stateMachineArn}-nope`, input: '{}' })))).toBe('StateMachineDoesNotExist');
  expect(await errorOf(client.send(new StartExecutionCommand({ stateMachineArn, name: 'has space', input: '{}' })))).toBe('InvalidName');
  expect(await errorOf(client.send(new StartExecutionCommand({ stateMachineArn, name: 'x', input: '{nope' })))).toBe('InvalidExecutionInput');
  expect(await errorOf(client.send(new DescribeExecutionCommand({ executionArn: `${stateMachineArn}:nope` })))).toBe('ExecutionDoesNotExist');
});

test('a failing execution ends FAILED with the state error', async () => {
  fs.writeFileSync(
    path.join(dataDir, 'boom.asl.json'),
    JSON.stringify({ StartAt: 'Send', States: { Send: { Type: 'Task', Resource: SQS_SEND_MESSAGE, Parameters: { QueueUrl: QUEUE, 'MessageBody.$': '$' }, End: true } } }),
  );
  const host = new SfnStandIn(undefined, 'us-east-1', (fn) => fn());
  hosts.push(host);
  const client = new SFNClient({ region: 'us-east-1', endpoint: await host.listen(), maxAttempts: 1 });
  const failing = async () => {
    throw Object.assign(new Error('queue is gone'), { name: 'SQS.QueueDoesNotExist' });
  };
  const stateMachineArn = host.createStateMachine(new LocalWorkflow('boom', {}, { [SQS_SEND_MESSAGE]: failing }, dataDir));
  const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn, input: '{}' }));
    expect(await ended(client, executionArn)).toMatchObject({ status: 'FAILED', error: 'SQS.QueueDoesNotExist', cause: 'queue is gone' });
  } finally {
    write.mockRestore();
  }
});

test('waiting executions survive a restart: saved before StartExecution answers, resumed on the next start', async () => {
  const first = await start();
  const deliverAt = new Date(Date.now() + 2000);
  await first.client.send(new StartExecutionCommand({ stateMachineArn: first.stateMachineArn, name: 'deliver-k4', input: input('k4', deliverAt) }));
  await first.host.close();
  hosts = hosts.filter((h) => h !== first.host);
  const saved = JSON.parse(fs.readFileSync(path.join(dataDir, 'sfn-executions.json'), 'utf8'));
  expect(saved).toMatchObject([{ name: 'deliver-k4', status: 'RUNNING', input: input('k4', deliverAt) }]);
  await sleep(Math.max(0, deliverAt.getTime() - Date.now()) + 300);
  // Stopped hosts run nothing.
  expect(sends).toEqual([]);

  const second = await start();
  await eventually(async () => {
    const executions = second.host.list(second.stateMachineArn);
    return executions.length > 0 && executions.every((e) => e.status !== 'RUNNING');
  });
  expect(sends.map((s) => JSON.parse(s.body))).toEqual([{ storageKey: 'k4', attempt: 0 }]);
  expect(second.host.list(second.stateMachineArn)).toMatchObject([{ name: 'deliver-k4', status: 'SUCCEEDED' }]);
});

test("close waits for a task handler under way: what it writes lands before the stores it writes to close", async () => {
  const order: string[] = [];
  let started!: () => void;
  const taskStarted = new Promise<void>((resolve) => (started = resolve));
  const host = new SfnStandIn(dataDir, 'us-east-1', (fn) => fn());
  const endpoint = await host.listen();
  const slowSend = sqsSendMessageTask(async () => {
    order.push('task started');
    started();
    await sleep(300);
    order.push('task done');
  });
  const stateMachineArn = host.createStateMachine(new LocalWorkflow('scheduled-delivery', { SendQueueUrl: QUEUE, UndeliveredFunctionArn: 'undelivered' }, { [SQS_SEND_MESSAGE]: slowSend, [LAMBDA_INVOKE]: lambdaInvokeTask({}) }));
  host.resume();
  const client = new SFNClient({ region: 'us-east-1', endpoint, maxAttempts: 1 });
  await client.send(new StartExecutionCommand({ stateMachineArn, name: 'slow-task', input: input('k-slow', new Date()) }));
  await taskStarted;
  await host.close();
  order.push('closed');
  expect(order).toEqual(['task started', 'task done', 'closed']);
});
