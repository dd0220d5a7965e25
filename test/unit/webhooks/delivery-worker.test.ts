import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withEnv } from '../../../functions/platform/env';
import { deliveryIdOf, type DeliveryJob } from '../../../functions/webhooks/delivery-job';
import { handler } from '../../../functions/webhooks/delivery-worker';

// The delivery worker's duplicate guard: the jobs of a batch that share an event are claimed with
// one conditional write, a delivery another message holds is dropped, and a failed claim fails
// only the jobs of its event. POSTs go to a receiver on loopback.
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

let server: Server;
let base: string;
let posts: string[];
beforeAll(async () => {
  server = createServer((req, res) => {
    posts.push(req.url!);
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const env = () => ({
  TABLE_NAME: 't',
  AWS_REGION: 'us-east-1',
  WEBHOOK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks',
  WEBHOOK_ALLOW_LOOPBACK_URLS: 'true',
  WEBHOOK_CONFIG_CACHE_SECONDS: '0',
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
});

const job = (eventId: string, path: string): DeliveryJob => ({
  deliveryId: deliveryIdOf(eventId, `${base}${path}`),
  accountId: 'acct',
  domain: 'mg.example.com',
  url: `${base}${path}`,
  webhook: 'delivered',
  event: { event: 'delivered', id: eventId, timestamp: 1 },
  attempt: 0,
});
const sqsEvent = (jobs: Array<[string, DeliveryJob | string]>): SQSEvent => ({
  Records: jobs.map(([messageId, body]) => ({ messageId, body: typeof body === 'string' ? body : JSON.stringify(body) }) as SQSEvent['Records'][number]),
});
const run = (jobs: Array<[string, DeliveryJob | string]>) => withEnv(env(), () => handler(sqsEvent(jobs)));
const failedIds = (result: { batchItemFailures: Array<{ itemIdentifier: string }> }) => result.batchItemFailures.map((f) => f.itemIdentifier).sort();
const claims = () => ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input as UpdateCommandInput);
const E1 = { pk: 'ACCT#acct#WHDELIVERY#e1#0', sk: 'CLAIMS' };
const refused = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  posts = [];
  // No signing key yet: the worker makes one.
  ddb.on(GetCommand).resolves({});
  ddb.on(PutCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'next' });
});

it("claims the deliveries of one event with one conditional write, and sends each once", async () => {
  expect(failedIds(await run([['m1', job('e1', '/a')], ['m2', job('e1', '/b')], ['m3', job('e2', '/a')], ['bad', 'not json']]))).toEqual([]);
  expect(posts.sort()).toEqual(['/a', '/a', '/b']);
  // One item per event, naming the message that holds each of its deliveries, each set only if absent.
  const written = claims();
  expect(written.map((c) => c.Key)).toEqual([E1, { pk: 'ACCT#acct#WHDELIVERY#e2#0', sk: 'CLAIMS' }]);
  expect(written[0]).toMatchObject({
    UpdateExpression: 'SET #c0 = :c0, #c1 = :c1, #x0 = :x0',
    ConditionExpression: 'attribute_not_exists(#c0) AND attribute_not_exists(#c1)',
    ExpressionAttributeNames: { '#c0': `d_${job('e1', '/a').deliveryId}`, '#c1': `d_${job('e1', '/b').deliveryId}`, '#x0': 'ttl' },
    ExpressionAttributeValues: { ':c0': 'm1', ':c1': 'm2' },
  });
});

it('goes on with a delivery this very message claimed when it was received before', async () => {
  const [a, b] = [job('e1', '/a'), job('e1', '/b')];
  ddb.on(UpdateCommand, { Key: E1 }).rejectsOnce(refused()).resolves({});
  ddb.on(GetCommand, { Key: E1 }).resolves({ Item: { ...E1, [`d_${a.deliveryId}`]: 'm1' } });
  // m1 was received before and holds its claim; m2 is new to the item.
  expect(failedIds(await run([['m1', a], ['m2', b]]))).toEqual([]);
  expect(posts.sort()).toEqual(['/a', '/b']);
  expect(claims()[1]).toMatchObject({ Key: E1, ConditionExpression: 'attribute_not_exists(#c0)', ExpressionAttributeNames: { '#c0': `d_${b.deliveryId}` }, ExpressionAttributeValues: { ':c0': 'm2' } });
});

it('drops a copy whose delivery another message holds, and goes on with those it holds or takes', async () => {
  const [a, b, c] = [job('e1', '/a'), job('e1', '/b'), job('e1', '/c')];
  ddb.on(UpdateCommand, { Key: E1 }).rejectsOnce(refused()).resolves({});
  ddb.on(GetCommand, { Key: E1 }).resolves({ Item: { [`d_${a.deliveryId}`]: 'someone-else', [`d_${b.deliveryId}`]: 'm2' } });
  expect(failedIds(await run([['m1', a], ['m2', b], ['m3', c]]))).toEqual([]);
  expect(posts.sort()).toEqual(['/b', '/c']);
  // The second round tries only the delivery nobody held.
  expect(claims()[1]!.ExpressionAttributeValues).toMatchObject({ ':c0': 'm3' });
  expect(Object.keys(claims()[1]!.ExpressionAttributeNames!)).toEqual(['#c0', '#x0']);
});

it('sends one of two copies of a delivery in the same batch', async () => {
  expect(failedIds(await run([['m1', job('e1', '/a')], ['m2', job('e1', '/a')]]))).toEqual([]);
  expect(posts).toEqual(['/a']);
  expect(claims()).toHaveLength(1);
});

it('fails, for redelivery, only the jobs of the event whose claim failed', async () => {
  ddb.on(UpdateCommand, { Key: E1 }).rejects(new Error('throttled'));
  expect(failedIds(await run([['m1', job('e1', '/a')], ['m2', job('e1', '/b')], ['m3', job('e2', '/a')]]))).toEqual(['m1', 'm2']);
  expect(posts).toEqual(['/a']);
});

it('claims retries per attempt, and hands on a job not yet due without claiming it', async () => {
  const retry = { ...job('e1', '/a'), attempt: 2 };
  const later = { ...job('e2', '/a'), attempt: 1, notBefore: Date.now() + 3_600_000 };
  expect(failedIds(await run([['m1', retry], ['m2', later]]))).toEqual([]);
  expect(claims().map((c) => c.Key)).toEqual([{ pk: 'ACCT#acct#WHDELIVERY#e1#2', sk: 'CLAIMS' }]);
  expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
  expect(posts).toEqual(['/a']);
});
