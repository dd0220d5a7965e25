import type { SQSEvent } from 'aws-lambda';
import { SqsStandIn, type QueueOptions } from '../../../lib/local/sqs-standin';

// When the SQS stand-in hands messages to a queue's worker: as soon as it has any and a free
// invocation (Lambda's SQS poller), or, with a batching window, once a batch is full or the window
// has passed (Lambda's stream and windowed event sources). Fake timers: no waiting on the clock.
let sqs: SqsStandIn;
let batches: string[][];
let finish: Array<() => void>;

beforeEach(() => {
  jest.useFakeTimers();
  batches = [];
  finish = [];
  sqs = new SqsStandIn(undefined, 'us-east-1', (fn) => fn());
});
afterEach(() => {
  jest.useRealTimers();
});

/** A queue whose worker records each batch and ends when the test says so. */
function queue(options: Partial<QueueOptions> = {}): string {
  const url = sqs.createQueue('q', { visibilityTimeoutSeconds: 30, batchSize: 3, ...options }, (event: SQSEvent) => {
    batches.push(event.Records.map((r) => r.body));
    return new Promise((resolve) => finish.push(() => resolve({ batchItemFailures: [] })));
  });
  sqs.start();
  return url;
}

/** Lets pending immediates and promise callbacks run, without reaching the 50 ms timer. */
const settle = async () => {
  await jest.advanceTimersByTimeAsync(1);
};

it('invokes the worker as soon as a message arrives, not on the next tick', async () => {
  const url = queue();
  sqs.send(url, 'a');
  await settle();
  expect(batches).toEqual([['a']]);
});

it('takes the next batch as soon as an invocation ends', async () => {
  const url = queue();
  sqs.send(url, 'a');
  await settle();
  for (const body of ['b', 'c', 'd', 'e']) sqs.send(url, body);
  await settle();
  // One invocation at a time: the rest waits for it, then goes at once.
  expect(batches).toEqual([['a']]);
  finish.shift()!();
  await settle();
  expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
});

describe('with a batching window', () => {
  it('waits for a full batch or the end of the window', async () => {
    const url = queue({ batchingWindowSeconds: 1 });
    sqs.send(url, 'a');
    await jest.advanceTimersByTimeAsync(500);
    expect(batches).toEqual([]);
    await jest.advanceTimersByTimeAsync(550);
    expect(batches).toEqual([['a']]);
  });

  it('goes at once when a batch is full', async () => {
    const url = queue({ batchingWindowSeconds: 1 });
    sqs.send(url, 'a');
    await jest.advanceTimersByTimeAsync(100);
    sqs.send(url, 'b');
    sqs.send(url, 'c');
    await settle();
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('does not hold back messages offered again after a failure', async () => {
    const url = sqs.createQueue('r', { visibilityTimeoutSeconds: 30, batchSize: 3, batchingWindowSeconds: 1, retryDelaySeconds: 0.1 }, async (event: SQSEvent) => {
      batches.push(event.Records.map((r) => r.body));
      return { batchItemFailures: batches.length === 1 ? [{ itemIdentifier: event.Records[0]!.messageId }] : [] };
    });
    sqs.start();
    sqs.send(url, 'a');
    await jest.advanceTimersByTimeAsync(1050);
    expect(batches).toEqual([['a']]);
    // Offered again after its retry delay and the next tick, not after another window.
    await jest.advanceTimersByTimeAsync(200);
    expect(batches).toEqual([['a'], ['a']]);
  });
});
