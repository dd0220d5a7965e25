import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { acceptMessage, scheduleExecutionName } from '../../../functions/messages/accept';
import { withEnv } from '../../../functions/platform/env';
import type { DomainItem } from '../../../functions/domains/domain-store';

// The enqueue branch of acceptance: now on the send queue, or later through a scheduled-delivery execution.
const s3 = mockClient(S3Client);
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const sfn = mockClient(SFNClient);

const STATE_MACHINE = 'arn:aws:states:us-east-1:123456789012:stateMachine:scheduled-delivery';
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/send';
const env = { TABLE_NAME: 't', AWS_REGION: 'us-east-1', SEND_QUEUE_URL: QUEUE, SCHEDULE_STATE_MACHINE_ARN: STATE_MACHINE };
const domain = { name: 'mg.example.com', messageTtl: 3600 } as DomainItem;

const record = (storageKey: string, deliverAt?: Date) => ({
  storageKey,
  accountId: 'acct',
  domain: 'mg.example.com',
  messageId: '<m@mg.example.com>',
  from: 'f@mg.example.com',
  subject: 's',
  recipients: ['a@example.com', 'b@example.com'],
  to: 'a@example.com',
  tags: [],
  userVariables: {},
  attachments: [],
  testMode: false,
  deliverAt: deliverAt?.toISOString(),
});
const accept = (r: ReturnType<typeof record>, raw = env) => withEnv(raw, () => acceptMessage(r, Buffer.from('MIME'), domain));
/** Every item put, in order: the record and the accepted events go in batch writes. */
const batchPuts = () => ddb.commandCalls(BatchWriteCommand).flatMap((c) => Object.values(c.args[0].input.RequestItems!).flat()).map((write) => write.PutRequest!.Item!);
const stored = () => batchPuts().find((item) => item['sk'] === 'MSG')!;
type EventData = { event: string; message?: { 'scheduled-for'?: number }; 'delivery-status'?: { message: string } };
const events = () => [...batchPuts(), ...ddb.commandCalls(PutCommand).map((c) => c.args[0].input.Item!)].map((item) => item['data'] as EventData | undefined).filter((data) => data !== undefined);

beforeEach(() => {
  for (const client of [s3, ddb, sqs, sfn]) client.reset();
  s3.on(PutObjectCommand).resolves({});
  ddb.on(PutCommand).resolves({});
  ddb.on(BatchWriteCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
  sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn', startDate: new Date() });
});

it('starts one execution named by the storage key, with the send job and deliverAt, instead of queuing', async () => {
  const at = new Date(Date.now() + 3600_000);
  await accept(record('key1', at));
  expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  expect(sfn.commandCalls(StartExecutionCommand).map((c) => c.args[0].input)).toEqual([
    { stateMachineArn: STATE_MACHINE, name: 'deliver-key1', input: JSON.stringify({ storageKey: 'key1', attempt: 0, deliverAt: at.toISOString() }) },
  ]);
  expect(scheduleExecutionName('key1')).toBe('deliver-key1');
  // Kept for message_ttl from its delivery time; accepted events say when it is due.
  expect(stored()).toMatchObject({ deliverAt: at.toISOString(), ttl: Math.ceil(at.getTime() / 1000) + 3600 });
  expect(events().map((e) => [e.event, e.message?.['scheduled-for']])).toEqual([
    ['accepted', Math.floor(at.getTime() / 1000)],
    ['accepted', Math.floor(at.getTime() / 1000)],
  ]);
});

it('treats an execution that already exists under its name as started (a retried start)', async () => {
  sfn.on(StartExecutionCommand).rejects(Object.assign(new Error('Execution Already Exists'), { name: 'ExecutionAlreadyExists' }));
  await expect(accept(record('key2', new Date(Date.now() + 60_000)))).resolves.toMatchObject({ id: '<m@mg.example.com>' });
  expect(events().map((e) => e.event)).toEqual(['accepted', 'accepted']);
});

it('gives every recipient a final failed event when the execution cannot be started', async () => {
  sfn.on(StartExecutionCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
  await expect(accept(record('key3', new Date(Date.now() + 60_000)))).rejects.toThrow('throttled');
  expect(events().map((e) => [e.event, e['delivery-status']?.message])).toEqual([
    ['accepted', undefined],
    ['accepted', undefined],
    ['failed', 'The message could not be scheduled'],
    ['failed', 'The message could not be scheduled'],
  ]);
});

it('records nothing when the MIME cannot be stored', async () => {
  s3.on(PutObjectCommand).rejects(new Error('s3 down'));
  await expect(accept(record('key6'))).rejects.toThrow('s3 down');
  expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
  expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
});

it('gives every recipient a final failed event when the record and accepted events cannot be written', async () => {
  // The first batch write fails after DynamoDB may have taken part of it; the next one is the settlement.
  ddb.on(BatchWriteCommand).rejectsOnce(new Error('table unavailable')).resolves({});
  await expect(accept(record('key7'))).rejects.toThrow('table unavailable');
  expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  const settlement = ddb.commandCalls(BatchWriteCommand)[1]!.args[0].input.RequestItems!;
  expect(Object.values(settlement).flat().map((w) => [(w.PutRequest!.Item!['data'] as EventData).event, (w.PutRequest!.Item!['data'] as EventData)['delivery-status']?.message])).toEqual([
    ['failed', 'The message could not be recorded'],
    ['failed', 'The message could not be recorded'],
  ]);
});

it('queues at once, unscheduled, when the delivery time has passed', async () => {
  await accept(record('key4', new Date(Date.now() - 1000)));
  expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  expect(sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual([{ QueueUrl: QUEUE, MessageBody: JSON.stringify({ storageKey: 'key4', attempt: 0 }) }]);
  expect(stored().deliverAt).toBeUndefined();
  // The record and both accepted events: one batch write, no separate put.
  expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(1);
  expect(batchPuts()).toHaveLength(3);
  expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  expect(events().every((e) => e.message?.['scheduled-for'] === undefined)).toBe(true);
});

it('refuses a scheduled message, storing nothing, where no scheduling workflow is configured', async () => {
  const { SCHEDULE_STATE_MACHINE_ARN: _, ...unscheduled } = env;
  await expect(accept(record('key5', new Date(Date.now() + 60_000)), unscheduled as typeof env)).rejects.toMatchObject({ status: 400 });
  expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  // The record and accepted events go in batch writes: none may have been made either.
  expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
});
