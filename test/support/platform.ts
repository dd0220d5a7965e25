import { request, type IncomingHttpHeaders } from 'node:http';
import Mailgun from 'mailgun.js';
import { getItem } from '../../functions/data/store';
import type { EventData } from '../../functions/events/event-store';
import { startLocal, type LocalOptions, type LocalPlatform } from '../../lib/local/platform';
import type { RegionHost } from '../../lib/local/region-host';
import { accountKeys } from '../../functions/accounts/account-store';

export { eventually } from './eventually';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

/**
 * Both regions in-process on ephemeral ports, in memory unless a data dir is given, with local
 * mode's own defaults: the suites send from the sandbox domain to made-up recipients, as local
 * mode lets anyone do (SANDBOX_RECIPIENTS=any); sandbox-recipients.test.ts sets Mailgun's rule.
 * EVENT_SHARDS in the test run's environment reaches the platform (`EVENT_SHARDS=4 npx jest
 * test/integration/logs.test.ts` reads the same events spread over shards).
 * The workflow definitions are not validated at each start: test/unit/local/workflow-runner.test.ts
 * validates every one once.
 */
export function startTestPlatform(options: LocalOptions = {}): Promise<LocalPlatform> {
  return startLocal({ port: 0, dataDir: null, bootstrapApiKey: ADMIN_KEY, authorizerCacheSeconds: 0, validateWorkflows: false, ...options, env: { EVENT_SHARDS: process.env.EVENT_SHARDS, ...options.env } });
}

/** The official JS SDK pointed at a local region, as a user would configure it. */
export function sdk(url: string, key = ADMIN_KEY) {
  return new Mailgun(FormData).client({ username: 'api', key, url });
}

/** The name of the sandbox domain of the account a client signs in as. */
export async function sandboxOf(client: ReturnType<typeof sdk>): Promise<string> {
  return (await client.domains.list()).find((d) => d.type === 'sandbox')!.name;
}

/** The API keys client: mailgun.js has it at run time, its TypeScript interface does not list it. */
export function apiKeys(client: ReturnType<typeof sdk>) {
  return (client as unknown as { apiKeys: ApiKeysClient }).apiKeys;
}

interface ApiKeysClient {
  list(query?: Record<string, string>): Promise<{ items: Array<{ id: string; kind: string; role: string; domain_name: string | null }> }>;
  create(form: Record<string, string>): Promise<{ id: string; secret: string; role: string; kind: string; expires_at?: Date; created_at: Date }>;
  destroy(id: string): Promise<{ status: number; message: string }>;
}

/**
 * A raw request, for what the SDK cannot send (no credentials, malformed bodies, bodies on GET,
 * which fetch refuses and API Gateway accepts).
 */
export function call(
  url: string,
  init: { method?: string; key?: string | null; body?: string | Buffer; contentType?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; contentType: string | undefined; headers: IncomingHttpHeaders; json: Record<string, unknown>; text: string }> {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? ADMIN_KEY : init.key;
  if (key !== null) headers['authorization'] = `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
  if (init.contentType) headers['content-type'] = init.contentType;
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  return new Promise((resolve, reject) => {
    // A fresh connection per call: a reused keep-alive socket can race the server's idle timeout.
    const req = request(url, { method: init.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], headers: res.headers, json: json as Record<string, unknown>, text });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** The error a mailgun.js call rejected with (status and server message), or fails the test. */
export async function sdkError(promise: Promise<unknown>): Promise<{ status: number; details: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { status: number; details: string };
    return { status: e.status, details: e.details };
  }
  throw new Error('expected the SDK call to fail');
}

/**
 * The events of one message, as the events API lists them (newest first unless `ascending`).
 * `messageId` is the id mailgun.js returns, in angle brackets.
 */
export async function eventsOf<E = EventData>(url: string, domain: string, messageId: string, options: { ascending?: boolean } = {}): Promise<E[]> {
  const id = encodeURIComponent(messageId.replace(/^<|>$/g, ''));
  const res = await call(`${url}/v3/${domain}/events?message-id=${id}${options.ascending ? '&ascending=yes' : ''}&limit=300`);
  return res.json.items as E[];
}

/** What a region's SES stand-in was handed for one message (its id appears in the raw MIME), in order. */
export function sesSendsOf(region: RegionHost, messageId: string) {
  return region.ses.sent.filter((m) => m.raw.toString().includes(messageId));
}

/** The id of a region's primary account (the one the admin key belongs to), as stored at bootstrap. */
export function primaryAccountId(region: RegionHost): Promise<string> {
  return region.run(async () => (await getItem<{ value: string }>(accountKeys.primaryAccount()))!.value);
}
