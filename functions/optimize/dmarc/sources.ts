import { getDomain } from 'tldts';
import { mapLimit } from '../../platform/concurrency';
import { reverseLookup } from '../../platform/dns';

/**
 * Who sent what a DMARC report counts: each source IP's PTR name, its registrable domain, and,
 * for the major senders below (our own short table, from their published sending host names),
 * a name and a kind. Anything else is named by its domain; an IP without a PTR is `unknown`.
 */
const KNOWN_SENDERS: ReadonlyArray<{ domains: readonly string[]; source: string; name: string; type: string }> = [
  { domains: ['amazonses.com'], source: 'amazonses', name: 'Amazon SES', type: 'ESP' },
  { domains: ['mailgun.net', 'mailgun.org'], source: 'mailgun', name: 'Mailgun', type: 'ESP' },
  { domains: ['sendgrid.net'], source: 'sendgrid', name: 'SendGrid', type: 'ESP' },
  { domains: ['sparkpostmail.com'], source: 'sparkpost', name: 'SparkPost', type: 'ESP' },
  { domains: ['mailjet.com'], source: 'mailjet', name: 'Mailjet', type: 'ESP' },
  { domains: ['mtasv.net'], source: 'postmark', name: 'Postmark', type: 'ESP' },
  { domains: ['sendinblue.com', 'brevo.com'], source: 'brevo', name: 'Brevo', type: 'ESP' },
  { domains: ['mcsv.net', 'mcdlv.net', 'rsgsv.net', 'mandrillapp.com'], source: 'mailchimp', name: 'Mailchimp', type: 'ESP' },
  { domains: ['google.com', 'googlemail.com'], source: 'google', name: 'Google Workspace', type: 'ISP' },
  { domains: ['outlook.com', 'protection.outlook.com', 'hotmail.com'], source: 'microsoft', name: 'Microsoft 365', type: 'ISP' },
  { domains: ['yahoo.com', 'yahoodns.net'], source: 'yahoo', name: 'Yahoo', type: 'ISP' },
  { domains: ['zendesk.com'], source: 'zendesk', name: 'Zendesk', type: 'SaaS' },
  { domains: ['salesforce.com', 'exacttarget.com'], source: 'salesforce', name: 'Salesforce', type: 'SaaS' },
  { domains: ['hubspotemail.net'], source: 'hubspot', name: 'HubSpot', type: 'SaaS' },
];

export interface SourceOf {
  /** URL-safe slug of the sender (a known one, or the PTR's registrable domain, or `unknown`). */
  source: string;
  name: string;
  type: string;
  /** The PTR name, or `unknown`. */
  host: string;
}

const UNKNOWN = 'unknown';

export function sourceOfHost(host: string | undefined): SourceOf {
  if (!host) return { source: UNKNOWN, name: 'Unknown', type: UNKNOWN, host: UNKNOWN };
  const base = getDomain(host) ?? host;
  const known = KNOWN_SENDERS.find((sender) => sender.domains.includes(base));
  return known ? { source: known.source, name: known.name, type: known.type, host } : { source: base, name: base, type: UNKNOWN, host };
}

/**
 * PTR answers kept for an hour per container, as a caching resolver would keep them: receivers
 * report the same senders day after day, and a large report names hundreds of IPs.
 */
const PTR_TTL_MS = 3600_000;
const PTR_CACHE_MAX = 50_000;
const ptrCache = new Map<string, { at: number; host: string | undefined }>();

async function ptrOf(ip: string, now: number): Promise<string | undefined> {
  const hit = ptrCache.get(ip);
  if (hit && now - hit.at < PTR_TTL_MS) return hit.host;
  const host = (await reverseLookup(ip))[0];
  if (ptrCache.size >= PTR_CACHE_MAX) ptrCache.delete(ptrCache.keys().next().value!);
  ptrCache.set(ip, { at: now, host });
  return host;
}

/** Each IP's source, from its PTR (looked up a few at a time). */
export async function sourcesOf(ips: readonly string[], now = Date.now()): Promise<Map<string, SourceOf>> {
  const found = await mapLimit([...new Set(ips)], 64, async (ip) => [ip, sourceOfHost(await ptrOf(ip, now))] as const);
  return new Map(found);
}
