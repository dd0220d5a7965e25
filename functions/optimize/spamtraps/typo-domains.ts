import { distance } from 'fastest-levenshtein';
import { lookup } from '../../platform/dns';

/**
 * Typo-domain exposure (optimize contract 2.4): a recipient domain one or two edits from a major
 * mailbox provider's that has no mail server is almost always a mistyped address, and such domains
 * are where typo traps are parked. Counted as suspected exposure, not confirmed hits.
 */
const MAJOR_MAILBOX_DOMAINS = [
  'gmail.com', 'googlemail.com', 'hotmail.com', 'outlook.com', 'live.com', 'msn.com', 'yahoo.com', 'ymail.com',
  'icloud.com', 'me.com', 'aol.com', 'gmx.com', 'gmx.de', 'web.de', 'mail.ru', 'yandex.ru', 'protonmail.com',
  'proton.me', 'zoho.com', 'comcast.net', 'orange.fr', 'free.fr', 't-online.de', 'qq.com', '163.com',
] as const;

const MAJOR = new Set<string>(MAJOR_MAILBOX_DOMAINS);
const MAX_EDITS = 2;

/** The major domain `domain` is a near miss of, if any (never the domain itself). */
export function nearMajorDomain(domain: string): string | undefined {
  const name = domain.toLowerCase();
  if (MAJOR.has(name)) return undefined;
  return MAJOR_MAILBOX_DOMAINS.find((major) => Math.abs(major.length - name.length) <= MAX_EDITS && distance(major, name) <= MAX_EDITS);
}

// MX answers per domain for an hour: a batch of events names the same few domains again and again.
const MX_TTL_MS = 3_600_000;
const mxCache = new Map<string, { at: number; hasMx: boolean | undefined }>();

/** Whether a domain publishes MX records; undefined when DNS did not answer (then nothing is counted). */
async function hasMx(domain: string, now: number): Promise<boolean | undefined> {
  const cached = mxCache.get(domain);
  if (cached && now - cached.at < MX_TTL_MS) return cached.hasMx;
  const records = await lookup('MX', domain);
  const answer = records === undefined ? undefined : records.length > 0;
  if (answer !== undefined) {
    if (mxCache.size > 10_000) mxCache.clear();
    mxCache.set(domain, { at: now, hasMx: answer });
  }
  return answer;
}

/** A near miss of a major domain with no mail server: typo-trap exposure. */
export async function isTypoDomain(domain: string, now = Date.now()): Promise<boolean> {
  if (!nearMajorDomain(domain)) return false;
  return (await hasMx(domain.toLowerCase(), now)) === false;
}
