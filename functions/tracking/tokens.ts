import { createHmac, timingSafeEqual } from 'node:crypto';
import { derivedKey } from '../platform/secrets';

/**
 * What a tracking link carries. Everything an event needs travels in the link itself, signed, so a
 * click weeks later still records (stored messages expire after days) and nobody can forge one.
 */
export interface TrackingClaims {
  /** account, domain, message id (no brackets), recipient */
  a: string;
  d: string;
  m: string;
  r: string;
  /** the message's tags */
  t?: string[];
  /** a click's destination */
  u?: string;
  /** an unsubscribe's scope: every message of the domain, or only those with the message's tags */
  s?: 'all' | 'tags';
  /** a mailing list's unsubscribe link (%mailing_list_unsubscribe_url%): the list's id and address */
  l?: string;
  la?: string;
}

const SIGNATURE_BYTES = 16;

async function mac(payload: string): Promise<Buffer> {
  return createHmac('sha256', await derivedKey('tracking-links')).update(payload).digest().subarray(0, SIGNATURE_BYTES);
}

export async function signClaims(claims: TrackingClaims): Promise<string> {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${(await mac(payload)).toString('base64url')}`;
}

/** The claims of a genuine token, or undefined for anything forged, altered or malformed. */
export async function verifyClaims(token: string): Promise<TrackingClaims | undefined> {
  const [payload, signature] = token.split('.');
  if (!payload || !signature) return undefined;
  // Compared as text: base64url decoding ignores a last character's unused bits, so comparing
  // decoded bytes would accept several spellings of one signature.
  const expected = Buffer.from((await mac(payload)).toString('base64url'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TrackingClaims;
    return typeof claims.a === 'string' && typeof claims.r === 'string' ? claims : undefined;
  } catch {
    return undefined;
  }
}
