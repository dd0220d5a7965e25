import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { forbiddenAddressCategory, type AddressPolicy } from './address-policy';
import { literalAddress } from './url-policy';

/** What a receiver answered. */
export interface PostResult {
  status: number;
  /** The start of the reply body, as text (for the webhook test endpoint's `message`). */
  body: string;
}

/** No HTTP answer at all: refused address, DNS failure, connection error or timeout. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly kind: 'forbidden-address' | 'network' | 'timeout',
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

const MAX_REPLY_BYTES = 16 * 1024;

/**
 * A DNS lookup that refuses the addresses `policy` forbids, checked on the addresses the socket will
 * use: a host that resolved to a public address when the webhook was saved may resolve to
 * 169.254.169.254 now (DNS rebinding). Handles both the single-address and the `all` form Node's
 * connect asks for. `what` names what is being reached, for the refusal.
 */
export function guardedLookup(policy: AddressPolicy, what = 'webhooks'): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...(options as LookupOptions), all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const category = forbiddenAddressCategory(address, policy);
        if (category) {
          const refused = Object.assign(new Error(`${hostname} resolves to a ${category} address, which ${what} may not reach`), { code: 'EWEBHOOKFORBIDDEN' });
          return callback(refused, '', 0);
        }
      }
      if ((options as LookupOptions).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Kept-alive connections: a receiver gets many deliveries in a row, and a TLS handshake each would
 * dominate the cost. One set of agents per policy: a reused socket skips the lookup, so a socket
 * opened where loopback is allowed must never serve a request where it is not (two local regions,
 * or tests, can differ in one process).
 */
const pools = new Map<boolean, { http: HttpAgent; https: HttpsAgent; lookup: LookupFunction }>();

function poolFor(policy: AddressPolicy) {
  let pool = pools.get(policy.allowLoopback);
  if (!pool) {
    pool = { http: new HttpAgent({ keepAlive: true, maxSockets: 50 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 50 }), lookup: guardedLookup(policy) };
    pools.set(policy.allowLoopback, pool);
  }
  return pool;
}

/**
 * POSTs a body (JSON unless `contentType` says otherwise: routes post multipart forms) to a webhook
 * URL and reads the start of the reply, within `timeoutMs` from the first byte sent to the last byte read. Redirects are not followed (a 3xx is an answer, and
 * following one would bypass the address check). Addresses `policy` forbids are refused before
 * connecting, both IP literals (which Node never looks up) and resolved names. `headers` are added
 * to the request's own (alerts sign their body in `X-Sign`).
 */
export function postJson(target: string, body: string | Buffer, options: { timeoutMs: number; policy: AddressPolicy; contentType?: string; headers?: Record<string, string> }): Promise<PostResult> {
  const headers = { ...options.headers, 'content-type': options.contentType ?? 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  return exchange('POST', target, body, headers, options);
}

/**
 * GETs a URL under the same rules as postJson (address policy, no redirects, one timeout): how an
 * alert's webhook URL is checked before it is saved, as Mailgun checks it.
 */
export function getUrl(target: string, options: { timeoutMs: number; policy: AddressPolicy }): Promise<PostResult> {
  return exchange('GET', target, undefined, {}, options);
}

function exchange(method: 'GET' | 'POST', target: string, body: string | Buffer | undefined, headers: Record<string, string>, options: { timeoutMs: number; policy: AddressPolicy }): Promise<PostResult> {
  const url = new URL(target);
  const literal = literalAddress(url.hostname);
  if (literal) {
    const category = forbiddenAddressCategory(literal, options.policy);
    if (category) return Promise.reject(new DeliveryError(`${literal} is a ${category} address, which webhooks may not reach`, 'forbidden-address'));
  }
  const https = url.protocol === 'https:';
  const pool = poolFor(options.policy);
  const requestOptions: RequestOptions = {
    method,
    agent: https ? pool.https : pool.http,
    headers: { ...headers, 'user-agent': 'mailplane-webhooks/1' },
    signal: AbortSignal.timeout(options.timeoutMs),
    lookup: pool.lookup,
  };
  return new Promise<PostResult>((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(url, requestOptions, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        // The rest is read and dropped, so the connection can be reused.
        if (size < MAX_REPLY_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, MAX_REPLY_BYTES).toString('utf8') }));
      res.on('error', (error) => reject(toDeliveryError(error)));
    });
    req.on('error', (error) => reject(toDeliveryError(error)));
    req.end(body);
  });
}

function toDeliveryError(error: Error & { code?: string }): DeliveryError {
  if (error.code === 'EWEBHOOKFORBIDDEN') return new DeliveryError(error.message, 'forbidden-address');
  if (error.name === 'AbortError' || error.name === 'TimeoutError' || error.code === 'ABORT_ERR') return new DeliveryError('timed out', 'timeout');
  return new DeliveryError(error.code ?? error.message, 'network');
}
