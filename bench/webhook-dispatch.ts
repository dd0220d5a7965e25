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
 *
 *   npx tsx bench/webhook-dispatch.ts      (or as part of `npm run bench`)
 *
 * The receiver, dynalite and the workers share this process and its CPU, for ours and the peer alike.
 * The configuration cache is set as deployed (WEBHOOK_CONFIG_CACHE_SECONDS=60; local mode's default is 0).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newEvent, type RecordedEvent } from '../functions/events/event-store';
import { messageId } from '../functions/platform/ids';
import { createAccountWebhook } from '../functions/webhooks/account-webhooks';
import { createHook } from '../functions/webhooks/domain-webhooks';
import { fanOutWebhooks } from '../functions/webhooks/fan-out';
import { signingKey } from '../functions/webhooks/signing-key';
import { withLocalMode } from './lib/local';
import { fixed, median, note, print, ratio, table } from './lib/report';

const EVENTS = 1000;
const STREAM_BATCH = 100;
const POSTS_PER_EVENT = 2;
const ROUNDS = 3;
const PEER_IN_FLIGHT = 80;

export interface DispatchVariant {
  label: string;
  deliveriesPerSecond: number;
  rounds: number[];
}

export interface WebhookDispatchResult {
  events: number;
  deliveries: number;
  ours: DispatchVariant;
  peer: DispatchVariant;
  /** peer / ours: how many times faster the bare POSTs are. */
  ratio: number;
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

      const ours = async (events: RecordedEvent[]): Promise<number> => {
        const target = hook.count() + events.length * POSTS_PER_EVENT;
        const t0 = performance.now();
        const batches = Array.from({ length: Math.ceil(events.length / STREAM_BATCH) }, (_, i) => events.slice(i * STREAM_BATCH, (i + 1) * STREAM_BATCH));
        await Promise.all(batches.map((batch) => us.run(() => fanOutWebhooks(batch))));
        await hook.waitFor(target);
        return (events.length * POSTS_PER_EVENT) / ((performance.now() - t0) / 1000);
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
      const peer = async (events: RecordedEvent[]): Promise<number> => {
        const jobs = events.flatMap((e) => ['/domain', '/account'].map((path) => ({ path, data: e.data })));
        const t0 = performance.now();
        let next = 0;
        await Promise.all(
          Array.from({ length: PEER_IN_FLIGHT }, async () => {
            while (next < jobs.length) {
              const job = jobs[next++]!;
              const timestamp = String(Math.floor(Date.now() / 1000));
              const token = randomBytes(25).toString('hex');
              const signature = createHmac('sha256', key).update(timestamp + token).digest('hex');
              await post(job.path, JSON.stringify({ signature: { timestamp, token, signature }, 'event-data': job.data }));
            }
          }),
        );
        return jobs.length / ((performance.now() - t0) / 1000);
      };

      note('webhook dispatch: warm-up');
      await ours(deliveredEvents(accountId, sandbox, 100));
      await peer(deliveredEvents(accountId, sandbox, 100));
      const oursRounds: number[] = [];
      const peerRounds: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        note(`webhook dispatch: round ${round + 1} of ${ROUNDS} (${EVENTS} events, ${EVENTS * POSTS_PER_EVENT} deliveries each)`);
        oursRounds.push(await ours(deliveredEvents(accountId, sandbox, EVENTS)));
        peerRounds.push(await peer(deliveredEvents(accountId, sandbox, EVENTS)));
      }
      const oursRate = median(oursRounds);
      const peerRate = median(peerRounds);
      return {
        events: EVENTS,
        deliveries: EVENTS * POSTS_PER_EVENT,
        ours: { label: 'ours: fanOutWebhooks -> queue -> delivery worker', deliveriesPerSecond: oursRate, rounds: oursRounds },
        peer: { label: `peer: signed POSTs with node:http, ${PEER_IN_FLIGHT} in flight`, deliveriesPerSecond: peerRate, rounds: peerRounds },
        ratio: peerRate / oursRate,
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
  print('Local-mode bound: the SQS stand-in hands out at most 8 batches of 10 per 50 ms tick (1,600 messages/s); each delivery also writes its duplicate-guard claim.');
  print();
  const row = (v: DispatchVariant) => [v.label, fixed(v.deliveriesPerSecond, 0), v.rounds.map((r) => fixed(r, 0)).join(', ')];
  print(table([['', 'deliveries/s (median)', 'rounds'], row(result.ours), row(result.peer), ['ratio peer/ours', ratio(result.ratio), 'target: none (report only)']]));
  print();
}

if (require.main === module) {
  webhookDispatch().then(printWebhookDispatch, (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
