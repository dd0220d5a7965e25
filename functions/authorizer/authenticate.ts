import { timingSafeEqual } from 'node:crypto';
import { getItem, isLive } from '../data/store';
import { lockedUntil, recordFailure, subjectsOf } from '../platform/auth-throttle';
import { logger } from '../platform/logger';
import type { AuthorizerContext } from '../platform/principal';
import { sha256Hex } from '../platform/secrets';
import { accountAllowsSource } from '../accounts/ip-allowlist';
import { namedKeyId } from '../keys/api-keys';
import { apiKeyKeys, type ApiKeyItem } from '../keys/key-store';

/** Extracts the password of an HTTP Basic header; any username is accepted, as Mailgun does. */
export function basicPassword(header: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const password = decoded.slice(colon + 1);
  return password.length ? password : undefined;
}

/** The refusal of a key id or address locked by failures (functions/platform/auth-throttle.ts). */
const THROTTLED = 'Too many failed authentication attempts for this key or from this address: try again after the time in Retry-After';

export async function authenticate(authorization: string | undefined, now = Date.now(), sourceIp?: string): Promise<AuthorizerContext> {
  const secret = basicPassword(authorization);
  if (!secret) return { denied: 'Invalid private key' };
  const secretHash = sha256Hex(secret);
  // Failures count per key id (the one the secret names) and per address. Their locks are read
  // beside the key, not after it, so a request that succeeds takes no longer.
  const keyId = namedKeyId(secret);
  const subjects = subjectsOf('api', keyId, sourceIp);
  const [key, retryAt] = await Promise.all([getItem<ApiKeyItem>(apiKeyKeys.apiKey(secretHash), { consistent: true }), lockedUntil(subjects, now)]);
  if (retryAt !== undefined) {
    logger.warn('api authentication refused: too many failures', { keyId, sourceIp, retryAt });
    return { denied: THROTTLED, retryAt };
  }
  // The hash is the lookup key; comparing it again in constant time keeps the check honest if the
  // store ever returns a near match.
  if (!key || !timingSafeEqual(Buffer.from(key.secretHash), Buffer.from(secretHash))) {
    // The same wrong secret sent again is known by a prefix of its hash: no more than the lookup
    // above already handed the table.
    await recordFailure(subjects, secretHash.slice(0, 16), now);
    logger.warn('api authentication failed', { keyId, sourceIp });
    return { denied: 'Invalid private key' };
  }
  if (key.isDisabled) return { denied: 'Invalid private key' };
  if (!isLive(key, now) || (key.expiresAt && Date.parse(key.expiresAt) <= now)) return { denied: 'Invalid private key' };
  // The account's IP allowlist binds every key but web keys (the dashboard's, issued per session).
  if (key.kind !== 'web' && !(await accountAllowsSource(key.accountId, sourceIp))) return { denied: `Forbidden: ${sourceIp ?? 'this address'} is not on the account's IP allowlist` };
  return {
    accountId: key.accountId,
    keyId: key.keyId,
    role: key.role,
    kind: key.kind,
    ...(key.domainName ? { domain: key.domainName } : {}),
  };
}
