import { timingSafeEqual } from 'node:crypto';
import { keys, type ApiKeyItem } from '../data/db';
import { getItem, isLive } from '../data/store';
import type { AuthorizerContext } from '../platform/principal';
import { sha256Hex } from '../platform/secrets';
import { accountAllowsSource } from '../admin/allowlist/ip-allowlist';

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

export async function authenticate(authorization: string | undefined, now = Date.now(), sourceIp?: string): Promise<AuthorizerContext> {
  const secret = basicPassword(authorization);
  if (!secret) return { denied: 'Invalid private key' };
  const secretHash = sha256Hex(secret);
  const key = await getItem<ApiKeyItem>(keys.apiKey(secretHash), { consistent: true });
  // The hash is the lookup key; comparing it again in constant time keeps the check honest if the
  // store ever returns a near match.
  if (!key || !timingSafeEqual(Buffer.from(key.secretHash), Buffer.from(secretHash))) return { denied: 'Invalid private key' };
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
