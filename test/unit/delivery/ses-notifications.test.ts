import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { TAG_STORAGE } from '../../../functions/delivery/claims';
import { handler } from '../../../functions/delivery/ses-notifications';
import { withEnv } from '../../../functions/platform/env';

// The SES notifications worker reads and writes a whole SQS batch at once: one consistent batch
// read of the messages and claims, one batch write of the events, and a conditional write only
// for the claims still 'sending'. Failures fail only the notifications they concern.
const ddb = mockClient(DynamoDBDocumentClient);
const env = { TABLE_NAME: 't', AWS_REGION: 'us-east-1' };

const record = (storageKey: string) => ({
  pk: `MSG#${storageKey}`,
  sk: 'MSG',
  storageKey,
  accountId: 'acct',
  domain: 'mg.example.com',
  messageId: '<m@mg.example.com>',
  from: 'f@mg.example.com',
  subject: 's',
  recipients: ['a@example.com'],
  to: 'a@example.com',
  tags: [],
  userVariables: {},
  attachments: [],
  size: 10,
  testMode: false,
  createdAt: new Date().toISOString(),
  ttl: Math.ceil(Date.now() / 1000) + 3600,
});

const notification = (storageKey: string, eventType: 'Delivery' | 'Bounce', recipient = 'A@example.com') => {
  const at = new Date().toISOString();
  const mail = { messageId: `ses-${storageKey}-${eventType}`, timestamp: at, destination: [recipient], tags: { [TAG_STORAGE]: [storageKey] } };
  const detail =
    eventType === 'Delivery'
      ? { delivery: { timestamp: at, recipients: [recipient], smtpResponse: '250 OK' } }
      : { bounce: { timestamp: at, bounceType: 'Transient', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: recipient, status: '4.4.7' }] } };
  return JSON.stringify({ Type: 'Notification', Message: JSON.stringify({ eventType, mail, ...detail }) });
};

const sqsEvent = (bodies: string[]): SQSEvent => ({ Records: bodies.map((body, i) => ({ messageId: `m${i}`, body }) as SQSEvent['Records'][number]) });
const run = (bodies: string[]) => withEnv(env, () => handler(sqsEvent(bodies)));
const failedIds = (result: { batchItemFailures: Array<{ itemIdentifier: string }> }) => result.batchItemFailures.map((f) => f.itemIdentifier);
const written = () => ddb.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems!['t']!).map((w) => w.PutRequest!.Item!);

beforeEach(() => {
  ddb.reset();
  ddb.on(BatchWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(GetCommand).resolves({});
  ddb.on(PutCommand).resolves({});
});

it('reads every message and claim of a batch in one consistent call and writes all its events in one', async () => {
  ddb.on(BatchGetCommand).resolves({ Responses: { t: [record('k1'), record('k2'), { pk: 'MSG#k1', sk: 'RCPT#a@example.com', state: 'done' }] } });
  expect(failedIds(await run([notification('k1', 'Delivery'), notification('k2', 'Delivery'), notification('gone', 'Delivery')]))).toEqual([]);

  const reads = ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems!['t']!);
  expect(reads).toHaveLength(1);
  expect(reads[0]!.ConsistentRead).toBe(true);
  expect(reads[0]!.Keys).toEqual(
    expect.arrayContaining([
      { pk: 'MSG#k1', sk: 'MSG' },
      { pk: 'MSG#k2', sk: 'MSG' },
      { pk: 'MSG#gone', sk: 'MSG' },
      { pk: 'MSG#k1', sk: 'RCPT#a@example.com' },
      { pk: 'MSG#k2', sk: 'RCPT#a@example.com' },
    ]),
  );
  expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(1);
  // The unknown message gets no event; the others one each, with the record's fields but none of its keys.
  expect(written().map((item) => (item['data'] as { event: string; recipient: string; storage: { key: string } }).storage.key).sort()).toEqual(['k1', 'k2']);
  expect(written().every((item) => (item['data'] as { recipient: string }).recipient === 'a@example.com')).toBe(true);
  // No claim was left 'sending': nothing to settle.
  expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
});

it("settles only a claim read 'sending', still conditionally", async () => {
  ddb.on(BatchGetCommand).resolves({ Responses: { t: [record('k1'), record('k2'), { pk: 'MSG#k1', sk: 'RCPT#a@example.com', state: 'sending' }, { pk: 'MSG#k2', sk: 'RCPT#a@example.com', state: 'failing' }] } });
  expect(failedIds(await run([notification('k1', 'Delivery'), notification('k2', 'Delivery')]))).toEqual([]);
  const updates = ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
  expect(updates).toHaveLength(1);
  expect(updates[0]).toMatchObject({ Key: { pk: 'MSG#k1', sk: 'RCPT#a@example.com' }, ConditionExpression: '#e0 = :e0', ExpressionAttributeValues: { ':e0': 'sending', ':v0': 'done' } });
});

it('writes no event for a claim a worker took over between the read and the settling: its "outcome unknown" failure is final', async () => {
  ddb.on(BatchGetCommand).resolves({ Responses: { t: [record('k1'), { pk: 'MSG#k1', sk: 'RCPT#a@example.com', state: 'sending' }] } });
  ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
  ddb.on(GetCommand).resolves({ Item: { pk: 'MSG#k1', sk: 'RCPT#a@example.com', state: 'failing' } });
  expect(failedIds(await run([notification('k1', 'Delivery')]))).toEqual([]);
  expect(written()).toHaveLength(0);
});

it("writes the event for a claim its own sender marked done between the read and the settling", async () => {
  ddb.on(BatchGetCommand).resolves({ Responses: { t: [record('k1'), { pk: 'MSG#k1', sk: 'RCPT#a@example.com', state: 'sending' }] } });
  ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
  ddb.on(GetCommand).resolves({ Item: { pk: 'MSG#k1', sk: 'RCPT#a@example.com', state: 'done' } });
  expect(failedIds(await run([notification('k1', 'Delivery')]))).toEqual([]);
  expect(written()).toHaveLength(1);
});

it('fails, for redelivery, the notifications whose events a failed batch write carried, and only those', async () => {
  ddb.on(BatchGetCommand).resolves({ Responses: { t: [record('k1'), record('k2')] } });
  ddb.on(BatchWriteCommand).rejects(new Error('throttled'));
  expect(failedIds(await run([notification('k1', 'Delivery'), 'not json', notification('gone', 'Delivery'), notification('k2', 'Bounce')]))).toEqual(['m0', 'm1', 'm3']);
});

it('tries a batch write the table refused once per notification, so the one it refuses fails alone', async () => {
  ddb.on(BatchGetCommand).resolves({ Responses: { t: [record('k1'), record('k2'), record('k3')] } });
  ddb.on(BatchWriteCommand).callsFake((input: { RequestItems: Record<string, Array<{ PutRequest: { Item: { data: { storage: { key: string } } } } }>> }) => {
    if (input.RequestItems['t']!.some((w) => w.PutRequest.Item.data.storage.key === 'k2')) throw new Error('Item size has exceeded the maximum allowed size');
    return {};
  });
  expect(failedIds(await run([notification('k1', 'Delivery'), notification('k2', 'Delivery'), notification('k3', 'Delivery')]))).toEqual(['m1']);
  // The batch, then each notification on its own.
  expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(4);
});

it('fails every notification that needed the batch read when it fails', async () => {
  ddb.on(BatchGetCommand).rejects(new Error('unavailable'));
  expect(failedIds(await run([notification('k1', 'Delivery'), JSON.stringify({ eventType: 'Delivery' })]))).toEqual(['m0', 'm1']);
  expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
});

it('fails a notification alone, before its event is written, when settling its claim fails', async () => {
  ddb.on(BatchGetCommand).resolves({ Responses: { t: [record('k1'), record('k2'), { pk: 'MSG#k2', sk: 'RCPT#a@example.com', state: 'sending' }] } });
  ddb.on(UpdateCommand).rejects(new Error('throttled'));
  expect(failedIds(await run([notification('k1', 'Delivery'), notification('k2', 'Delivery')]))).toEqual(['m1']);
  expect(written().map((item) => (item['data'] as { storage: { key: string } }).storage.key)).toEqual(['k1']);
});

it('fails a notification alone when adding its suppression fails', async () => {
  ddb.on(BatchGetCommand).resolves({ Responses: { t: [record('k1'), record('k2')] } });
  ddb.on(PutCommand).rejects(new Error('throttled'));
  ddb.on(UpdateCommand).rejects(new Error('throttled'));
  const bounce = JSON.parse(JSON.parse(notification('k2', 'Bounce')).Message);
  bounce.bounce.bounceType = 'Permanent';
  expect(failedIds(await run([notification('k1', 'Delivery'), JSON.stringify({ Type: 'Notification', Message: JSON.stringify(bounce) })]))).toEqual(['m1']);
  expect(written()).toHaveLength(2);
});
