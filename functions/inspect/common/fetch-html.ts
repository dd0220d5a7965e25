import { webhookAddressPolicy } from '../../webhooks/url-policy';
import { decoderFor, MAX_HTML_BYTES } from './inspect-input';
import { fetchOnce, followRedirects } from './safe-fetch';
import type { StoredSource } from './source-input';

/** A page behind a few redirects is still the page; more is a loop or a trap. */
const MAX_REDIRECTS = 5;
const FETCH_TIMEOUT_MS = 15_000;

/** Why an email's HTML could not be fetched: the run ends Failed with this as its reason. */
class HtmlFetchError extends Error {
  override name = 'HtmlFetchError';
}

/** The charset the server or the page itself declares, as a browser would read it; UTF-8 otherwise. */
function decoderOf(contentType: string | undefined, body: Buffer): TextDecoder {
  const declared = /charset="?([\w-]+)/i.exec(contentType ?? '')?.[1] ?? /<meta[^>]+charset=["']?([\w-]+)/i.exec(body.subarray(0, 4096).toString('latin1'))?.[1];
  return decoderFor(declared) ?? new TextDecoder('utf-8');
}

/**
 * The HTML at a user's URL, through the SSRF-safe client with the webhooks' address policy (only
 * public addresses on AWS; this machine's loopback too in local mode), following redirects hop by
 * hop so every hop is checked, at most MAX_HTML_BYTES.
 */
export async function fetchHtml(url: string): Promise<string> {
  const final = await followRedirects(url, MAX_REDIRECTS, (target) =>
    fetchOnce(target, { method: 'GET', timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_HTML_BYTES, policy: webhookAddressPolicy(), readBody: true }).catch((error: Error) => {
      throw new HtmlFetchError(`${target} could not be fetched: ${error.message}`);
    }),
  );
  if (!final) throw new HtmlFetchError(`${url} redirects more than ${MAX_REDIRECTS} times`);
  const { outcome, url: target } = final;
  if (outcome.status !== 200) throw new HtmlFetchError(`${target} answered HTTP ${outcome.status}, not the email's HTML`);
  if (outcome.truncated) throw new HtmlFetchError(`The HTML at ${target} is larger than ${MAX_HTML_BYTES / 1024 / 1024} MiB, the most a test accepts`);
  const body = outcome.body ?? Buffer.alloc(0);
  return decoderOf(outcome.headers['content-type'], body).decode(body);
}

/** A stored test input's HTML: as stored, or fetched now from its URL. */
export async function htmlOfStoredSource(source: StoredSource): Promise<string> {
  return 'html' in source ? source.html : fetchHtml(source.url);
}
