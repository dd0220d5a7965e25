/**
 * The AWS calls one sent message costs, counted on local mode's handlers: what docs/deploying.md
 * prices. Sends MESSAGES messages (one recipient each, text only, no tracking, no webhook) through
 * the API with mailgun.js, waits until each has its `delivered` event, and counts every AWS SDK
 * call the platform made meanwhile, by command, with the DynamoDB items written and read and their
 * sizes. The handlers are the Lambda code; what local mode does in-process in AWS's place (the
 * SQS pollers handing messages to workers, DynamoDB Streams, SES publishing to SNS) is not an SDK
 * call here and is priced from its documented behaviour instead.
 *
 *   npx tsx bench/usage-per-message.ts
 */
import Mailgun from 'mailgun.js';
import { SES_REQUEST_TIMEOUT_MS } from '../functions/delivery/send-timing';
import { documentClient, s3Client, sesClient, sesSendClient, sfnClient, sqsClient } from '../functions/platform/aws-clients';
import { withEnv } from '../functions/platform/env';
import { eventually } from '../test/support/eventually';
import { watchCalls } from './lib/aws-calls';
import { BENCH_KEY, withLocalMode } from './lib/local';
import { print, table } from './lib/report';

const MESSAGES = 50;
/** How long after SES has the last message its notifications and the event stream take, with room to spare. */
const SETTLE_MS = 5000;

interface Tally {
  calls: number;
  /** DynamoDB items written or read, and their size in 1 KB write units / 4 KB read units. */
  items: number;
  units: number;
}

/** An item's size as DynamoDB counts it, near enough: the marshalled JSON's length. */
const sizeOf = (item: unknown) => Buffer.byteLength(JSON.stringify(item ?? {}));
const writeUnits = (item: unknown) => Math.max(1, Math.ceil(sizeOf(item) / 1024));
const readUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 4096));

/** The low-level DynamoDB operation a command is, for the DocumentClient's commands too. */
const OPERATIONS: Record<string, string> = {
  PutCommand: 'PutItem', PutItemCommand: 'PutItem', UpdateCommand: 'UpdateItem', UpdateItemCommand: 'UpdateItem', DeleteCommand: 'DeleteItem', DeleteItemCommand: 'DeleteItem',
  BatchWriteCommand: 'BatchWriteItem', BatchWriteItemCommand: 'BatchWriteItem', GetCommand: 'GetItem', GetItemCommand: 'GetItem', BatchGetCommand: 'BatchGetItem', BatchGetItemCommand: 'BatchGetItem',
  QueryCommand: 'Query',
};

function measure(command: string, input: Record<string, unknown>, output: Record<string, unknown> | undefined): Pick<Tally, 'items' | 'units'> {
  switch (OPERATIONS[command]) {
    case 'PutItem':
      return { items: 1, units: writeUnits(input['Item']) };
    case 'UpdateItem':
    case 'DeleteItem':
      // The item's size after the write is what counts; the platform's updated items (counters, claims) are small.
      return { items: 1, units: 1 };
    case 'BatchWriteItem': {
      const requests = Object.values(input['RequestItems'] as Record<string, Array<{ PutRequest?: { Item: unknown } }>>).flat();
      return { items: requests.length, units: requests.reduce((sum, r) => sum + writeUnits(r.PutRequest?.Item), 0) };
    }
    case 'GetItem':
      return { items: output?.['Item'] ? 1 : 0, units: readUnits(sizeOf(output?.['Item'])) };
    case 'BatchGetItem': {
      const items = Object.values((output?.['Responses'] ?? {}) as Record<string, unknown[]>).flat();
      return { items: items.length, units: items.reduce<number>((sum, item) => sum + readUnits(sizeOf(item)), 0) };
    }
    case 'Query': {
      const items = (output?.['Items'] ?? []) as unknown[];
      return { items: items.length, units: readUnits(items.reduce<number>((sum, item) => sum + sizeOf(item), 0)) };
    }
    default:
      return { items: 0, units: 0 };
  }
}

async function main(): Promise<void> {
  const tally = new Map<string, Tally>();
  await withLocalMode({ bench: 'usage per message' }, async ({ us, sandbox }) => {
    // The region's clients as its handlers get them (one per region and endpoint).
    const clients = withEnv(us.env, () => [documentClient(), s3Client(), sqsClient(), sfnClient(), sesClient(), sesSendClient(SES_REQUEST_TIMEOUT_MS)]);
    const mg = new Mailgun(FormData).client({ username: 'api', key: BENCH_KEY, url: us.url });
    const started = us.ses.sentTotal;
    const { calls } = await watchCalls(clients, async () => {
      for (let i = 0; i < MESSAGES; i++) {
        await mg.messages.create(sandbox, { from: `bench@${sandbox}`, to: `reader${i}@example.com`, subject: `Message ${i}`, text: 'Hello from the usage count.' });
      }
      // Waited for without a call of its own: SES (the stand-in) has every message, then its
      // notifications become `delivered` events and the event stream's consumers count them.
      await eventually(async () => us.ses.sentTotal - started >= MESSAGES || undefined, 60_000);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    });
    for (const call of calls) {
      const name = OPERATIONS[call.command] ?? call.command.replace(/Command$/, '');
      const entry = tally.get(name) ?? { calls: 0, items: 0, units: 0 };
      const { items, units } = measure(call.command, call.input, call.output);
      tally.set(name, { calls: entry.calls + 1, items: entry.items + items, units: entry.units + units });
    }
  });

  const rows = [...tally.entries()].sort(([a], [b]) => a.localeCompare(b));
  print(`AWS SDK calls per message (${MESSAGES} messages, one recipient each); units are DynamoDB write units (1 KB) or read units (4 KB, strongly consistent):`);
  print(table([['command', 'calls / message', 'items / message', 'units / message'], ...rows.map(([name, t]) => [name, (t.calls / MESSAGES).toFixed(2), (t.items / MESSAGES).toFixed(2), (t.units / MESSAGES).toFixed(2)])]));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
