import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withEnv } from '../../../functions/platform/env';
import { deliveryIdOf, type DeliveryJob } from '../../../functions/webhooks/delivery-job';
import { handler } from '../../../functions/webhooks/delivery-worker';

// The delivery worker's duplicate guard: an event's deliveries (one message from fan-out, or
// several jobs of a batch) are claimed with one conditional write, a delivery another message
// holds is dropped, and a failed claim or follow-up fails only the messages it concerns, without
// sending again what they already handled. POSTs go to a receiver on loopback.
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

let server: Server;
let base: string;
let posts: string[];
let receiverAnswers: Record<string, number>;
beforeAll(async () => {
  server = createServer((req, res) => {
    posts.push(req.url!);
    req.resume();
    req.on('end', () => res.writeHead(receiverAnswers[req.url!] ?? 200).end('ok'));
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
/** The claim writes in order: puts of a first attempt's new item, updates of an existing one (or a retry's). */
const claims = () =>
  ddb
    .calls()
    .map((c) => c.args[0])
    .filter((command) => command instanceof PutCommand || command instanceof UpdateCommand)
    .map((command) => command.input as { Item?: Record<string, unknown>; Key?: Record<string, unknown>; ConditionExpression?: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> })
    .filter((input) => String((input.Item ?? input.Key)?.['pk']).includes('#WHDELIVERY#'));
const E1 = { pk: 'ACCT#acct#WHDELIVERY#e1#0', sk: 'CLAIMS' };
const attribute = (eventId: string, path: string) => `d_${job(eventId, path).deliveryId}`;
const refused = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

function resetMocks() {
  ddb.reset();
  sqs.reset();
  posts = [];
  receiverAnswers = {};
  // No signing key yet: the worker makes one.
  ddb.on(GetCommand).resolves({});
  ddb.on(PutCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'next' });
}
beforeEach(resetMocks);

it("claims and sends all of an event's URLs from its one message, with one write of a new item", async () => {
  const message: DeliveryJob = { ...job('e1', '/a'), alsoTo: [{ url: `${base}/b`, deliveryId: job('e1', '/b').deliveryId }] };
  expect(failedIds(await run([['m1', message], ['m2', job('e2', '/a')], ['bad', 'not json']]))).toEqual([]);
  expect(posts.sort()).toEqual(['/a', '/a', '/b']);
  const written = claims();
  expect(written).toHaveLength(2);
  expect(written[0]).toMatchObject({ Item: { ...E1, [attribute('e1', '/a')]: 'm1', [attribute('e1', '/b')]: 'm1' }, ConditionExpression: 'attribute_not_exists(pk)' });
  expect(written[1]).toMatchObject({ Item: { pk: 'ACCT#acct#WHDELIVERY#e2#0', [attribute('e2', '/a')]: 'm2' } });
});

it('claims the jobs of a batch that share an event with one write', async () => {
  expect(failedIds(await run([['m1', job('e1', '/a')], ['m2', job('e1', '/b')]]))).toEqual([]);
  expect(posts.sort()).toEqual(['/a', '/b']);
  expect(claims()).toHaveLength(1);
  expect(claims()[0]!.Item).toMatchObject({ [attribute('e1', '/a')]: 'm1', [attribute('e1', '/b')]: 'm2' });
});

it('adds to an existing item, and goes on with a delivery this very message claimed when it was received before', async () => {
  ddb.on(PutCommand, { Item: E1 }).rejects(refused());
  ddb.on(GetCommand, { Key: E1 }).resolves({ Item: { ...E1, [attribute('e1', '/a')]: 'm1' } });
  // m1 was received before and holds its claim; m2 is new to the item.
  expect(failedIds(await run([['m1', job('e1', '/a')], ['m2', job('e1', '/b')]]))).toEqual([]);
  expect(posts.sort()).toEqual(['/a', '/b']);
  expect(claims()[1]).toMatchObject({
    Key: E1,
    ConditionExpression: 'attribute_not_exists(#a0)',
    ExpressionAttributeNames: { '#a0': attribute('e1', '/b'), '#a1': 'ttl' },
    ExpressionAttributeValues: expect.objectContaining({ ':v0': 'm2' }),
  });
});

it('drops a copy whose delivery another message holds, and goes on with those it holds or takes', async () => {
  ddb.on(PutCommand, { Item: E1 }).rejects(refused());
  ddb.on(GetCommand, { Key: E1 }).resolves({ Item: { [attribute('e1', '/a')]: 'someone-else', [attribute('e1', '/b')]: 'm2' } });
  expect(failedIds(await run([['m1', job('e1', '/a')], ['m2', job('e1', '/b')], ['m3', job('e1', '/c')]]))).toEqual([]);
  expect(posts.sort()).toEqual(['/b', '/c']);
  // The second round tries only the delivery nobody held.
  expect(claims()[1]).toMatchObject({ ExpressionAttributeNames: { '#a0': attribute('e1', '/c'), '#a1': 'ttl' }, ExpressionAttributeValues: expect.objectContaining({ ':v0': 'm3' }) });
});

it('sends one of two copies of a delivery in the same batch', async () => {
  expect(failedIds(await run([['m1', job('e1', '/a')], ['m2', job('e1', '/a')]]))).toEqual([]);
  expect(posts).toEqual(['/a']);
  expect(claims()).toHaveLength(1);
});

it('comes back for a URL whose follow-up failed, marking those it handled so that its redelivery skips them', async () => {
  const message: DeliveryJob = { ...job('e1', '/a'), alsoTo: [{ url: `${base}/down`, deliveryId: job('e1', '/down').deliveryId }] };
  receiverAnswers = { '/down': 500 };
  sqs.on(SendMessageCommand).rejects(new Error('SQS unavailable'));
  expect(failedIds(await run([['m1', message]]))).toEqual(['m1']);
  expect(posts.sort()).toEqual(['/a', '/down']);
  // /a is marked handled, only while this message still holds it.
  expect(claims()[1]).toMatchObject({
    Key: E1,
    ConditionExpression: '#e0 = :e0',
    ExpressionAttributeNames: { '#e0': attribute('e1', '/a'), '#a0': attribute('e1', '/a') },
    ExpressionAttributeValues: { ':e0': 'm1', ':v0': 'handled' },
  });

  // The redelivery finds /a handled and /down still its own: only /down is tried again.
  resetMocks();
  receiverAnswers = { '/down': 500 };
  ddb.on(PutCommand, { Item: E1 }).rejects(refused());
  ddb.on(GetCommand, { Key: E1 }).resolves({ Item: { [attribute('e1', '/a')]: 'handled', [attribute('e1', '/down')]: 'm1' } });
  expect(failedIds(await run([['m1', message]]))).toEqual([]);
  expect(posts).toEqual(['/down']);
  // Its retry is a message of its own, for that URL only.
  const retry = JSON.parse(sqs.commandCalls(SendMessageCommand).at(-1)!.args[0].input.MessageBody!) as DeliveryJob;
  expect(retry).toMatchObject({ url: `${base}/down`, attempt: 1 });
  expect(retry.alsoTo).toBeUndefined();
});

it('fails, for redelivery, only the messages of the event whose claim failed', async () => {
  ddb.on(PutCommand, { Item: E1 }).rejects(new Error('throttled'));
  expect(failedIds(await run([['m1', job('e1', '/a')], ['m2', job('e1', '/b')], ['m3', job('e2', '/a')]]))).toEqual(['m1', 'm2']);
  expect(posts).toEqual(['/a']);
});

it('claims a retry by setting its attribute if absent, and hands on a job not yet due without claiming it', async () => {
  const retry = { ...job('e1', '/a'), attempt: 2 };
  const later = { ...job('e2', '/a'), attempt: 1, notBefore: Date.now() + 3_600_000 };
  expect(failedIds(await run([['m1', retry], ['m2', later]]))).toEqual([]);
  expect(claims()).toEqual([expect.objectContaining({ Key: { pk: 'ACCT#acct#WHDELIVERY#e1#2', sk: 'CLAIMS' }, ConditionExpression: 'attribute_not_exists(#a0)' })]);
  expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
  expect(posts).toEqual(['/a']);
});
