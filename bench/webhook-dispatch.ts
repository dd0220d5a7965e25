/**
 * Webhook dispatch throughput: events handed to fanOutWebhooks (functions/webhooks/fan-out.ts) as
 * the event stream hands them (batches of 100), through the delivery queue (local mode's SQS
 * stand-in, 8 worker invocations of 10 messages in flight, as Lambda would run them) and the
 * delivery worker (duplicate guard, signing key, HMAC, POST), until a loopback receiver has every
 * POST. Each event matches a URL at domain level and two at account level, one of them the domain's
 * URL again, so fan-out's cross-level de-duplication is in the path: 2 POSTs per event.
 *
 * Peer, measured in the same run: the same number of signed POSTs (HMAC over timestamp + token,
 * the same JSON payload) with node:http straight to the receiver, 80 in flight, no queue, no table.
 * Target (issue 10): ours within 3x of the peer's deliveries/s. A guarded peer adds what delivering
 * exactly once costs at the least: one conditional PutItem per event (its item naming a claim per
 * URL, as the worker's does) before the event's POSTs, on the same dynalite.
 *
 *   npx tsx bench/webhook-dispatch.ts      (or as part of `npm run bench`)
 *
 * The receiver, dynalite and the workers share this process and its CPU, for ours and the peer alike.
 * The configuration cache is set as deployed (WEBHOOK_CONFIG_CACHE_SECONDS=60; local mode's default is 0).
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newEvent, type EventData, type RecordedEvent } from '../functions/events/event-store';
import { messageId } from '../functions/platform/ids';
import { createAccountWebhook } from '../functions/webhooks/account-webhooks';
import { deliveryIdOf } from '../functions/webhooks/delivery-job';
import { deliveryClaimKeys } from '../functions/webhooks/delivery-worker';
import { createHook } from '../functions/webhooks/domain-webhooks';
import { fanOutWebhooks } from '../functions/webhooks/fan-out';
import { signingKey } from '../functions/webhooks/signing-key';
import { documentClient, sqsClient } from '../functions/platform/aws-clients';
import { describeCalls, perUnit, watchCalls } from './lib/aws-calls';
import { withLocalMode } from './lib/local';
import { fixed, median, note, print, ratio, table, type TargetCheck } from './lib/report';
import type { Key } from '../functions/data/store';

const marshalledKey = (key: Key) => ({ pk: { S: key.pk }, sk: { S: key.sk } });

const EVENTS = 1000;
const STREAM_BATCH = 100;
const POSTS_PER_EVENT = 2;
/** The receiver's paths the peers POST to, one per URL an event goes to. */
const PATHS = ['/domain', '/account'];
const ROUNDS = 5;
const PEER_IN_FLIGHT = 80;

/** The target: within this factor of bare signed POSTs (deliveries/s). */
const MAX_RATIO = 3;
/** Events each variant runs before the rounds (JIT, connection pools, caches); ours counts its calls over them. */
const WARMUP_EVENTS = 500;

/** One round of a variant: deliveries/s, and this whole process's CPU per delivery (the receiver, dynalite and the queue included). */
interface Round {
  deliveriesPerSecond: number;
  cpuUsPerDelivery: number;
}

function roundOf(deliveries: number, t0: number, c0: NodeJS.CpuUsage): Round {
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return { deliveriesPerSecond: deliveries / seconds, cpuUsPerDelivery: (cpu.user + cpu.system) / deliveries };
}

export interface DispatchVariant {
  label: string;
  /** Medians over the rounds. */
  deliveriesPerSecond: number;
  cpuUsPerDelivery: number;
  rounds: number[];
  /** AWS calls per delivery (ours: DynamoDB and SQS, counted over the warm-up). */
  callsPerDelivery: Record<string, number>;
}

function variant(label: string, rounds: Round[], callsPerDelivery: Record<string, number>): DispatchVariant {
  return {
    label,
    deliveriesPerSecond: median(rounds.map((r) => r.deliveriesPerSecond)),
    cpuUsPerDelivery: median(rounds.map((r) => r.cpuUsPerDelivery)),
    rounds: rounds.map((r) => r.deliveriesPerSecond),
    callsPerDelivery,
  };
}

export interface WebhookDispatchResult {
  events: number;
  deliveries: number;
  ours: DispatchVariant;
  peer: DispatchVariant;
  /** Bare POSTs plus the duplicate guard's one conditional write per event: what exactly-once costs at the least. */
  guarded: DispatchVariant;
  /** peer / ours: how many times faster the bare POSTs are. */
  ratio: number;
  /** guarded / ours. */
  guardedRatio: number;
  /** ours / peer: CPU per delivery, less sensitive to other work on the machine than rates are. */
  cpuRatio: number;
  checks: TargetCheck[];
  durationSeconds: number;
}

/** A loopback receiver that counts POSTs and answers 200, as a customer's endpoint would. */
async function receiver(): Promise<{ server: Server; url: string; count: () => number; waitFor: (n: number) => Promise<void> }> {
  let count = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.end('ok');
      for (const w of waiters.filter((w) => count >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  // Kept-alive connections stay open between rounds: a socket the receiver closes while idle can
  // be reused by a client at the same moment (ECONNRESET), failing a POST for the harness' sake.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, count: () => count, waitFor: (n) => (count >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))) };
}

/** Delivered events shaped as the send worker records them (messageEventFields in message-store.ts). */
function deliveredEvents(accountId: string, domain: string, count: number): RecordedEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const recipient = `customer${i}@example.com`;
    const id = messageId(domain).slice(1, -1);
    const data = newEvent('delivered', {
      recipient,
      'recipient-domain': 'example.com',
      envelope: { sender: `billing@${domain}`, targets: recipient, transport: 'smtp' },
      message: { headers: { 'message-id': id, from: `Example Billing <billing@${domain}>`, to: recipient, subject: 'Your statement for this month' }, attachments: [], size: 2048 },
      tags: ['statement'],
      'user-variables': { customer: `c-${i}` },
      flags: { 'is-authenticated': true, 'is-test-mode': false },
      'delivery-status': { code: 250, message: 'OK', description: '', 'attempt-no': 1, tls: true, utf8: true, 'certificate-verified': true, 'session-seconds': 0.4 },
    });
    return { accountId, domain, data };
  });
}

export async function webhookDispatch(): Promise<WebhookDispatchResult> {
  const started = performance.now();
  const hook = await receiver();
  try {
    // Local mode closes first: its delivery workers stop before the receiver does.
    return await withLocalMode({ bench: 'webhook dispatch', env: { WEBHOOK_CONFIG_CACHE_SECONDS: '60' } }, async ({ us, principal, sandbox, atClose }) => {
      const agent = new Agent({ keepAlive: true, maxSockets: PEER_IN_FLIGHT });
      atClose(() => agent.destroy());
      const accountId = principal.accountId;
      await us.run(async () => {
        await createHook(accountId, sandbox, 'delivered', [`${hook.url}/domain`]);
        await createAccountWebhook(accountId, { url: `${hook.url}/domain`, event_types: ['delivered'] });
        await createAccountWebhook(accountId, { url: `${hook.url}/account`, event_types: ['delivered', 'opened'] });
      });
      const key = await us.run(() => signingKey(accountId));

      const ours = async (events: RecordedEvent[]): Promise<Round> => {
        const target = hook.count() + events.length * POSTS_PER_EVENT;
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const batches = Array.from({ length: Math.ceil(events.length / STREAM_BATCH) }, (_, i) => events.slice(i * STREAM_BATCH, (i + 1) * STREAM_BATCH));
        await Promise.all(batches.map((batch) => us.run(() => fanOutWebhooks(batch))));
        await hook.waitFor(target);
        return roundOf(events.length * POSTS_PER_EVENT, t0, c0);
      };

      const post = (path: string, body: string) =>
        new Promise<void>((resolve, reject) => {
          const req = request(`${hook.url}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
            res.resume();
            res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`peer got ${res.statusCode}`))));
          });
          req.on('error', reject);
          req.end(body);
        });
      const signedPost = (path: string, data: EventData) => {
        const timestamp = String(Math.floor(Date.now() / 1000));
        const token = randomBytes(25).toString('hex');
        const signature = createHmac('sha256', key).update(timestamp + token).digest('hex');
        return post(path, JSON.stringify({ signature: { timestamp, token, signature }, 'event-data': data }));
      };
      const peer = async (events: RecordedEvent[]): Promise<Round> => {
        const jobs = events.flatMap((e) => PATHS.map((path) => ({ path, data: e.data })));
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        let next = 0;
        await Promise.all(
          Array.from({ length: PEER_IN_FLIGHT }, async () => {
            while (next < jobs.length) {
              const job = jobs[next++]!;
              await signedPost(job.path, job.data);
            }
          }),
        );
        return roundOf(jobs.length, t0, c0);
      };

      // The guarded peer: before an event's POSTs, the one conditional write exactly-once needs
      // (PutItem if absent, a raw DynamoDBClient, the item marshalled up front), as many in flight.
      const raw = new DynamoDBClient({ region: us.env.AWS_REGION, endpoint: us.env.DYNAMODB_ENDPOINT });
      atClose(() => raw.destroy());
      const tableName = us.env.TABLE_NAME!;
      const guardedPeer = async (events: RecordedEvent[]): Promise<Round> => {
        const guards = events.map((e) => ({ ...marshalledKey(deliveryClaimKeys.webhookDeliveries(accountId, e.data.id, 0)), ...Object.fromEntries(PATHS.map((path) => [`d_${deliveryIdOf(e.data.id, path)}`, { S: randomUUID() }])) }));
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        let next = 0;
        await Promise.all(
          Array.from({ length: PEER_IN_FLIGHT / POSTS_PER_EVENT }, async () => {
            while (next < events.length) {
              const i = next++;
              await raw.send(new PutItemCommand({ TableName: tableName, Item: guards[i]!, ConditionExpression: 'attribute_not_exists(pk)' }));
              await Promise.all(PATHS.map((path) => signedPost(path, events[i]!.data)));
            }
          }),
        );
        return roundOf(events.length * POSTS_PER_EVENT, t0, c0);
      };

      note('webhook dispatch: warm-up (its calls counted)');
      const [doc, sqs] = await us.run(async () => [documentClient(), sqsClient()] as const);
      const warm = await watchCalls([doc, sqs], () => ours(deliveredEvents(accountId, sandbox, WARMUP_EVENTS)));
      await peer(deliveredEvents(accountId, sandbox, WARMUP_EVENTS));
      await guardedPeer(deliveredEvents(accountId, sandbox, WARMUP_EVENTS));
      const oursRounds: Round[] = [];
      const peerRounds: Round[] = [];
      const guardedRounds: Round[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        note(`webhook dispatch: round ${round + 1} of ${ROUNDS} (${EVENTS} events, ${EVENTS * POSTS_PER_EVENT} deliveries each; ours, peer, guarded peer)`);
        oursRounds.push(await ours(deliveredEvents(accountId, sandbox, EVENTS)));
        peerRounds.push(await peer(deliveredEvents(accountId, sandbox, EVENTS)));
        guardedRounds.push(await guardedPeer(deliveredEvents(accountId, sandbox, EVENTS)));
      }
      const o = variant('ours: fanOutWebhooks -> queue -> delivery worker', oursRounds, perUnit(warm.calls, WARMUP_EVENTS * POSTS_PER_EVENT));
      const p = variant(`peer: signed POSTs with node:http, ${PEER_IN_FLIGHT} in flight`, peerRounds, {});
      const g = variant('guarded peer: one conditional PutItem per event, then its POSTs', guardedRounds, { PutItemCommand: 1 / POSTS_PER_EVENT });
      const r = p.deliveriesPerSecond / o.deliveriesPerSecond;
      return {
        events: EVENTS,
        deliveries: EVENTS * POSTS_PER_EVENT,
        ours: o,
        peer: p,
        guarded: g,
        ratio: r,
        cpuRatio: o.cpuUsPerDelivery / p.cpuUsPerDelivery,
        guardedRatio: g.deliveriesPerSecond / o.deliveriesPerSecond,
        checks: [{ benchmark: 'webhook dispatch', subject: 'deliveries/s, bare signed POSTs / ours (median of rounds)', figure: ratio(r), target: `<= ${MAX_RATIO}x`, pass: r <= MAX_RATIO }],
        durationSeconds: (performance.now() - started) / 1000,
      };
    });
  } finally {
    hook.server.closeAllConnections();
    await new Promise((resolve) => hook.server.close(resolve));
  }
}

export function printWebhookDispatch(result: WebhookDispatchResult): void {
  print(`== Webhook dispatch: ${result.events} delivered events, ${result.deliveries} deliveries (2 URLs per event after de-duplication), ${ROUNDS} alternating rounds ==`);
  print(`Loopback receiver answering 200; local mode in this process (SQS stand-in, dynalite). Took ${fixed(result.durationSeconds, 0)} s.`);
  print('Ours also queues every delivery (SendMessageBatch) and claims it against duplicates (one conditional write per event and batch).');
  print();
  const row = (v: DispatchVariant) => [v.label, fixed(v.deliveriesPerSecond, 0), `${fixed(v.cpuUsPerDelivery, 0)} us`, v.rounds.map((r) => fixed(r, 0)).join(', '), describeCalls(v.callsPerDelivery)];
  print(
    table([
      ['', 'deliveries/s (median)', 'CPU/delivery', 'rounds', 'AWS calls per delivery'],
      row(result.ours),
      row(result.peer),
      row(result.guarded),
      ['ratio peer/ours', ratio(result.ratio), ratio(result.cpuRatio), `target: <= ${MAX_RATIO}x (deliveries/s)`, ''],
      ['ratio guarded peer/ours', ratio(result.guardedRatio), ratio(result.ours.cpuUsPerDelivery / result.guarded.cpuUsPerDelivery), '', ''],
    ]),
  );
  print();
  print('CPU/delivery = process.cpuUsage() of this whole process per delivery (receiver, dynalite, queue stand-in included), median of rounds.');
  print();
}

if (require.main === module) {
  webhookDispatch().then(printWebhookDispatch, (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
