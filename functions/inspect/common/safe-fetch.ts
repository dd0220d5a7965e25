import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkServerIdentity, rootCertificates, type PeerCertificate, type TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import { forbiddenAddressCategory, type AddressPolicy } from '../../webhooks/address-policy';
import { guardedLookup } from '../../webhooks/http-post';
import { literalAddress } from '../../webhooks/url-policy';

/**
 * The one client every inspection fetch of a user-given URL goes through (links, images, an
 * email's HTML by URL): the webhooks' address policy, applied to IP literals before connecting and
 * to every address a name resolves to (so DNS rebinding cannot reach the metadata service), http
 * and https only, bounded bytes and time. Redirects are never followed here: each hop is a new
 * call, so each hop is checked.
 *
 * Each call opens its own connection: a reused keep-alive socket would skip the TLS handshake,
 * and with it the certificate the link check reports, and would mix policies between callers.
 */

export interface FetchTimings {
  dnsMs?: number;
  connectMs?: number;
  tlsMs?: number;
  firstByteMs: number;
  totalMs: number;
}

/** The server certificate of an https hop, read even when it does not verify. */
export interface TlsReport {
  authorized: boolean;
  /** Node's code: CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID, ... */
  error?: string;
  subject?: string;
  issuer?: string;
  validTo?: string;
}

export interface FetchOutcome {
  status: number;
  headers: Record<string, string>;
  body?: Buffer;
  /** The body was longer than maxBytes and was cut there. */
  truncated: boolean;
  timings: FetchTimings;
  tls?: TlsReport;
}

export type FetchErrorKind = 'forbidden-address' | 'dns' | 'network' | 'timeout' | 'scheme';

export class FetchError extends Error {
  override name = 'FetchError';
  constructor(
    message: string,
    readonly kind: FetchErrorKind,
    readonly timings?: Partial<FetchTimings>,
  ) {
    super(message);
  }
}

export interface FetchOptions {
  method: 'HEAD' | 'GET';
  userAgent?: string;
  timeoutMs: number;
  maxBytes: number;
  policy: AddressPolicy;
  readBody?: boolean;
  /** Roots trusted beside Node's own (a local CA); Node's bundle alone when absent. */
  ca?: readonly string[];
}

function tlsReportOf(socket: TLSSocket, hostname: string): TlsReport {
  const cert = socket.getPeerCertificate() as PeerCertificate | undefined;
  const present = cert && Object.keys(cert).length > 0;
  let error = socket.authorized ? undefined : String(socket.authorizationError ?? 'UNABLE_TO_VERIFY');
  // With rejectUnauthorized off Node skips the name check; a certificate for another host is not valid here.
  if (!error && present) {
    const mismatch = checkServerIdentity(hostname, cert);
    if (mismatch) error = (mismatch as Error & { code?: string }).code ?? 'ERR_TLS_CERT_ALTNAME_INVALID';
  }
  return {
    authorized: !error,
    ...(error ? { error } : {}),
    ...(present && cert.subject?.CN ? { subject: String(cert.subject.CN) } : {}),
    ...(present && cert.issuer?.CN ? { issuer: String(cert.issuer.CN) } : {}),
    ...(present && cert.valid_to ? { validTo: new Date(cert.valid_to).toISOString() } : {}),
  };
}

const elapsed = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

function headersOf(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function errorOf(error: Error & { code?: string }, timings: Partial<FetchTimings>): FetchError {
  if (error instanceof FetchError) return error;
  if (error.code === 'EWEBHOOKFORBIDDEN') return new FetchError(error.message.replace('webhooks may not reach', 'inspection may not fetch'), 'forbidden-address', timings);
  if (error.name === 'AbortError' || error.name === 'TimeoutError' || error.code === 'ABORT_ERR') return new FetchError('timed out', 'timeout', timings);
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN' || error.code === 'ENODATA') return new FetchError(`DNS lookup failed (${error.code})`, 'dns', timings);
  return new FetchError(error.code ?? error.message, 'network', timings);
}

/** One request to `target`, redirects not followed; resolves with the answer or rejects with a FetchError. */
export function fetchOnce(target: string, options: FetchOptions): Promise<FetchOutcome> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.reject(new FetchError('not an absolute URL', 'scheme'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new FetchError(`${url.protocol} URLs are not fetched`, 'scheme'));
  const literal = literalAddress(url.hostname);
  if (literal) {
    const category = forbiddenAddressCategory(literal, options.policy);
    if (category) return Promise.reject(new FetchError(`${literal} is a ${category} address, which inspection may not fetch`, 'forbidden-address'));
  }
  const https = url.protocol === 'https:';
  const start = process.hrtime.bigint();
  const timings: Partial<FetchTimings> = {};
  const requestOptions: RequestOptions & { rejectUnauthorized?: boolean; servername?: string; ca?: string[] } = {
    method: options.method,
    agent: false,
    headers: { 'user-agent': options.userAgent || DEFAULT_USER_AGENT, accept: '*/*', 'accept-encoding': 'identity' },
    signal: AbortSignal.timeout(options.timeoutMs),
    lookup: guardedLookup(options.policy),
    // Expired, self-signed and mismatched certificates are findings to report, not reasons to stop.
    ...(https ? { rejectUnauthorized: false, servername: literal ? undefined : url.hostname, ...(options.ca ? { ca: [...rootCertificates, ...options.ca] } : {}) } : {}),
  };
  return new Promise<FetchOutcome>((resolve, reject) => {
    let tls: TlsReport | undefined;
    const req = (https ? httpsRequest : httpRequest)(url, requestOptions, (res) => {
      timings.firstByteMs = elapsed(start);
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: headersOf(res),
          ...(options.readBody ? { body: Buffer.concat(chunks) } : {}),
          truncated,
          timings: { ...timings, firstByteMs: timings.firstByteMs!, totalMs: elapsed(start) },
          ...(tls ? { tls } : {}),
        });
      if (!options.readBody || options.method === 'HEAD') {
        res.resume();
        res.on('end', finish);
        res.on('error', finish);
        // Nothing of the body is wanted: stop at the headers rather than wait for a large download.
        res.destroy();
        finish();
        return;
      }
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        if (size + chunk.length > options.maxBytes) {
          chunks.push(chunk.subarray(0, options.maxBytes - size));
          size = options.maxBytes;
          truncated = true;
          res.destroy();
          finish();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', finish);
      res.on('error', (error) => (truncated ? undefined : reject(errorOf(error, timings))));
    });
    req.on('socket', (socket: Socket) => {
      socket.once('lookup', () => (timings.dnsMs = elapsed(start)));
      socket.once('connect', () => (timings.connectMs = elapsed(start)));
      if (https)
        socket.once('secureConnect', () => {
          timings.tlsMs = elapsed(start);
          tls = tlsReportOf(socket as TLSSocket, url.hostname.replace(/^\[|\]$/g, ''));
        });
    });
    req.on('error', (error) => reject(errorOf(error, timings)));
    req.end();
  });
}

/** What a browser-like client says when the caller names no user agent: some sites refuse bare clients. */
const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; MailplaneInspect/1.0; +https://github.com/mailplane)';

/**
 * Where a chain of redirects ends: each hop a new call of `fetchHop` (so each is checked against
 * the address policy), `Location` resolved against the hop that sent it. Answers the last hop's
 * outcome and URL, or undefined when there are more than `maxRedirects`.
 */
export async function followRedirects(url: string, maxRedirects: number, fetchHop: (target: string) => Promise<FetchOutcome>): Promise<{ outcome: FetchOutcome; url: string } | undefined> {
  let target = url;
  for (let hop = 0; hop <= maxRedirects; hop++) {
    const outcome = await fetchHop(target);
    const location = outcome.status >= 300 && outcome.status < 400 ? outcome.headers['location'] : undefined;
    if (!location) return { outcome, url: target };
    target = new URL(location, target).href;
  }
  return undefined;
}
