import type { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { BadRequest } from '../platform/errors';
import { env } from '../platform/env';
import { MAX_LENGTH } from '../platform/http/params';
import { forbiddenAddressCategory, type AddressPolicy } from './address-policy';

/** What webhooks may reach in this deployment: the newer setting wins over its deprecated alias. */
export function webhookAddressPolicy(): AddressPolicy {
  const { WEBHOOK_ALLOW_LOOPBACK_URLS: loopback, WEBHOOK_ALLOW_PRIVATE_URLS: legacy } = env();
  return { allowLoopback: loopback ?? legacy };
}

/** Longest URL accepted: a webhook URL is stored on every type it serves and travels in every queue message. */
const MAX_URL_LENGTH = MAX_LENGTH.url;

/** The host of a URL as an IP literal, brackets stripped, or undefined for a name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

/**
 * Parses a webhook URL: absolute http(s), a host, no fragment games. Returns it as given (trimmed)
 * so a client reads back exactly what it stored; refuses with Mailgun's wording,
 * `<url> is not a valid url: <why>`.
 */
function parseWebhookUrl(raw: string): URL {
  const text = raw.trim();
  const refuse = (why: string): never => {
    throw new BadRequest(`${text} is not a valid url: ${why}`);
  };
  if (text.length > MAX_URL_LENGTH) refuse(`longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('malformed URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('invalid URL scheme');
  if (!url.hostname) refuse('host not found');
  return url;
}

/** Every address a host name resolves to (the system resolver, as the delivery will use). */
async function addressesOf(hostname: string): Promise<string[]> {
  // Loaded on the first check, not with the module: most webhook requests store or test no URL, so
  // their cold starts need not load node:dns/promises.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  const { lookup } = require('node:dns/promises') as { lookup: typeof dnsLookup };
  try {
    return (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
}

/**
 * Checks a webhook URL before it is stored (and before a test POST). The host must resolve only to
 * addresses the policy allows: a URL naming 169.254.169.254, or a name resolving there, must not
 * become a probe into the platform's network. The check is repeated at delivery against the address
 * actually connected to (http-post.ts), since DNS can change in between.
 *
 * On AWS a name that does not resolve is refused. Where loopback is allowed (local
 * mode) it is accepted: the developer may be offline or still adding a hosts entry, and delivery
 * checks whatever it resolves to by then. A name that does resolve is judged like anywhere else.
 */
export async function checkWebhookUrl(raw: string): Promise<string> {
  const url = parseWebhookUrl(raw);
  const text = raw.trim();
  const refusal = await hostRefusal(url.hostname, webhookAddressPolicy());
  if (refusal === 'host not found') throw new BadRequest(`${text} is not a valid url: host not found`);
  if (refusal) throw new BadRequest(`${text} is not a valid url: its host resolves to a ${refusal} address, which webhooks may not reach`);
  return text;
}

/**
 * Why the platform may not reach a host a user gave (a URL's, an IMAP server's) under `policy`:
 * `host not found`, or the category of an address it resolves to (`private`, `cloud metadata`,
 * ...); undefined when it may. On AWS a name that does not resolve is refused; where loopback is
 * allowed (local mode) it passes, and the connection checks whatever it resolves to by then.
 */
export async function hostRefusal(hostname: string, policy: AddressPolicy): Promise<string | undefined> {
  const literal = literalAddress(hostname);
  const addresses = literal ? [literal] : await addressesOf(hostname);
  if (!addresses.length) return policy.allowLoopback ? undefined : 'host not found';
  for (const address of addresses) {
    const category = forbiddenAddressCategory(address, policy);
    if (category) return category;
  }
  return undefined;
}

/** Checks several URLs, each once, in the given order. */
export async function checkWebhookUrls(raws: readonly string[]): Promise<string[]> {
  return Promise.all(raws.map(checkWebhookUrl));
}
