import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { placeholdersOf } from '../../../lib/constructs/workflows';
import { WORKFLOWS_DIR } from '../../../lib/paths';
import { LAMBDA_INVOKE, lambdaInvokeTask, LocalWorkflow, SQS_SEND_MESSAGE, sqsSendMessageTask, substitute, type Json } from '../../../lib/local/workflow-runner';

const definitions = fs.readdirSync(WORKFLOWS_DIR).filter((f) => f.endsWith('.asl.json'));

describe('the local workflow runner', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailplane-runner-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('finds the definitions CDK deploys', () => {
    expect(definitions).toContain('scheduled-delivery.asl.json');
  });

  test('substitutes ${Token} placeholders as DefinitionSubstitutions does, and refuses missing ones', () => {
    expect(substitute('{"a":"${One}","b":"${Two}-${One}"}', { One: '1', Two: 'x"y' })).toBe('{"a":"1","b":"x\\"y-1"}');
    expect(() => substitute('{"a":"${One}","b":"${Two}"}', { One: '1' })).toThrow('no substitution for ${Two}');
  });

  test.each(definitions)('%s: the runner and the CDK loader see the same placeholders, and it validates', (file) => {
    const text = fs.readFileSync(path.join(WORKFLOWS_DIR, file), 'utf8');
    const values = Object.fromEntries(placeholdersOf(text).map((name) => [name, `https://example.com/${name}`]));
    expect(substitute(text, values)).not.toMatch(/\$\{/);
    const tasks = Object.fromEntries([...text.matchAll(/"Resource":\s*"([^"]+)"/g)].map((m) => [m[1]!, async () => null]));
    expect(() => new LocalWorkflow(file.replace(/\.asl\.json$/, ''), values, tasks)).not.toThrow();
  });

  test('refuses an invalid definition when it is loaded, as Step Functions refuses to create it', () => {
    fs.writeFileSync(path.join(dir, 'endless.asl.json'), JSON.stringify({ StartAt: 'W', States: { W: { Type: 'Wait', TimestampPath: '$.at' } } }));
    expect(() => new LocalWorkflow('endless', {}, {}, dir)).toThrow(/definition is invalid/);
  });

  test('loads a definition unchecked when told to, as the tests\' hosts do (this file checks theirs)', () => {
    fs.writeFileSync(path.join(dir, 'unchecked.asl.json'), JSON.stringify({ StartAt: 'W', States: { W: { Type: 'Wait', TimestampPath: '$.at' } } }));
    expect(() => new LocalWorkflow('unchecked', {}, {}, dir, { validate: false })).not.toThrow();
  });

  test('refuses a Task state whose resource has no local handler, rather than calling AWS', () => {
    fs.writeFileSync(
      path.join(dir, 'lambda.asl.json'),
      JSON.stringify({ StartAt: 'Call', States: { Call: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:123456789012:function:f', End: true } } }),
    );
    expect(() => new LocalWorkflow('lambda', {}, {}, dir)).toThrow(/no local handler for the resource arn:aws:lambda:.*of Task state Call/);
  });

  test('runs scheduled-delivery: waits until deliverAt, then sends the send job (without deliverAt) to the queue', async () => {
    const sends: Array<{ queueUrl: string; body: string; at: number }> = [];
    const workflow = new LocalWorkflow(
      'scheduled-delivery',
      { SendQueueUrl: 'https://queue.example/send', UndeliveredFunctionArn: 'undelivered' },
      { [SQS_SEND_MESSAGE]: sqsSendMessageTask(async (queueUrl, body) => void sends.push({ queueUrl, body, at: Date.now() })), [LAMBDA_INVOKE]: lambdaInvokeTask({}) },
    );
    const deliverAt = new Date(Date.now() + 300);
    const execution = workflow.run({ storageKey: 'k1', attempt: 0, deliverAt: deliverAt.toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sends).toEqual([]);
    await execution.result;
    expect(sends).toEqual([{ queueUrl: 'https://queue.example/send', body: JSON.stringify({ storageKey: 'k1', attempt: 0 }), at: expect.any(Number) }]);
    expect(sends[0]!.at).toBeGreaterThanOrEqual(deliverAt.getTime());
  });

  test('an aborted execution stops in its Wait and sends nothing', async () => {
    const send = jest.fn(async () => undefined);
    const workflow = new LocalWorkflow('scheduled-delivery', { SendQueueUrl: 'https://queue.example/send', UndeliveredFunctionArn: 'undelivered' }, { [SQS_SEND_MESSAGE]: sqsSendMessageTask(send), [LAMBDA_INVOKE]: lambdaInvokeTask({}) });
    const execution = workflow.run({ storageKey: 'k2', attempt: 0, deliverAt: new Date(Date.now() + 60_000).toISOString() });
    execution.abort();
    await expect(execution.result).resolves.toBeNull();
    expect(send).not.toHaveBeenCalled();
  });

  test('the SQS integration sends a JSON body serialized and a string body as it is, and answers as SQS does', async () => {
    const bodies: string[] = [];
    const task = sqsSendMessageTask(async (_url, body) => void bodies.push(body));
    const result = (await task({ QueueUrl: 'https://q', MessageBody: { a: 1 } })) as Record<string, Json>;
    await task({ QueueUrl: 'https://q', MessageBody: 'plain' });
    expect(bodies).toEqual(['{"a":1}', 'plain']);
    expect(result).toEqual({ MessageId: expect.any(String), MD5OfMessageBody: 'bb6cb5c68df4652941caf652a366f2d8' });
    await expect(task({ MessageBody: 'x' })).rejects.toThrow(/QueueUrl/);
  });
});
