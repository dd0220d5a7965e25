/**
 * Watches the platform's own SDK clients (functions/platform/aws-clients.ts) for a while: which
 * AWS calls a handler makes, and what it sends. Bench-only instrumentation added to the clients'
 * middleware stacks and removed afterwards; the code under test is not changed.
 */

export interface SentCall {
  /** SDK command name (DynamoDB document commands report the underlying one, e.g. PutItemCommand). */
  command: string;
  /** The command input as the handler gave it. */
  input: Record<string, unknown>;
  /** What the call answered (absent while in flight or when it failed). */
  output?: Record<string, unknown>;
  /** performance.now() when the call was sent and when it settled. */
  startedAt: number;
  endedAt?: number;
}

/** One HTTP request as the SDK built it (after marshalling). */
export interface WireRequest {
  command: string;
  /** The JSON text for the JSON protocols (DynamoDB, SQS); S3 bodies are whatever the caller gave. */
  body: unknown;
}

type Handler = (args: { input: Record<string, unknown>; request?: { body?: unknown } }) => Promise<{ output?: Record<string, unknown> }>;
interface Stack {
  add(middleware: (next: Handler, context: { commandName?: string }) => Handler, options: { step: 'initialize' | 'build'; name: string }): void;
  remove(name: string): boolean;
}

let installs = 0;

/** Records every call `clients` send while `fn` runs. */
export async function watchCalls<T>(clients: ReadonlyArray<{ middlewareStack: unknown }>, fn: () => Promise<T>): Promise<{ result: T; calls: SentCall[]; wire: WireRequest[] }> {
  const calls: SentCall[] = [];
  const wire: WireRequest[] = [];
  const name = `benchWatch${++installs}`;
  const stacks = clients.map((c) => c.middlewareStack as Stack);
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        const call: SentCall = { command: context.commandName ?? '?', input: args.input, startedAt: performance.now() };
        calls.push(call);
        try {
          const result = await next(args);
          call.output = result.output;
          return result;
        } finally {
          call.endedAt = performance.now();
        }
      },
      { step: 'initialize', name: `${name}i` },
    );
    stack.add(
      (next, context) => async (args) => {
        // Read as bytes: string methods on the SDK's Uint8Array body make it log a deprecation warning.
        const body = args.request?.body;
        wire.push({ command: context.commandName ?? '?', body: body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8') : body });
        return next(args);
      },
      { step: 'build', name: `${name}b` },
    );
  }
  try {
    return { result: await fn(), calls, wire };
  } finally {
    for (const stack of stacks) {
      stack.remove(`${name}i`);
      stack.remove(`${name}b`);
    }
  }
}

/** The calls in the order sent, grouped where they were in flight together (a Promise.all). */
export function concurrentSteps(calls: readonly SentCall[]): SentCall[][] {
  const steps: SentCall[][] = [];
  let end = -Infinity;
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    if (call.startedAt < end) steps.at(-1)!.push(call);
    else steps.push([call]);
    end = Math.max(end, call.endedAt ?? Infinity);
  }
  return steps;
}

/** Calls per unit of work, by command (`n` units ran). */
export function perUnit(calls: readonly SentCall[], n: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const c of calls) counts[c.command] = (counts[c.command] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / n]));
}

export const describeCalls = (perUnitCounts: Record<string, number>): string =>
  Object.entries(perUnitCounts)
    .map(([k, n]) => `${Number.isInteger(n) ? n : n.toFixed(2)} ${k.replace(/Command$/, '')}`)
    .join(' + ') || 'none';
