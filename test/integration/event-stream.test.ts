import { EVENT_CONSUMERS } from '../../functions/event-stream/handler';
import { streamHandler, type EventConsumer } from '../../functions/event-stream/process-batch';
import type { RecordedEvent } from '../../functions/events/event-store';
import type { LocalPlatform } from '../../lib/local/platform';
import { eventually, sandboxOf, sdk, startTestPlatform } from '../support/platform';

// Every recorded event reaches the stream's consumers (analytics, tags, webhooks) once, through
// the local stand-in for DynamoDB Streams, with the stream's retry semantics.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;
const seen: RecordedEvent[] = [];
let failuresLeft = 0;
/** The event ids of each batch the flaky consumer was given, and whether it failed it. */
const flakyBatches: Array<{ ids: string[]; failed: boolean }> = [];

const recorder: EventConsumer = { name: 'test-recorder', consume: async (events) => void seen.push(...events) };
const flaky: EventConsumer = {
  name: 'test-flaky',
  consume: async (events) => {
    const failed = failuresLeft > 0;
    flakyBatches.push({ ids: events.map((e) => e.data.id), failed });
    if (failed) {
      failuresLeft -= 1;
      throw new Error('transient');
    }
  },
};

beforeAll(async () => {
  EVENT_CONSUMERS.push(recorder, flaky);
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
});
afterAll(async () => {
  await platform.close();
  EVENT_CONSUMERS.splice(EVENT_CONSUMERS.indexOf(recorder), 2);
});

const eventsFor = (messageId: string) => seen.filter((e) => (e.data['message'] as { headers: Record<string, string> }).headers['message-id'] === messageId.replace(/^<|>$/g, ''));

it('hands each new event to the consumers with its account and domain, exactly as stored', async () => {
  const sent = await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: ['a@stream.example', 'b@stream.example'], subject: 'Hi', text: 'x', 'o:testmode': 'yes' } as never);
  const events = await eventually(async () => {
    const found = eventsFor(sent.id!);
    return found.length === 4 && found;
  });
  expect(events.map((e) => `${e.data.event}:${e.data['recipient'] as string}`).sort()).toEqual(['accepted:a@stream.example', 'accepted:b@stream.example', 'delivered:a@stream.example', 'delivered:b@stream.example']);
  expect(new Set(events.map((e) => e.domain))).toEqual(new Set([sandbox]));
  expect(events.every((e) => e.accountId.length > 0 && typeof e.data.timestamp === 'number')).toBe(true);
  // Nothing but events is streamed: the message record and claims are table writes too.
  expect(seen.every((e) => typeof e.data.event === 'string')).toBe(true);
});

it('retries a batch a consumer failed without repeating it for the consumers that finished', async () => {
  failuresLeft = 1;
  const sent = await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: 'c@stream.example', subject: 'Hi', text: 'x', 'o:testmode': 'yes' } as never);
  const failedBatch = await eventually(async () => flakyBatches.find((b) => b.failed));
  // The failed batch came back and the flaky consumer finished it...
  await eventually(async () => flakyBatches.some((b) => !b.failed && failedBatch.ids.every((id) => b.ids.includes(id))));
  // ...while the recorder, which finished the first attempt, was not given it again.
  await eventually(async () => eventsFor(sent.id!).length === 2);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const recorded = eventsFor(sent.id!).map((e) => e.data.id);
  expect(recorded).toHaveLength(2);
  expect(new Set(recorded).size).toBe(2);
});

it('a retry that starts at the same record but carries more gives a finished consumer only the new records', async () => {
  const got: string[][] = [];
  let fail = true;
  const steady: EventConsumer = { name: `steady-${Date.now()}`, consume: async (events) => void got.push(events.map((e) => e.data.id)) };
  const failing: EventConsumer = {
    name: `failing-${Date.now()}`,
    consume: async () => {
      if (fail) throw new Error('once');
    },
  };
  const handle = streamHandler([steady, failing]);
  const record = (seq: number, id: string) => ({
    eventName: 'INSERT' as const,
    dynamodb: {
      SequenceNumber: String(seq).padStart(21, '0'),
      NewImage: { kind: { S: 'event' }, accountId: { S: 'acct' }, domain: { S: 'd.example' }, data: { M: { event: { S: 'accepted' }, id: { S: id }, timestamp: { N: '1' } } } },
    },
  });
  const first = await platform.us.run(() => handle({ Records: [record(900001, 'e1'), record(900002, 'e2')] } as never));
  expect(first.batchItemFailures).toEqual([{ itemIdentifier: String(900001).padStart(21, '0') }]);
  fail = false;
  const retry = await platform.us.run(() => handle({ Records: [record(900001, 'e1'), record(900002, 'e2'), record(900003, 'e3')] } as never));
  expect(retry.batchItemFailures).toEqual([]);
  expect(got).toEqual([['e1', 'e2'], ['e3']]);
});
