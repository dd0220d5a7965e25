import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalPlatform } from '../../lib/local/platform';
import type { ExecutionRecord } from '../../lib/local/sfn-standin';
import { call, eventsOf, eventually, sandboxOf, sdk, sdkError, sesSendsOf, startTestPlatform } from '../support/platform';
import { scanTable } from '../support/table';

// Scheduled delivery (o:deliverytime) through the official SDK: the message waits in a
// scheduled-delivery execution (lib/workflows/scheduled-delivery.asl.json, run by the local
// workflow runner), then goes through the send worker as any other.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;
let sandbox: string;

type Ev = {
  event: string;
  recipient: string;
  timestamp: number;
  severity?: string;
  message: { 'scheduled-for'?: number };
  storage?: { key: string };
  'delivery-status'?: { message?: string };
};

beforeAll(async () => {
  // Step Functions retries a refused send job for about an hour; the runner's Retry waits are
  // shortened here (they apply only to a failing task).
  platform = await startTestPlatform({ workflowRetryIntervalMs: 5 });
  mg = sdk(platform.us.url);
  sandbox = await sandboxOf(mg);
});
afterAll(() => platform.close());

const executions = (target: LocalPlatform) => target.us.sfn.list(target.us.env.SCHEDULE_STATE_MACHINE_ARN);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A delivery time `leadMs` ahead, on a whole second: o:deliverytime is an RFC 2822 date
 * (toUTCString), which has no fractions of a second. A test that acts on the message while it
 * waits (looks at it, clears the queue, stops the host) takes the default, which leaves a slow
 * machine room for that; one that only needs the message to wait in a workflow takes two
 * seconds, room for the request that schedules it; one that only checks the delivery came no
 * earlier can take less.
 */
const soon = (leadMs = 5000) => new Date(Math.ceil((Date.now() + leadMs) / 1000) * 1000);

const schedule = (client: ReturnType<typeof sdk>, to: string, at: Date, subject = 'scheduled', domain = sandbox) =>
  client.messages.create(domain, { from: `s@${domain}`, to, subject, text: 'later', 'o:deliverytime': at.toUTCString() } as never).then((r) => r.id!);

it('accepts a scheduled message at once, sends nothing before its time, then delivers it', async () => {
  const at = soon();
  const id = await schedule(mg, 'later@example.com', at);
  // Accepted before its time, with the time in the accepted event (contract §6.2, epoch seconds).
  expect(Date.now()).toBeLessThan(at.getTime());
  const accepted = (await eventsOf<Ev>(platform.us.url, sandbox, id)).find((e) => e.event === 'accepted')!;
  expect(accepted).toMatchObject({ recipient: 'later@example.com', message: { 'scheduled-for': at.getTime() / 1000 } });
  const execution = executions(platform).find((e) => e.name === `deliver-${accepted.storage!.key}`)!;
  expect(execution).toMatchObject({ status: 'RUNNING' });
  expect(JSON.parse(execution.input)).toEqual({ storageKey: accepted.storage!.key, attempt: 0, deliverAt: at.toISOString() });

  // Nothing reaches SES while the message waits.
  while (Date.now() < at.getTime() - 150) {
    expect(sesSendsOf(platform.us, id)).toHaveLength(0);
    expect((await eventsOf<Ev>(platform.us.url, sandbox, id)).map((e) => e.event)).toEqual(['accepted']);
    await sleep(100);
  }
  const delivered = await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, id)).find((e) => e.event === 'delivered'));
  expect(delivered.timestamp * 1000).toBeGreaterThanOrEqual(at.getTime());
  expect(sesSendsOf(platform.us, id)).toHaveLength(1);
  await eventually(async () => executions(platform).find((e) => e.executionArn === execution.executionArn)!.status === 'SUCCEEDED');
});

it('sends at once when the delivery time has passed, without a workflow', async () => {
  const before = executions(platform).length;
  const id = await schedule(mg, 'past@example.com', new Date(Date.now() - 3600_000));
  const events = await eventually(async () => {
    const found = await eventsOf<Ev>(platform.us.url, sandbox, id);
    return found.some((e) => e.event === 'delivered') ? found : undefined;
  });
  expect(events.find((e) => e.event === 'accepted')!.message['scheduled-for']).toBeUndefined();
  expect(executions(platform)).toHaveLength(before);
});

it('refuses a delivery time more than 3 days ahead with 400, and stores nothing', async () => {
  const before = { executions: executions(platform).length, sent: platform.us.ses.sentTotal };
  const at = new Date(Date.now() + 3 * 86_400_000 + 3600_000);
  const error = await sdkError(mg.messages.create(sandbox, { from: `s@${sandbox}`, to: 'far@example.com', subject: 'too far ahead', text: 'x', 'o:deliverytime': at.toUTCString() } as never));
  expect(error).toEqual({ status: 400, details: "'o:deliverytime' may be at most 3 days ahead" });
  await sleep(200);
  expect(executions(platform)).toHaveLength(before.executions);
  expect(platform.us.ses.sentTotal).toBe(before.sent);
  expect((await scanTable(platform.us)).filter((item) => item['subject'] === 'too far ahead')).toEqual([]);
});

it('reports the scheduled queue as enabled next to the regular one', async () => {
  // mailgun.js has getMessagesQueueStatus at run time; its IMessagesClient interface omits it.
  const queues = await (mg.messages as unknown as { getMessagesQueueStatus(d: string): Promise<unknown> }).getMessagesQueueStatus(sandbox);
  expect(queues).toMatchObject({ regular: { is_disabled: false }, scheduled: { is_disabled: false } });
});

it('schedules each copy of a batch send', async () => {
  const at = soon(1000);
  const sent = await mg.messages.create(sandbox, {
    from: `b@${sandbox}`,
    to: ['one@batch.example', 'two@batch.example'],
    subject: 'Hi %recipient.name%',
    text: 'x',
    'recipient-variables': JSON.stringify({ 'one@batch.example': { name: 'One' }, 'two@batch.example': { name: 'Two' } }),
    'o:deliverytime': at.toUTCString(),
  } as never);
  const delivered = await eventually(async () => {
    const found = (await eventsOf<Ev>(platform.us.url, sandbox, sent.id!)).filter((e) => e.event === 'delivered');
    return found.length === 2 ? found : undefined;
  });
  expect(Math.min(...delivered.map((e) => e.timestamp)) * 1000).toBeGreaterThanOrEqual(at.getTime());
  expect(sesSendsOf(platform.us, sent.id!).map((m) => m.destinations[0]).sort()).toEqual(['one@batch.example', 'two@batch.example']);
});

it('cancels a scheduled message when the queue is cleared, with a final failed event when it comes due', async () => {
  const at = soon();
  const id = await schedule(mg, 'cleared@example.com', at, 'to be cleared');
  expect(await call(`${platform.us.url}/v3/${sandbox}/envelopes`, { method: 'DELETE' })).toMatchObject({ status: 200, json: { message: 'done' } });
  const failed = await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, id)).find((e) => e.event === 'failed'));
  expect(failed).toMatchObject({ recipient: 'cleared@example.com', severity: 'permanent', 'delivery-status': { message: "Cancelled: the domain's queue was cleared" } });
  expect(failed.timestamp * 1000).toBeGreaterThanOrEqual(at.getTime());
  await sleep(200);
  expect(sesSendsOf(platform.us, id)).toHaveLength(0);
  expect((await eventsOf<Ev>(platform.us.url, sandbox, id)).map((e) => e.event).sort()).toEqual(['accepted', 'failed']);

  // Mail scheduled after the clear goes out as usual.
  const after = await schedule(mg, 'after-clear@example.com', soon(1000), 'after the clear');
  await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, after)).some((e) => e.event === 'delivered'));
});

describe('when the send queue refuses the job', () => {
  it('retries, and a job queued on a later attempt is delivered', async () => {
    platform.us.sqs.refuseSends('send', 3);
    const id = await schedule(mg, 'retried@example.com', soon(2000), 'retried');
    await eventually(async () => (await eventsOf<Ev>(platform.us.url, sandbox, id)).some((e) => e.event === 'delivered'));
    expect(sesSendsOf(platform.us, id)).toHaveLength(1);
  });

  it('gives every recipient a final failed event once the retries run out, and sends nothing', async () => {
    platform.us.sqs.refuseSends('send', 1000);
    const at = soon(2000);
    const id = await mg.messages.create(sandbox, { from: `s@${sandbox}`, to: ['lost1@example.com', 'lost2@example.com'], subject: 'lost', text: 'x', 'o:deliverytime': at.toUTCString() } as never).then((r) => r.id!);
    const failed = await eventually(async () => {
      const found = (await eventsOf<Ev>(platform.us.url, sandbox, id)).filter((e) => e.event === 'failed');
      return found.length === 2 && found;
    });
    expect(failed.map((e) => e.recipient).sort()).toEqual(['lost1@example.com', 'lost2@example.com']);
    for (const event of failed) expect(event).toMatchObject({ severity: 'permanent', 'delivery-status': { message: 'The scheduled message could not be queued for sending' } });
    const storageKey = (await eventsOf<Ev>(platform.us.url, sandbox, id)).find((e) => e.event === 'accepted')!.storage!.key;
    const execution = await eventually(async () => executions(platform).find((e) => e.name === `deliver-${storageKey}` && e.status !== 'RUNNING'));
    expect(execution).toMatchObject({ status: 'FAILED', error: 'SendJobNotQueued' });
    platform.us.sqs.refuseSends('send', 0);
    await sleep(200);
    expect(sesSendsOf(platform.us, id)).toHaveLength(0);
  });
});

describe('across a restart', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mailplane-scheduling-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('still sends a scheduled message when the platform was stopped while it waited', async () => {
    const first = await startTestPlatform({ dataDir });
    let id: string;
    let at: Date;
    let domain: string;
    try {
      domain = await sandboxOf(sdk(first.us.url));
      at = soon();
      id = await schedule(sdk(first.us.url), 'survivor@example.com', at, 'survives a restart', domain);
    } finally {
      await first.close();
    }
    expect(sesSendsOf(first.us, id)).toHaveLength(0);
    // The waiting execution is on disk with its input, still running.
    const saved = JSON.parse(readFileSync(join(dataDir, 'us', 'sfn-executions.json'), 'utf8')) as ExecutionRecord[];
    expect(saved.map((e) => [e.status, JSON.parse(e.input).deliverAt])).toEqual([['RUNNING', at.toISOString()]]);

    const second = await startTestPlatform({ dataDir });
    try {
      const delivered = await eventually(async () => (await eventsOf<Ev>(second.us.url, domain, id)).find((e) => e.event === 'delivered'));
      expect(delivered.timestamp * 1000).toBeGreaterThanOrEqual(at.getTime());
      expect(sesSendsOf(second.us, id)).toHaveLength(1);
      await eventually(async () => executions(second).every((e) => e.status === 'SUCCEEDED'));
    } finally {
      await second.close();
    }
  });
});
