import Mailgun from 'mailgun.js';
import { startLocal, type LocalOptions, type LocalPlatform } from '../../lib/local/platform';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

/** Both regions in-process on ephemeral ports, in memory unless a data dir is given. */
export function startTestPlatform(options: LocalOptions = {}): Promise<LocalPlatform> {
  return startLocal({ port: 0, dataDir: null, bootstrapApiKey: ADMIN_KEY, ...options });
}

/** The official JS SDK pointed at a local region, as a user would configure it. */
export function sdk(url: string, key = ADMIN_KEY) {
  return new Mailgun(FormData).client({ username: 'api', key, url });
}

/** A raw request, for what the SDK cannot send (no credentials, malformed bodies). */
export async function call(
  url: string,
  init: { method?: string; key?: string | null; body?: string | Buffer; contentType?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? ADMIN_KEY : init.key;
  if (key !== null) headers['authorization'] = `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
  if (init.contentType) headers['content-type'] = init.contentType;
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type'), json: json as Record<string, unknown>, text };
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
