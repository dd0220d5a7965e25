import { randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { defineEntity } from '../data/key-registry';
import { addToWindowSet, getItems, isLive, removeFromSet, type Key } from '../data/store';
import { env } from './env';
import { logger } from './logger';
import { sha256Hex } from './secrets';

/**
 * Password guessing, bounded where it happens: failed sign-ins over SMTP AUTH (functions/smtp) and
 * the API's Basic auth (functions/authorizer) are counted per login (an SMTP login, an API key id)
 * and per source address, in the table, so the count holds across connections, SMTP tasks and
 * authorizer containers. A count lasts AUTH_FAILURE_WINDOW_SECONDS past its latest failure; a
 * subject with its limit of failures in that time is refused, right password or not, until the
 * window has passed (the refusals themselves do not count, so the lock ends WINDOW after the last
 * failure). Settings: functions/platform/env.ts.
 *
 * Two ways to count, for two costs of a check:
 * - SMTP claims an attempt before the password is checked (one conditional write per subject,
 *   refused at the limit) and gives it back when the password was right. However many
 *   connections guess at once, at most `limit` passwords are checked per window.
 * - The API must not add writes to every request: a request reads the subjects' counts beside the
 *   key lookup (concurrently, so no slower), and only a failure is written. Concurrent requests
 *   can overshoot the limit by those in flight; API keys are 128 random bits, so what the count
 *   stops there is scanning, not a guess that could succeed.
 */
/** Where every failure count's partition key starts: the authorizer's IAM policy is limited to these (lib/constructs/area-permissions.ts). */
export const AUTH_FAILURES_PREFIX = 'AUTHFAIL#';

const authFailureKeys = defineEntity('auth failures', {
  authFailures: {
    what: 'recent failed sign-ins of one subject (an SMTP login, an API key id, a source address: `scope` says which), by the hash of its name: region-wide, as the caller is not known yet',
    pk: 'AUTHFAIL#<scope>#<sha256 of the subject>',
    sk: 'FAILURES',
    key: (scope: string, subjectHash: string): Key => ({ pk: `${AUTH_FAILURES_PREFIX}${scope}#${subjectHash}`, sk: 'FAILURES' }),
  },
});

/** A subject's recent failed sign-ins (functions/platform/auth-throttle.ts). */
export interface AuthFailuresItem {
  /** One member per failure counted: an attempt's nonce, or a fingerprint of the secret tried. */
  failures?: Set<string>;
  /** Epoch seconds: the window of the latest failure ends here, and the count with it. */
  ttl: number;
}


/** Which count a subject is: a login of a channel, or a source address of it. */
export type AuthChannel = 'smtp' | 'api';

export interface AuthSubject {
  scope: `${AuthChannel}-${'login' | 'source'}`;
  /** What the logs name: the login, the key id or the address (never a secret). */
  name: string;
  limit: number;
}

/** Past AUTH_FAILURE_SLOW_AFTER, each failure's pause doubles, up to this many times. */
const MAX_DOUBLINGS = 4;
const ATTRIBUTE = 'failures';

/**
 * A source address as counted: IPv4 as is (an IPv4-mapped IPv6 address is its IPv4), IPv6 by its
 * /64, the smallest block a client is usually given, so that one host cannot count as 2^64.
 */
export function sourceOf(address: string | undefined): string | undefined {
  if (!address || !ipaddr.isValid(address)) return undefined;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const prefix = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

/**
 * The subjects of one sign-in: its source and its login (a login name, an API key id), each when
 * known. The source comes first, as claimAttempt takes them in order: an address locked for
 * trying many logins then leaves the logins it names untouched.
 */
export function subjectsOf(channel: AuthChannel, login: string | undefined, address: string | undefined): AuthSubject[] {
  const settings = env();
  const subjects: AuthSubject[] = [];
  const source = sourceOf(address);
  if (source) subjects.push({ scope: `${channel}-source`, name: source, limit: settings.AUTH_FAILURE_LIMIT_PER_SOURCE });
  const name = login?.trim().toLowerCase();
  if (name) subjects.push({ scope: `${channel}-login`, name, limit: settings.AUTH_FAILURE_LIMIT_PER_LOGIN });
  return subjects;
}

// The subject's name is hashed: a login tried may be anything (a pasted password among them), and keys have limits.
const keyOf = (subject: AuthSubject): Key => authFailureKeys.authFailures(subject.scope, sha256Hex(subject.name));

const epochSeconds = (ms: number) => Math.floor(ms / 1000);

function noteLock(subject: AuthSubject, failures: number): void {
  // Once, at the failure that reaches the limit: the refusals that follow are the callers' to log.
  if (failures !== subject.limit) return;
  logger.warn('sign-ins locked after repeated failures', {
    scope: subject.scope,
    subject: subject.name.slice(0, 320),
    failures,
    lockedForSeconds: env().AUTH_FAILURE_WINDOW_SECONDS,
  });
}

/** An attempt claimed (checked against the password next), or the lock that refused it. */
export type Claim = { granted: true; nonce: string; failures: number } | { granted: false; retryAfterSeconds: number };

/**
 * Counts an attempt as a failure before its password is checked, on every subject in turn, unless
 * one of them is at its limit. `failures` is the highest count reached, this attempt included.
 */
export async function claimAttempt(subjects: readonly AuthSubject[], now = Date.now()): Promise<Claim> {
  const nonce = randomBytes(9).toString('base64url');
  const windowSeconds = env().AUTH_FAILURE_WINDOW_SECONDS;
  const sizes: number[] = [];
  for (const subject of subjects) {
    const result = await addToWindowSet(keyOf(subject), ATTRIBUTE, nonce, { windowSeconds, below: subject.limit, now });
    if ('fullUntil' in result) {
      // Not checked, so not an attempt: give back what the subjects before counted (their windows
      // stay moved on: the client is still trying).
      await forgiveAttempt(subjects.slice(0, sizes.length), nonce);
      return { granted: false, retryAfterSeconds: Math.max(1, result.fullUntil - epochSeconds(now)) };
    }
    sizes.push(result.size);
  }
  subjects.forEach((subject, i) => noteLock(subject, sizes[i]!));
  return { granted: true, nonce, failures: Math.max(0, ...sizes) };
}

/** The password was right: the claimed attempt was no failure. */
export async function forgiveAttempt(subjects: readonly AuthSubject[], nonce: string): Promise<void> {
  await Promise.all(subjects.map((subject) => removeFromSet(keyOf(subject), ATTRIBUTE, nonce)));
}

/**
 * When the subjects are locked, the epoch second the last of their locks ends; otherwise
 * undefined. One BatchGetItem.
 */
export async function lockedUntil(subjects: readonly AuthSubject[], now = Date.now()): Promise<number | undefined> {
  if (!subjects.length) return undefined;
  const keys = subjects.map(keyOf);
  const items = await getItems<AuthFailuresItem>(keys, { consistent: true });
  let until: number | undefined;
  for (const item of items) {
    const subject = subjects[keys.findIndex((key) => key.pk === item.pk)];
    if (subject && isLive(item, now) && (item.failures?.size ?? 0) >= subject.limit) until = Math.max(until ?? 0, item.ttl);
  }
  return until;
}

/**
 * Counts a failure on every subject. `fingerprint` names what was tried, so the same wrong secret
 * sent again (a client retrying a revoked key) counts once: it tells a guesser nothing new.
 */
export async function recordFailure(subjects: readonly AuthSubject[], fingerprint: string, now = Date.now()): Promise<void> {
  const windowSeconds = env().AUTH_FAILURE_WINDOW_SECONDS;
  await Promise.all(
    subjects.map(async (subject) => {
      const result = await addToWindowSet(keyOf(subject), ATTRIBUTE, fingerprint, { windowSeconds, now });
      if ('size' in result) noteLock(subject, result.size);
    }),
  );
}

/** How many times the usual pause a failed attempt waits, from the failures counted so far. */
export function slowdown(failures: number): number {
  return 2 ** Math.min(MAX_DOUBLINGS, Math.max(0, failures - env().AUTH_FAILURE_SLOW_AFTER));
}
