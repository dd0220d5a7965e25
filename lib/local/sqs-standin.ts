import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { writeStateFile } from './state-file';
import { readAwsJsonRequest, replyAwsJson } from './aws-json';
import { lambdaContext } from './lambda-context';
import { closeServer, listenOnLoopback, standInServer } from './http';

/** A queue's Lambda consumer, as an event source mapping with ReportBatchItemFailures runs it. */
export type QueueWorker = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface QueueOptions {
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue; never, when absent. */
  maxReceiveCount?: number;
  /**
   * The queue (created here too) that takes messages past maxReceiveCount, as a redrive policy
   * names one; without it they are parked where only depth() sees them.
   */
  deadLetterQueue?: string;
  /**
   * The consumer Lambda's timeout: its context's getRemainingTimeInMillis counts down from this.
   * Nothing stops an invocation that overruns it here, so workers must watch it themselves.
   */
  functionTimeoutSeconds?: number;
  batchSize: number;
  /**
   * When a failed message is offered again. SQS waits out the visibility timeout (the default);
   * a stream retries a failed batch at once, which the event-stream queue imitates.
   */
  retryDelaySeconds?: number;
  /** Batches in flight at once (Lambda's concurrent invocations of the worker); default 1. */
  maxConcurrency?: number;
  /**
   * An event source's batching window (MaximumBatchingWindowInSeconds): a worker is invoked once
   * a full batch is visible, or once the oldest visible message has waited this long. Without
   * one, as Lambda's SQS poller does by default, as soon as any message is visible.
   */
  batchingWindowSeconds?: number;
}

interface StoredMessage {
  id: string;
  body: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
}

interface QueueState {
  messages: StoredMessage[];
  dlq: StoredMessage[];
}

/** Lambda's own default timeout, for a queue whose consumer names none. */
const DEFAULT_FUNCTION_TIMEOUT_SECONDS = 3;

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const INTERNAL_ERROR = 'We encountered an internal error. Please try again.';

/**
 * Amazon SQS for local mode: the handlers send with the real SDK client (queue URLs point here),
 * and each queue's worker is invoked with SQS-shaped events. Visibility timeouts, delays,
 * redelivery of failed batch items and the dead-letter queue behave as SQS's do; queue contents
 * are written to disk before SendMessage answers, so nothing accepted is lost across restarts.
 */
export class SqsStandIn {
  private server?: Server;
  private baseUrl = '';
  private readonly queues = new Map<string, { state: QueueState; options: QueueOptions; worker?: QueueWorker; running: number }>();
  private timer?: NodeJS.Timeout;
  private pumpSoon = false;
  private stopped = false;
  private readonly crashes = new Set<string>();
  private readonly paused = new Set<string>();
  private readonly refusals = new Map<string, number>();
  /** The ids of the messages in batches being delivered now. */
  private readonly delivering = new Set<string>();

  constructor(
    private readonly dataDir: string | undefined,
    private readonly region: string,
    /** Runs worker invocations in the region's configuration. */
    private readonly scope: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  /** Opens the SQS API: producers may send from now on, while no worker runs yet. */
  async listen(): Promise<string> {
    this.server = standInServer((req, res) => this.handle(req, res));
    this.baseUrl = await listenOnLoopback(this.server);
    return this.baseUrl;
  }

  /**
   * Starts invoking the workers, once everything they use is in place. As Lambda's pollers do, a
   * queue is served as soon as it has work and a free invocation: when messages arrive and when an
   * invocation ends. The timer catches what only time makes ready (delays, visibility timeouts,
   * batching windows).
   */
  start(): void {
    this.timer ??= setInterval(() => this.pump(), 50);
  }

  /** A pump once the current call stack is done: many sends (or ends) in a row make one. */
  private schedulePump(): void {
    if (this.pumpSoon || !this.timer) return;
    this.pumpSoon = true;
    setImmediate(() => {
      this.pumpSoon = false;
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // Let in-flight batches finish so their outcome is recorded.
    while ([...this.queues.values()].some((q) => q.running > 0)) await new Promise((resolve) => setTimeout(resolve, 10));
    await closeServer(this.server);
  }

  /** Creates (or reopens) a queue and returns its URL. */
  createQueue(name: string, options: QueueOptions, worker?: QueueWorker): string {
    const file = this.dataDir ? join(this.dataDir, `queue-${name}.json`) : undefined;
    const state: QueueState = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as QueueState) : { messages: [], dlq: [] };
    // Messages that were in flight when the process stopped become visible again, as in SQS.
    for (const message of state.messages) message.visibleAt = Math.min(message.visibleAt, Date.now());
    this.queues.set(name, { state, options, worker, running: 0 });
    return this.queueUrl(name);
  }

  queueUrl(name: string): string {
    return `${this.baseUrl}/000000000000/${name}`;
  }

  /**
   * Fault injection: the next invocation of this queue's worker runs to completion, then counts
   * as crashed (a Lambda timeout after its side effects), so the whole batch is redelivered.
   */
  crashNextInvocation(name: string): void {
    this.crashes.add(name);
  }

  /** Fault injection: the next `count` sends to this queue fail, as SQS answering 500 would. */
  refuseSends(name: string, count: number): void {
    this.refusals.set(name, count);
  }

  private refused(name: string): boolean {
    const left = this.refusals.get(name) ?? 0;
    if (left <= 0) return false;
    this.refusals.set(name, left - 1);
    return true;
  }

  /**
   * Time passing for a queue, for tests: every message received before whose invocation has ended
   * is visible again now, as once its visibility timeout has run out (a delayed message that was
   * never received keeps its delay). Redeliveries then need no waiting out of the timeout.
   */
  expireVisibility(name: string): void {
    const now = Date.now();
    let expired = false;
    for (const message of this.queues.get(name)!.state.messages) {
      if (message.receiveCount === 0 || message.visibleAt <= now || this.delivering.has(message.id)) continue;
      message.visibleAt = now;
      expired = true;
    }
    if (expired) this.schedulePump();
  }

  /** Stops and restarts a queue's consumer, as disabling its Lambda event source mapping does. */
  pause(name: string): void {
    this.paused.add(name);
  }

  resume(name: string): void {
    this.paused.delete(name);
    this.schedulePump();
  }

  /** The queues created, for tests and inspection. */
  queueNames(): string[] {
    return [...this.queues.keys()];
  }

  /** How a queue was created, for tests and inspection. */
  queueOptions(name: string): Readonly<QueueOptions> {
    return this.queues.get(name)!.options;
  }

  /** What a queue holds, for tests and inspection. */
  depth(name: string): { visible: number; inFlight: number; dead: number } {
    const queue = this.queues.get(name)!;
    const now = Date.now();
    return {
      visible: queue.state.messages.filter((m) => m.visibleAt <= now).length,
      inFlight: queue.state.messages.filter((m) => m.visibleAt > now).length,
      dead: queue.state.dlq.length,
    };
  }

  private persist(name: string): void {
    if (this.dataDir) writeStateFile(join(this.dataDir, `queue-${name}.json`), JSON.stringify(this.queues.get(name)!.state));
  }

  /**
   * Sends as a producer inside the host would (SNS delivering to a subscribed queue). On disk when
   * it returns; throws, synchronously, when the send is refused.
   */
  send(queueUrl: string, body: string, delaySeconds = 0): void {
    const name = queueUrl.split('/').pop()!;
    if (!this.accept(name, [{ body, delaySeconds }])) throw Object.assign(new Error(INTERNAL_ERROR), { name: 'SQS.InternalError' });
  }

  /** Several messages at once, written to disk once (the table stream's records of one write call). */
  async sendAll(queueUrl: string, bodies: readonly string[]): Promise<void> {
    const name = queueUrl.split('/').pop()!;
    if (!this.accept(name, bodies.map((body) => ({ body })))) throw Object.assign(new Error(INTERNAL_ERROR), { name: 'SQS.InternalError' });
  }

  /**
   * Enqueues messages and writes the queue to disk once, before the caller hears back; undefined
   * when fault injection refuses the send.
   */
  private accept(name: string, entries: ReadonlyArray<{ body: string; delaySeconds?: number }>): StoredMessage[] | undefined {
    if (this.refused(name)) return undefined;
    const messages = entries.map((entry) => this.enqueue(name, entry.body, entry.delaySeconds ?? 0));
    this.persist(name);
    this.schedulePump();
    return messages;
  }

  private enqueue(name: string, body: string, delaySeconds = 0): StoredMessage {
    const now = Date.now();
    const message = { id: randomUUID(), body, sentAt: now, visibleAt: now + delaySeconds * 1000, receiveCount: 0 };
    this.queues.get(name)!.state.messages.push(message);
    return message;
  }

  private pump(): void {
    if (this.stopped) return;
    for (const [name, queue] of this.queues) {
      const worker = queue.worker;
      if (!worker || this.paused.has(name)) continue;
      const now = Date.now();
      const windowMs = (queue.options.batchingWindowSeconds ?? 0) * 1000;
      let taken = false;
      while (queue.running < (queue.options.maxConcurrency ?? 1)) {
        const visible = queue.state.messages.filter((m) => m.visibleAt <= now);
        // Within its batching window a queue waits for a full batch, from when its oldest visible message became visible.
        // A message offered again after a failure is not held back by it.
        if (windowMs > 0 && visible.length < queue.options.batchSize && visible.every((m) => m.receiveCount === 0 && Math.max(m.sentAt, m.visibleAt) + windowMs > now)) break;
        const batch = visible.slice(0, queue.options.batchSize);
        if (!batch.length) break;
        queue.running += 1;
        for (const message of batch) {
          message.receiveCount += 1;
          message.visibleAt = now + queue.options.visibilityTimeoutSeconds * 1000;
        }
        taken = true;
        for (const message of batch) this.delivering.add(message.id);
        void this.deliver(name, worker, batch).finally(() => {
          for (const message of batch) this.delivering.delete(message.id);
          queue.running -= 1;
          this.schedulePump();
        });
      }
      // The receive counts and visibility of every batch taken, written once.
      if (taken) this.persist(name);
    }
  }

  private async deliver(name: string, worker: QueueWorker, batch: StoredMessage[]): Promise<void> {
    const queue = this.queues.get(name)!;
    const event: SQSEvent = {
      Records: batch.map((m) => ({
        messageId: m.id,
        receiptHandle: m.id,
        body: m.body,
        attributes: {
          ApproximateReceiveCount: String(m.receiveCount),
          SentTimestamp: String(m.sentAt),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: md5(m.body),
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:${this.region}:000000000000:${name}`,
        awsRegion: this.region,
      })),
    };
    let failed: Set<string>;
    try {
      const result = await this.scope(() => worker(event, lambdaContext(`mailplane-${name}-worker`, (queue.options.functionTimeoutSeconds ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS) * 1000)));
      failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      if (this.crashes.delete(name)) failed = new Set(batch.map((m) => m.id));
    } catch (error) {
      // A thrown error fails the whole batch, as with Lambda.
      process.stderr.write(`local queue ${name}: worker failed: ${(error as Error).stack ?? String(error)}\n`);
      failed = new Set(batch.map((m) => m.id));
    }
    const done = new Set(batch.filter((m) => !failed.has(m.id)).map((m) => m.id));
    queue.state.messages = queue.state.messages.filter((m) => !done.has(m.id));
    for (const message of batch.filter((m) => failed.has(m.id))) {
      if (queue.options.retryDelaySeconds !== undefined) message.visibleAt = Date.now() + queue.options.retryDelaySeconds * 1000;
      if (queue.options.maxReceiveCount !== undefined && message.receiveCount >= queue.options.maxReceiveCount) {
        queue.state.messages = queue.state.messages.filter((m) => m.id !== message.id);
        this.deadLetter(name, message);
      }
    }
    this.persist(name);
  }

  /** Moves a message to the queue's dead-letter queue, keeping its id and body as SQS does. */
  private deadLetter(name: string, message: StoredMessage): void {
    const target = this.queues.get(name)!.options.deadLetterQueue;
    if (!target) {
      this.queues.get(name)!.state.dlq.push(message);
      return;
    }
    this.queues.get(target)!.state.messages.push({ ...message, receiveCount: 0, visibleAt: Date.now() });
    this.persist(target);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, payload: unknown) => replyAwsJson(res, status, payload);
    const { operation: target, input } = await readAwsJsonRequest(req);
    if (!input) return reply(400, { __type: 'com.amazonaws.sqs#InvalidParameterValue', message: 'Malformed JSON' });
    const name = String(input['QueueUrl'] ?? '').split('/').pop() ?? '';
    if (!this.queues.has(name)) return reply(400, { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: `The specified queue ${name} does not exist.` });
    if (target === 'SendMessage' || target === 'SendMessageBatch') {
      const entries =
        target === 'SendMessage'
          ? [{ Id: '', MessageBody: String(input['MessageBody']), DelaySeconds: Number(input['DelaySeconds'] ?? 0) }]
          : ((input['Entries'] as Array<{ Id: string; MessageBody: string; DelaySeconds?: number }>) ?? []);
      const messages = this.accept(name, entries.map((entry) => ({ body: entry.MessageBody, delaySeconds: entry.DelaySeconds })));
      if (!messages) return reply(500, { __type: 'com.amazonaws.sqs#InternalError', message: INTERNAL_ERROR });
      const sent = messages.map((message, i) => ({ Id: entries[i]!.Id, MessageId: message.id, MD5OfMessageBody: md5(message.body) }));
      if (target === 'SendMessage') return reply(200, { MessageId: sent[0]!.MessageId, MD5OfMessageBody: sent[0]!.MD5OfMessageBody });
      return reply(200, { Successful: sent, Failed: [] });
    }
    return reply(400, { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: `${target} is not supported by the local stand-in` });
  }
}
