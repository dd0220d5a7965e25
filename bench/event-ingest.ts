/**
 * Throughput of the SES notifications worker (functions/delivery/ses-notifications.ts): SQS batches
 * of 10 SNS envelopes, each an SES Delivery event naming one recipient of a stored message, handed
 * to the worker's `handler` directly inside the region's scope (`platform.us.run`), one batch after
 * the other, as a Lambda event source mapping with one poller would.
 *
 * Against the writes it cannot avoid: one raw DynamoDB PutItem per event (a DynamoDBClient, the
 * item already marshalled, the same bytes as the worker's event item), ten in a row per "batch",
 * on the same dynalite. A peer adds the message lookup the worker also needs (a raw GetItem of the
 * message record before each PutItem). Target (issue 10): ours within 1.5x of the floor's events/s.
 *
 *   npx tsx bench/event-ingest.ts [--no-profile]     (or as part of `npm run bench`)
 *
 * Local mode runs in this process (in memory), so dynalite shares the event loop and the CPU with
 * the worker, for ours, the floor and the peer alike; the three run in alternating rounds. Every
 * event item written (the floor's and the peer's too) goes through the table's stream to the
 * counters, the tag registry and webhooks, which run here as well, in batches gathered over the
 * deployed batching window (EVENT_STREAM_BATCHING_WINDOW_SECONDS).
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_STREAM_BATCHING_WINDOW_SECONDS } from '../functions/event-stream/process-batch';
import { handler as ingestWorker } from '../functions/delivery/ses-notifications';
import { mapLimit } from '../functions/platform/concurrency';
import { messageKey, newStorageKey, storeMime, storeRecord, type MessageRecord } from '../functions/messages/message-store';
import { TAG_ACCOUNT, TAG_STORAGE } from '../functions/delivery/claims';
import { documentClient } from '../functions/platform/aws-clients';
import { messageId as newMessageId } from '../functions/platform/ids';
import type { RegionHost } from '../lib/local/region-host';
import { REPO_ROOT } from '../lib/paths';
import { describeCalls, perUnit, watchCalls } from './lib/aws-calls';
import { withLocalMode } from './lib/local';
import { layerOf, profile, saveProfile, selfTimes, topFunctions } from './lib/profile';
import { fixed, median, note, OUT_DIR, percentile, print, ratio, table, type TargetCheck } from './lib/report';

const BATCH_SIZE = 10;
/** Measured batches per variant (ours, floor, peer). */
const BATCHES = 200;
/** Warm-up batches per variant: second notifications (other SES ids) for already-stored messages. */
const WARMUP_BATCHES = 50;
const ROUNDS = 4;
const PROFILE_BATCHES = 30;
/** Batches whose events the stream consumers take in one go, their calls counted. */
const STREAM_PROBE_BATCHES = 20;
/** The target: the floor's events/s within this factor of ours. */
const MAX_RATIO = 1.5;
/** Stored messages; each is named by BATCHES * BATCH_SIZE / MESSAGES measured notifications (distinct SES ids, so distinct events). */
const MESSAGES = 500;
/** Stored messages written concurrently during setup. */
const SETUP_CONCURRENCY = 16;

/** Local mode's queue carrying the table's stream (lib/local/region-host.ts). */
const STREAM_QUEUE = 'event-stream';

/** Until the stream consumers have taken every event written so far. */
async function streamDrained(us: RegionHost): Promise<void> {
  for (;;) {
    const depth = us.sqs.depth(STREAM_QUEUE);
    if (depth.visible + depth.inFlight === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Notification {
  body: string;
  record: MessageRecord;
}

/** A message as acceptMessage stores it: one recipient, a tag, a variable, an attachment listed. */
function messageRecord(accountId: string, domain: string, index: number, mimeBytes: number): MessageRecord {
  const now = Date.now();
  const recipient = `customer${index}@example.com`;
  return {
    storageKey: newStorageKey(),
    accountId,
    domain,
    messageId: newMessageId(domain),
    from: `Example Billing <billing@${domain}>`,
    subject: 'Your statement for this month',
    recipients: [recipient],
    to: recipient,
    tags: ['statement'],
    userVariables: { customer: `c-${index}` },
    attachments: [{ filename: 'statement.pdf', 'content-type': 'application/pdf', size: 51_200 }],
    size: mimeBytes,
    testMode: false,
    createdAt: new Date(now).toISOString(),
    ttl: Math.ceil(now / 1000) + 7 * 86_400,
  };
}

/**
 * What SNS delivers to the queue for one SES Delivery event (raw delivery off), shaped like SES's
 * event publishing: mail with its tags (ours carry the storage key) and common headers.
 */
function deliveryNotification(record: MessageRecord, sending: string): string {
  const now = new Date().toISOString();
  const recipient = record.recipients[0]!;
  const sesMessageId = `${randomBytes(16).toString('hex')}-${randomUUID()}-000000`;
  const mail = {
    timestamp: now,
    source: `billing@${record.domain}`,
    sendingAccountId: '000000000000',
    messageId: sesMessageId,
    destination: [recipient],
    headersTruncated: false,
    headers: [
      { name: 'From', value: record.from },
      { name: 'To', value: recipient },
      { name: 'Subject', value: record.subject },
      { name: 'Message-ID', value: record.messageId },
      { name: 'MIME-Version', value: '1.0' },
      { name: 'Content-Type', value: 'multipart/mixed; boundary="--_NmP-bench-Part_1"' },
    ],
    commonHeaders: { from: [record.from], to: [recipient], messageId: record.messageId, subject: record.subject },
    tags: {
      'ses:configuration-set': ['mailplane-events'],
      'ses:source-ip': ['127.0.0.1'],
      'ses:from-domain': [record.domain],
      'ses:caller-identity': ['mailplane-send-worker'],
      'ses:outgoing-ip': ['54.240.0.1'],
      [TAG_ACCOUNT]: [record.accountId],
      [TAG_STORAGE]: [record.storageKey],
    },
  };
  const delivery = { timestamp: now, processingTimeMillis: 412, recipients: [recipient], smtpResponse: '250 2.0.0 OK', remoteMtaIp: '192.0.2.10', reportingMTA: sending };
  return JSON.stringify({
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: 'arn:aws:sns:us-east-1:000000000000:mailplane-ses-events',
    Message: JSON.stringify({ eventType: 'Delivery', mail, delivery }),
    Timestamp: now,
    SignatureVersion: '1',
    Signature: randomBytes(256).toString('base64'),
    SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
    UnsubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:000000000000:mailplane-ses-events:0',
  });
}

/** An SQS event as the event source mapping (and lib/local/sqs-standin.ts) builds it. */
function sqsEvent(notifications: Notification[]): SQSEvent {
  const now = Date.now();
  return {
    Records: notifications.map((n) => {
      const id = randomUUID();
      return {
        messageId: id,
        receiptHandle: id,
        body: n.body,
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(now), SenderId: 'AIDAEXAMPLE', ApproximateFirstReceiveTimestamp: String(now) },
        messageAttributes: {},
        md5OfBody: createHash('md5').update(n.body).digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:ses-notifications',
        awsRegion: 'us-east-1',
      };
    }),
  };
}

interface Phase {
  batches: number;
  events: number;
  seconds: number;
  batchMs: number[];
  cpuUs: number;
}

/** The batches one after the other, each timed; process CPU over the whole phase. */
async function runBatches<B>(batches: B[], one: (batch: B) => Promise<void>, eventsPerBatch = BATCH_SIZE): Promise<Phase> {
  const batchMs: number[] = [];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const batch of batches) {
    const s = performance.now();
    await one(batch);
    batchMs.push(performance.now() - s);
  }
  const seconds = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { batches: batches.length, events: batches.length * eventsPerBatch, seconds, batchMs, cpuUs: c.user + c.system };
}

export interface IngestVariant {
  label: string;
  what: string;
  events: number;
  eventsPerSecond: number;
  batchP50Ms: number;
  batchP99Ms: number;
  /** Whole-process CPU per event (dynalite included: it runs in this process). */
  processCpuUsPerEvent: number;
  /** DynamoDB calls per event. */
  callsPerEvent: Record<string, number>;
  /** events/s of each round. */
  rounds: number[];
}

function variant(label: string, what: string, phases: Phase[], callsPerEvent: Record<string, number>): IngestVariant {
  const events = phases.reduce((n, p) => n + p.events, 0);
  const seconds = phases.reduce((n, p) => n + p.seconds, 0);
  const batchMs = phases.flatMap((p) => p.batchMs);
  return {
    label,
    what,
    events,
    eventsPerSecond: events / seconds,
    batchP50Ms: percentile(batchMs, 50),
    batchP99Ms: percentile(batchMs, 99),
    processCpuUsPerEvent: phases.reduce((n, p) => n + p.cpuUs, 0) / events,
    callsPerEvent,
    rounds: phases.map((p) => p.events / p.seconds),
  };
}

/** dynalite and every package it pulls in (they run in this process too). */
function dependencyClosure(root: string): Set<string> {
  const out = new Set<string>();
  const visit = (pkg: string) => {
    if (out.has(pkg)) return;
    out.add(pkg);
    const manifest = join(REPO_ROOT, 'node_modules', pkg, 'package.json');
    if (!existsSync(manifest)) return;
    const deps = (JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
    for (const dep of Object.keys(deps)) visit(dep);
  };
  visit(root);
  return out;
}

/** The layers of this bench beyond the common ones: the stand-in shares the process. */
function groupOf(bucket: string, standIn: Set<string>): string {
  return layerOf(bucket, (b) => {
    if (standIn.has(b)) return 'dynalite + its packages (the stand-in, same process)';
    if (b.startsWith('lib/')) return 'local host (lib/)';
    if (b === 'zod') return 'zod';
    return undefined;
  });
}

interface IngestProfile {
  batches: number;
  /** Sampled busy time per event, idle excluded. */
  busyUsPerEvent: number;
  groups: Array<{ name: string; usPerEvent: number }>;
  topFunctions: Array<{ name: string; usPerEvent: number }>;
}

export interface EventIngestResult {
  batchSize: number;
  batchesPerVariant: number;
  warmupBatches: number;
  rounds: number;
  notificationBytes: number;
  eventItemBytes: { ours: number; floor: number };
  ours: IngestVariant;
  floor: IngestVariant;
  peer: IngestVariant;
  /** floor events/s over ours. */
  ratio: number;
  peerRatio: number;
  /** DynamoDB calls per event of the stream consumers (counters, tags, webhooks), for events taken in one stream batch. */
  stream: { events: number; callsPerEvent: Record<string, number> };
  checks: TargetCheck[];
  profile?: IngestProfile;
  /** Stored messages the notifications name. */
  messages: number;
  /** Storing them. */
  setupSeconds: number;
  durationSeconds: number;
}

export async function eventIngest(options: { profile?: boolean } = {}): Promise<EventIngestResult> {
  const started = performance.now();
  return withLocalMode({ bench: 'event ingest', eventStreamBatchingWindowSeconds: EVENT_STREAM_BATCHING_WINDOW_SECONDS }, async ({ us, principal, sandbox, atClose }) => {
    const tableName = us.env.TABLE_NAME!;
    const sending = 'a8-1.smtp-out.amazonses.com';

    // The messages the notifications name: the worker reads one per event. Consecutive events name different messages.
    const measured = BATCHES * BATCH_SIZE;
    note(`event ingest: storing ${MESSAGES} messages (storeMime + storeRecord: S3 + DynamoDB, ${SETUP_CONCURRENCY} at a time)`);
    const setupStarted = performance.now();
    const mime = Buffer.from(`From: billing@${sandbox}\r\nTo: someone@example.com\r\nSubject: Your statement\r\n\r\n${'x'.repeat(1000)}\r\n`);
    const records: MessageRecord[] = Array.from({ length: MESSAGES }, (_, i) => messageRecord(principal.accountId, sandbox, i, mime.length));
    await mapLimit(records, SETUP_CONCURRENCY, (record) =>
      us.run(async () => {
        await storeMime(record, mime);
        await storeRecord(record);
      }),
    );
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    const notify = (count: number): Notification[] =>
      Array.from({ length: count }, (_, j) => {
        const record = records[j % MESSAGES]!;
        return { record, body: deliveryNotification(record, sending) };
      });
    const notifications = notify(measured);
    // Warm-up and probe: notifications of their own (their own SES message ids, so other events) for the same messages.
    const warmNotifications = notify((WARMUP_BATCHES + 1) * BATCH_SIZE);
    const chunk = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / BATCH_SIZE) }, (_, i) => items.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE));
    const measuredBatches = chunk(notifications);

    // Ours: the worker's handler, in the region's scope, one batch after the other.
    const ours = async (batch: Notification[]) => {
      const result: SQSBatchResponse = await us.run(() => ingestWorker(sqsEvent(batch)));
      if (result.batchItemFailures.length) throw new Error(`the worker failed ${result.batchItemFailures.length} of ${batch.length} notifications`);
    };

    // One probe batch (warm-up notifications, not measured): what the worker calls, and its event
    // item on the wire. The stream consumers wait meanwhile, so only the worker's calls count.
    const doc = await us.run(async () => documentClient());
    us.sqs.pause(STREAM_QUEUE);
    const probe = await watchCalls([doc], () => ours(warmNotifications.slice(0, BATCH_SIZE)));
    us.sqs.resume(STREAM_QUEUE);
    const oursCalls = perUnit(probe.calls, BATCH_SIZE);
    // Events are written with BatchWriteItem (functions/data/store.ts putItems), one or more a call.
    const eventWire = probe.wire.find((w) => w.command === 'BatchWriteItemCommand');
    if (!eventWire) throw new Error('the worker wrote no event item');
    const written = JSON.parse(String(eventWire.body)) as { RequestItems: Record<string, Array<{ PutRequest: { Item: Record<string, AttributeValue> } }>> };
    const template = Object.values(written.RequestItems)[0]![0]!.PutRequest.Item;
    const eventItemBytes = Buffer.byteLength(JSON.stringify(template));

    // The floor and the peer: a plain DynamoDBClient on the same dynalite, items marshalled up front.
    const raw = new DynamoDBClient({ region: us.env.AWS_REGION, endpoint: us.env.DYNAMODB_ENDPOINT });
    atClose(() => raw.destroy());
    const templateSk = template['sk']!.S!;
    let serial = 0;
    const floorItem = (): Record<string, AttributeValue> => {
      // Same partition as the worker's events, a sort key of the same length: the same bytes.
      const id = `floor${String(++serial).padStart(17, '0')}`;
      return { ...template, sk: { S: `${String(Date.now()).padStart(13, '0')}#${id}`.padEnd(templateSk.length, '0') } };
    };
    const floorItems = (batch: Notification[]) => batch.map(() => floorItem());
    // The peer looks up the message each notification names, then writes as the floor does.
    const peerPairs = (batch: Notification[]) => batch.map((n) => ({ key: messageKey(n.record.storageKey), item: floorItem() }));
    const floorBatches = measuredBatches.map(floorItems);
    const peerBatches = measuredBatches.map(peerPairs);
    const floor = async (items: Array<Record<string, AttributeValue>>) => {
      for (const Item of items) await raw.send(new PutItemCommand({ TableName: tableName, Item }));
    };
    const peer = async (pairs: Array<{ key: { pk: string; sk: string }; item: Record<string, AttributeValue> }>) => {
      for (const { key, item } of pairs) {
        const got = await raw.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } } }));
        if (!got.Item) throw new Error(`peer: message ${key.pk} not found`);
        await raw.send(new PutItemCommand({ TableName: tableName, Item: item }));
      }
    };

    note(`event ingest: warm-up (${WARMUP_BATCHES} batches of ${BATCH_SIZE} each for ours, floor and peer)`);
    const warmBatches = chunk(warmNotifications.slice(BATCH_SIZE));
    await runBatches(warmBatches, ours);
    await runBatches(warmBatches.map(floorItems), floor);
    await runBatches(warmBatches.map(peerPairs), peer);

    const perRound = BATCHES / ROUNDS;
    const phases = { ours: [] as Phase[], floor: [] as Phase[], peer: [] as Phase[] };
    for (let round = 0; round < ROUNDS; round++) {
      note(`event ingest: round ${round + 1}/${ROUNDS} (${perRound} batches each: ours, floor, peer; order rotates)`);
      const slice = <T>(all: T[]) => all.slice(round * perRound, (round + 1) * perRound);
      const runs = [
        async () => phases.ours.push(await runBatches(slice(measuredBatches), ours)),
        async () => phases.floor.push(await runBatches(slice(floorBatches), floor)),
        async () => phases.peer.push(await runBatches(slice(peerBatches), peer)),
      ];
      for (let k = 0; k < runs.length; k++) await runs[(k + round) % runs.length]!();
    }

    // The stream consumers' calls for the events of STREAM_PROBE_BATCHES batches, taken in one stream batch as the deployed window gathers them.
    await streamDrained(us);
    us.sqs.pause(STREAM_QUEUE);
    await runBatches(measuredBatches.slice(0, STREAM_PROBE_BATCHES), ours);
    const streamProbe = await watchCalls([doc], async () => {
      us.sqs.resume(STREAM_QUEUE);
      await streamDrained(us);
    });
    const streamEvents = STREAM_PROBE_BATCHES * BATCH_SIZE;

    let profiled: IngestProfile | undefined;
    if (options.profile) {
      // Events the measured runs already recorded, again: the same ids overwrite themselves.
      note(`event ingest: V8 profile of ours (${PROFILE_BATCHES} batches, not used for the figures)`);
      const { profile: p } = await profile(() => runBatches(measuredBatches.slice(0, PROFILE_BATCHES), ours));
      saveProfile('event-ingest-ours', p);
      const s = selfTimes(p, { weight: 'samples' });
      const events = PROFILE_BATCHES * BATCH_SIZE;
      const standIn = dependencyClosure('dynalite');
      const groups = new Map<string, number>();
      for (const [bucket, us2] of s.buckets) {
        if (bucket === '(idle)') continue;
        const group = groupOf(bucket, standIn);
        groups.set(group, (groups.get(group) ?? 0) + us2);
      }
      profiled = {
        batches: PROFILE_BATCHES,
        busyUsPerEvent: (s.totalUs - (s.buckets.get('(idle)') ?? 0)) / events,
        groups: [...groups.entries()].map(([name, v]) => ({ name, usPerEvent: v / events })).sort((a, b) => b.usPerEvent - a.usPerEvent),
        topFunctions: topFunctions(s.functions, events).map(({ name, us: usPerEvent }) => ({ name, usPerEvent })),
      };
    }

    const o = variant('ours', 'functions/delivery/ses-notifications.ts handler (SQS event in, platform.us.run)', phases.ours, oursCalls);
    const f = variant('floor', 'raw PutItem per event (DynamoDBClient, pre-marshalled item of the same size)', phases.floor, { PutItemCommand: 1 });
    const pe = variant('peer', 'raw GetItem (message record) + PutItem per event', phases.peer, { GetItemCommand: 1, PutItemCommand: 1 });
    const r = f.eventsPerSecond / o.eventsPerSecond;
    const check: TargetCheck = { benchmark: 'event ingest', subject: 'events/s, raw PutItem floor / ours (same run)', figure: ratio(r), target: `<= ${MAX_RATIO}x`, pass: r <= MAX_RATIO };
    return {
      batchSize: BATCH_SIZE,
      batchesPerVariant: BATCHES,
      warmupBatches: WARMUP_BATCHES,
      rounds: ROUNDS,
      notificationBytes: median(notifications.map((n) => Buffer.byteLength(n.body))),
      eventItemBytes: { ours: eventItemBytes, floor: Buffer.byteLength(JSON.stringify(floorItem())) },
      ours: o,
      floor: f,
      peer: pe,
      ratio: r,
      peerRatio: pe.eventsPerSecond / o.eventsPerSecond,
      stream: { events: streamEvents, callsPerEvent: perUnit(streamProbe.calls, streamEvents) },
      checks: [check],
      profile: profiled,
      messages: MESSAGES,
      setupSeconds,
      durationSeconds: (performance.now() - started) / 1000,
    };
  });
}

export function printEventIngest(result: EventIngestResult): void {
  const { ours, floor, peer } = result;
  print(`== Event ingest: SES notifications worker, SQS batches of ${result.batchSize} Delivery notifications (1 recipient each), ${result.batchesPerVariant} batches each, ${result.rounds} alternating rounds ==`);
  print(`ours  = ${ours.what}.`);
  print(`floor = ${floor.what}, ${result.batchSize} in a row per batch.`);
  print(`peer  = ${peer.what}: the lookup the worker cannot skip either.`);
  print(
    `All on the same in-process dynalite (local mode, in memory). Notification (SNS envelope) ${result.notificationBytes} B; event item on the wire ` +
      `${result.eventItemBytes.ours} B (ours) / ${result.eventItemBytes.floor} B (floor). After ${result.warmupBatches} warm-up batches each. ` +
      `Took ${fixed(result.durationSeconds, 0)} s (storing the ${result.messages} messages they name: ${fixed(result.setupSeconds, 1)} s).`,
  );
  print();
  const row = (v: IngestVariant) => [v.label, fixed(v.eventsPerSecond, 0), `${fixed(v.batchP50Ms, 2)} ms`, `${fixed(v.batchP99Ms, 2)} ms`, `${fixed(v.processCpuUsPerEvent, 0)} us`, describeCalls(v.callsPerEvent)];
  print(
    table([
      ['', 'events/s', 'batch p50', 'batch p99', 'CPU/event', 'DynamoDB calls per event'],
      row(ours),
      row(floor),
      row(peer),
      ['ratio floor/ours', ratio(result.ratio), '', '', '', `target: <= ${MAX_RATIO}x`],
      ['ratio peer/ours', ratio(result.peerRatio), '', '', '', ''],
    ]),
  );
  print();
  print(
    `Calls per event are the worker's own. The table's stream then hands every event (the floor's and the peer's too) to the counters, tags and webhooks: ` +
      `${describeCalls(result.stream.callsPerEvent)} per event for ${result.stream.events} events taken in one stream batch.`,
  );
  print(`Rounds (events/s): ours ${ours.rounds.map((x) => fixed(x, 0)).join(', ')}; floor ${floor.rounds.map((x) => fixed(x, 0)).join(', ')}; peer ${peer.rounds.map((x) => fixed(x, 0)).join(', ')}.`);
  print('CPU/event = process.cpuUsage() of this whole process per event: dynalite (the stand-in) included, for all three alike.');
  print();
  const p = result.profile;
  if (p) {
    print(`V8 profile of ours (${p.batches} more batches; self time per event, idle excluded, samples counted at the median interval):`);
    print(`sampled busy time per event: ${fixed(p.busyUsPerEvent, 0)} us.`);
    print();
    print(table([['layer', 'us/event'], ...p.groups.map((g) => [g.name, fixed(g.usPerEvent)])]));
    print();
    print(table([['hottest functions (self time per event)', 'us'], ...p.topFunctions.map((f) => [f.name, fixed(f.usPerEvent)])]));
    print();
    print(`Profile: ${OUT_DIR}/event-ingest-ours.cpuprofile (open in Chrome DevTools).`);
    print();
  }
}

if (require.main === module) {
  eventIngest({ profile: !process.argv.includes('--no-profile') })
    .then(printEventIngest)
    .catch((error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    });
}
