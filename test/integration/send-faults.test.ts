import { putItem } from '../../functions/data/store';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { findMessage, objectKey } from '../../functions/messages/message-store';
import { TAG_STORAGE } from '../../functions/delivery/claims';
import { sendQueueTiming } from '../../functions/delivery/send-timing';
import { s3Client } from '../../functions/platform/aws-clients';
import { queueWorkers, type QueueWorker } from '../../functions/workers';
import { localQueueOptions } from '../../lib/local/queue-workers';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, eventsOf, eventually, sandboxOf, sdk, sesSendsOf, startTestPlatform } from '../support/platform';

// The failures the send path must survive without losing or duplicating mail, injected into the
// real stand-ins: a worker that dies after sending, SES throttling, and a reply lost after SES sent.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;

type Ev = { event: string; recipient: string; severity?: string; 'delivery-status'?: { message?: string } };

/**
 * Short, so a redelivery comes seconds after a failure instead of minutes, and long enough that an
 * invocation ends well inside it on a slow machine: the local queue, unlike Lambda, does not stop
 * a worker at its timeout, and one that outlived its claims would send twice.
 */
const SEND_WORKER_TIMEOUT_SECONDS = 2;

beforeAll(async () => {
  platform = await startTestPlatform({ sendWorkerTimeoutSeconds: SEND_WORKER_TIMEOUT_SECONDS, env: { SEND_RETRY_BASE_SECONDS: '0' } });
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
});
afterAll(() => platform.close());

const send = (to: string[], subject: string) => mg.messages.create(sandbox, { from: `f@${sandbox}`, to, subject, text: 'x' } as never).then((r) => r.id!);

it("runs the send queue on the clocks the worker's timeout implies, dead letters to their consumer", () => {
  const timing = sendQueueTiming(SEND_WORKER_TIMEOUT_SECONDS);
  expect(platform.us.sqs.queueOptions('send')).toMatchObject({
    functionTimeoutSeconds: timing.workerTimeoutSeconds,
    visibilityTimeoutSeconds: timing.visibilityTimeoutSeconds,
    maxReceiveCount: timing.maxReceiveCount,
    deadLetterQueue: 'send-dead-letters',
  });
});

it("runs exactly the worker table's queues (and the table stream's stand-in), as the table defines them", () => {
  const rows: readonly QueueWorker[] = queueWorkers;
  const names = platform.us.sqs.queueNames();
  expect(names.filter((name) => name !== 'event-stream').sort()).toEqual([...new Set(rows.flatMap((row) => [row.queue, ...(row.deadLetterQueue ? [row.deadLetterQueue] : [])]))].sort());
  for (const row of rows) expect(platform.us.sqs.queueOptions(row.queue)).toEqual(localQueueOptions(row, row.queue === 'send' ? SEND_WORKER_TIMEOUT_SECONDS : undefined));
});

it('delivers each recipient exactly once when the worker dies after sending and the queue redelivers the batch', async () => {
  platform.us.sqs.crashNextInvocation('send');
  const ids = await Promise.all([send(['a1@example.com', 'a2@example.com'], 'c1'), send(['b1@example.com'], 'c2'), send(['c1@example.com'], 'c3')]);
  // The crashed batch comes back as soon as its invocation has ended, not a visibility timeout later.
  await eventually(async () => {
    platform.us.sqs.expireVisibility('send');
    return platform.us.sqs.depth('send').visible + platform.us.sqs.depth('send').inFlight === 0 && platform.us.sqs.depth('send').dead === 0;
  });
  for (const id of ids) {
    const all = await eventually(async () => {
      const found = await eventsOf<Ev>(platform.us.url, sandbox, id);
      return found.filter((e) => e.event === 'delivered').length === found.filter((e) => e.event === 'accepted').length ? found : undefined;
    });
    const recipients = all.filter((e) => e.event === 'accepted').map((e) => e.recipient);
    expect(all.filter((e) => e.event === 'delivered').map((e) => e.recipient).sort()).toEqual(recipients.sort());
    expect(sesSendsOf(platform.us, id)).toHaveLength(1);
  }
});

it('retries a throttled send and delivers it once, after a temporary failure', async () => {
  platform.us.ses.failNextSend('throttle');
  const id = await send(['throttled@example.com'], 'throttled');
  const all = await eventually(async () => {
    const found = await eventsOf<Ev>(platform.us.url, sandbox, id);
    return found.some((e) => e.event === 'delivered') ? found : undefined;
  });
  expect(all.filter((e) => e.event === 'failed').map((e) => e.severity)).toEqual(['temporary']);
  expect(sesSendsOf(platform.us, id)).toHaveLength(1);
});

it('does not resend when the reply is lost after SES sent, and ends with exactly one final event, from SES', async () => {
  platform.us.ses.failNextSend('drop-reply');
  const id = await send(['lost-reply@example.com'], 'lost reply');
  await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, id)).some((e) => e.event === 'delivered'));
  // The job came back once its claim was dead (the worker's timeout + the 5 s grace), found it
  // settled by SES's notification, and left the queue.
  await eventually(async () => platform.us.sqs.depth('send').visible + platform.us.sqs.depth('send').inFlight === 0);
  const all = await eventsOf<Ev>(platform.us.url, sandbox, id);
  expect(all.filter((e) => e.event !== 'accepted').map((e) => e.event)).toEqual(['delivered']);
  expect(sesSendsOf(platform.us, id)).toHaveLength(1);
});

describe('the domain queue', () => {
  it('cancels undelivered mail when cleared, with a final event per recipient', async () => {
    // With its consumer paused, the message waits in the queue, undelivered, when the queue is cleared.
    platform.us.sqs.pause('send');
    const id = await send(['queued@example.com'], 'to be cleared');
    expect(await call(`${platform.us.url}/v3/${sandbox}/envelopes`, { method: 'DELETE' })).toMatchObject({ status: 200, json: { message: 'done' } });
    platform.us.sqs.resume('send');
    const all = await eventually(async () => {
      const found = await eventsOf<Ev>(platform.us.url, sandbox, id);
      return found.some((e) => e.event === 'failed' && e.severity === 'permanent') ? found : undefined;
    });
    expect(all.find((e) => e.severity === 'permanent')!['delivery-status']!.message).toBe("Cancelled: the domain's queue was cleared");
    expect(sesSendsOf(platform.us, id)).toHaveLength(0);
    // Mail accepted after the clear goes out as usual.
    const after = await send(['later@example.com'], 'after clear');
    await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, after)).some((e) => e.event === 'delivered'));
  });
});

describe('a worker that died between claiming and sending', () => {
  it('settles the stale claim with a final event on redelivery, and does not send', async () => {
    platform.us.sqs.pause('send');
    const id = await send(['stale@example.com'], 'stale claim');
    // What the dead invocation left behind: the recipient claimed 'sending', long ago.
    const accepted = await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, id)).find((e) => e.event === 'accepted'));
    const storageKey = (accepted as unknown as { storage: { key: string } }).storage.key;
    await platform.us.run(() => putItem({ pk: `MSG#${storageKey}`, sk: 'RCPT#stale@example.com' }, { state: 'sending', at: Date.now() - 10 * 60_000 }));
    platform.us.sqs.resume('send');
    const failed = await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, id)).find((e) => e.event === 'failed'));
    expect(failed).toMatchObject({ severity: 'permanent' });
    expect(failed['delivery-status']!.message).toContain('an earlier attempt stopped while sending');
    expect(sesSendsOf(platform.us, id)).toHaveLength(0);

    // The dead send did reach SES after all, and its Delivery comes late: the failure stays the
    // recipient's one final event.
    const now = new Date().toISOString();
    const delivery = { eventType: 'Delivery', mail: { timestamp: now, messageId: 'late-ses-id', source: `f@${sandbox}`, destination: ['stale@example.com'], tags: { [TAG_STORAGE]: [storageKey] } }, delivery: { timestamp: now, recipients: ['stale@example.com'], smtpResponse: '250 2.0.0 OK', reportingMTA: 'a8-1.smtp-out.amazonses.com', processingTimeMillis: 20 } };
    platform.us.sqs.send(platform.us.sqs.queueUrl('ses-notifications'), JSON.stringify({ Type: 'Notification', MessageId: 'late-1', Message: JSON.stringify(delivery), Timestamp: now }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const finals = (await eventsOf<Ev>(platform.us.url, sandbox, id)).filter((e) => e.event === 'delivered' || e.event === 'failed');
    expect(finals.map((e) => e.event)).toEqual(['failed']);
  });
});

describe('a send job the queue gives up on', () => {
  it('still gives each recipient a final failed event, from the dead-letter consumer', async () => {
    platform.us.sqs.pause('send');
    const id = await send(['dead1@example.com', 'dead2@example.com'], 'dead letter');
    const accepted = await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, id)).find((e) => e.event === 'accepted'));
    const storageKey = (accepted as unknown as { storage: { key: string } }).storage.key;
    // Its stored MIME is gone, so every receive fails until the queue parks the job.
    await platform.us.run(async () => {
      const record = (await findMessage(storageKey))!;
      await s3Client().send(new DeleteObjectCommand({ Bucket: platform.us.env.MESSAGES_BUCKET, Key: objectKey(record) }));
    });
    platform.us.sqs.resume('send');
    // Each failed receive comes back as soon as its invocation has ended, not a visibility timeout later.
    const failed = await eventually(async () => {
      platform.us.sqs.expireVisibility('send');
      const found = (await eventsOf<Ev>(platform.us.url, sandbox, id)).filter((e) => e.event === 'failed');
      return found.length === 2 ? found : undefined;
    });
    expect(failed.map((e) => e.recipient).sort()).toEqual(['dead1@example.com', 'dead2@example.com']);
    expect(failed.every((e) => e.severity === 'permanent' && e['delivery-status']!.message === 'Not delivered: sending failed on every attempt')).toBe(true);
    expect(sesSendsOf(platform.us, id)).toHaveLength(0);
    expect(platform.us.sqs.depth('send-dead-letters')).toMatchObject({ visible: 0, inFlight: 0 });
  });
});
