import { randomUUID } from 'node:crypto';
import { Agent, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { TABLE_KEYS } from '../../functions/data/table';
import { compareSequence } from '../../functions/event-stream/process-batch';
import { EVENT_ITEM_KIND } from '../../functions/events/event-store';
import { awsJsonOperation, replyAwsJson } from './aws-json';
import { closeServer, listenOnLoopback, readBody, standInServer } from './http';

type Item = Record<string, AttributeValue>;

/**
 * DynamoDB Streams for local mode. dynalite has no streams, so this sits in front of it as the
 * endpoint the handlers use, passes every call through, and for each successful write of a new
 * event item (PutItem, or a put in BatchWriteItem) hands a NEW_IMAGE stream record to `publish`
 * before the caller gets its answer, as a stream captures every committed write. Publishing
 * into a durable local queue keeps the records across restarts.
 */
export class DynamoStreamProxy {
  private server?: Server;
  private readonly agent = new Agent({ keepAlive: true });
  private sequence = BigInt(Date.now()) * 1_000_000n;
  private readonly target: URL;

  constructor(
    target: string,
    private readonly tableName: string,
    private readonly region: string,
    private readonly publish: (records: DynamoDBRecord[]) => Promise<void>,
  ) {
    this.target = new URL(target);
  }

  async listen(): Promise<string> {
    // A failure to publish must fail the write as DynamoDB would, not the whole process.
    this.server = standInServer(
      (req, res) => this.forward(req, res),
      (res, error) => replyAwsJson(res, 500, { __type: 'com.amazonaws.dynamodb#InternalServerError', message: error.message }),
    );
    return listenOnLoopback(this.server);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await closeServer(this.server);
    this.agent.destroy();
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const target = this.target;
    const upstream = await new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const call = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent: this.agent },
        (reply) => void readBody(reply).then((data) => resolve({ status: reply.statusCode ?? 500, headers: reply.headers, body: data }), reject),
      );
      call.on('error', reject);
      call.end(body);
    }).catch((error: Error) => ({ status: 500, headers: {}, body: Buffer.from(JSON.stringify({ __type: 'com.amazonaws.dynamodb#InternalFailure', message: error.message })) }));

    if (upstream.status === 200) {
      const inserted = this.insertedItems(awsJsonOperation(req), body, upstream.body);
      if (inserted.length) await this.publish(inserted.map((item) => this.recordOf(item)));
    }
    res.writeHead(upstream.status, upstream.headers);
    res.end(upstream.body);
  }

  /** The streamed items a successful write call created. */
  private insertedItems(operation: string, body: Buffer, reply: Buffer): Item[] {
    if (operation !== 'PutItem' && operation !== 'BatchWriteItem') return [];
    let input: { TableName?: string; Item?: Item; RequestItems?: Record<string, Array<{ PutRequest?: { Item: Item } }>> };
    try {
      input = JSON.parse(body.toString('utf8')) as typeof input;
    } catch {
      return [];
    }
    const items =
      operation === 'PutItem'
        ? input.TableName === this.tableName && input.Item
          ? [input.Item]
          : []
        : (input.RequestItems?.[this.tableName] ?? []).flatMap((write) => (write.PutRequest ? [write.PutRequest.Item] : []));
    const events = items.filter((item) => item['kind']?.S === EVENT_ITEM_KIND);
    if (operation === 'PutItem' || !events.length) return events;
    // Unprocessed batch items come back to the caller, which writes them again: they are streamed then.
    const unprocessed = new Set(unprocessedOf(reply, this.tableName));
    return events.filter((item) => !unprocessed.has(keyOf(item)));
  }

  private recordOf(item: Item): DynamoDBRecord {
    this.sequence += 1n;
    const { partitionKey, sortKey } = TABLE_KEYS;
    return {
      eventID: randomUUID().replace(/-/g, ''),
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: this.region,
      eventSourceARN: `arn:aws:dynamodb:${this.region}:000000000000:table/${this.tableName}/stream/local`,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys: { [partitionKey]: item[partitionKey]!, [sortKey]: item[sortKey]! } as never,
        NewImage: item as never,
        SequenceNumber: String(this.sequence).padStart(21, '0'),
        SizeBytes: JSON.stringify(item).length,
        StreamViewType: 'NEW_IMAGE',
      },
    };
  }
}

const keyOf = (item: Item) => `${item[TABLE_KEYS.partitionKey]?.S}\n${item[TABLE_KEYS.sortKey]?.S}`;

/** The keys of the puts a BatchWriteItem reply hands back as unprocessed. */
function unprocessedOf(reply: Buffer, tableName: string): string[] {
  try {
    const out = JSON.parse(reply.toString('utf8')) as { UnprocessedItems?: Record<string, Array<{ PutRequest?: { Item: Item } }>> };
    return (out.UnprocessedItems?.[tableName] ?? []).flatMap((write) => (write.PutRequest ? [keyOf(write.PutRequest.Item)] : []));
  } catch {
    return [];
  }
}

/**
 * Runs a stream handler over stream records carried by a local queue (one record a message), in
 * sequence order, with the stream's failure contract: a reported failure fails that record and
 * every later one in the batch, which are redelivered.
 */
export function streamQueueWorker(handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batch = event.Records.map((message) => ({ messageId: message.messageId, record: JSON.parse(message.body) as DynamoDBRecord }));
    batch.sort((a, b) => compareSequence(a.record.dynamodb?.SequenceNumber ?? '', b.record.dynamodb?.SequenceNumber ?? ''));
    const result = await handler({ Records: batch.map((entry) => entry.record) });
    const firstFailed = result?.batchItemFailures?.[0]?.itemIdentifier;
    if (firstFailed === undefined) return { batchItemFailures: [] };
    const from = batch.findIndex((entry) => entry.record.dynamodb?.SequenceNumber === firstFailed);
    return { batchItemFailures: batch.slice(from < 0 ? 0 : from).map((entry) => ({ itemIdentifier: entry.messageId })) };
  };
}
