import { createHash } from 'node:crypto';
import { deleteItem, isLive, putItem, queryAll } from '../data/store';
import type { KeyKind, Role } from '../platform/access';
import { isoNoZone } from '../platform/dates';
import { randomHex } from '../platform/ids';
import { sha256Hex } from '../platform/secrets';
import { apiKeyKeys, type ApiKeyItem } from './key-store';

export const WEB_KEY_MAX_SECONDS = 24 * 3600;

export interface NewKey {
  role: Role;
  kind: KeyKind;
  description?: string;
  domainName?: string;
  userId?: string;
  userName?: string;
  email?: string;
  /** Seconds from now. */
  expiration?: number;
}

/** Mailgun-style secret `<32 hex>-<8 hex>-<8 hex>`, whose last two groups are the public key id. */
function newSecret(): { secret: string; keyId: string } {
  const keyId = `${randomHex(4)}-${randomHex(4)}`;
  return { secret: `${randomHex(16)}-${keyId}`, keyId };
}

/** The key id a secret of Mailgun's shape names (its last two groups), right secret or not. */
export function namedKeyId(secret: string): string | undefined {
  return /-([0-9a-f]{8}-[0-9a-f]{8})$/.exec(secret)?.[1];
}

/** The id shown for a secret chosen by an operator (BOOTSTRAP_API_KEY), which may have any shape. */
function keyIdForSecret(secret: string): string {
  const named = namedKeyId(secret);
  if (named) return named;
  const digest = createHash('sha256').update(`key-id:${secret}`).digest('hex');
  return `${digest.slice(0, 8)}-${digest.slice(8, 16)}`;
}

/** Stores a key (only its hash) and returns the item with the secret, which is never readable again. */
export async function issueKey(accountId: string, spec: NewKey, chosenSecret?: string): Promise<{ item: ApiKeyItem; secret: string }> {
  const { secret, keyId } = chosenSecret ? { secret: chosenSecret, keyId: keyIdForSecret(chosenSecret) } : newSecret();
  const now = new Date();
  const expires = spec.expiration ? new Date(now.getTime() + spec.expiration * 1000) : undefined;
  const item: ApiKeyItem = {
    secretHash: sha256Hex(secret),
    keyId,
    accountId,
    kind: spec.kind,
    role: spec.role,
    description: spec.description ?? '',
    domainName: spec.domainName,
    userId: spec.userId,
    userName: spec.userName,
    requestor: spec.email,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    expiresAt: expires?.toISOString(),
    isDisabled: false,
    ttl: expires ? Math.ceil(expires.getTime() / 1000) : undefined,
  };
  if (!(await putItem({ ...apiKeyKeys.apiKey(item.secretHash), ...apiKeyKeys.apiKeyIndex(accountId, keyId) }, item, { ifAbsent: true }))) {
    throw new Error('API key collision');
  }
  return { item, secret };
}

export async function listKeys(accountId: string): Promise<ApiKeyItem[]> {
  const items = await queryAll<ApiKeyItem>(apiKeyKeys.apiKeyIndex(accountId), '');
  return items.filter((key) => isLive(key)).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
}

export async function findKey(accountId: string, keyId: string): Promise<ApiKeyItem | undefined> {
  const items = await queryAll<ApiKeyItem>(apiKeyKeys.apiKeyIndex(accountId), keyId);
  return items.find((key) => key.keyId === keyId && isLive(key));
}

export async function deleteKey(key: ApiKeyItem): Promise<void> {
  await deleteItem(apiKeyKeys.apiKey(key.secretHash));
}

/** The wire shape of /v1/keys items: zone-less ISO dates (mailgun-go), absent dates omitted. */
export function keyJson(key: ApiKeyItem) {
  return {
    id: key.keyId,
    description: key.description,
    kind: key.kind,
    role: key.role,
    created_at: isoNoZone(key.createdAt),
    updated_at: isoNoZone(key.updatedAt),
    ...(key.expiresAt ? { expires_at: isoNoZone(key.expiresAt) } : {}),
    is_disabled: key.isDisabled,
    ...(key.disabledReason ? { disabled_reason: key.disabledReason } : {}),
    domain_name: key.domainName ?? null,
    requestor: key.requestor ?? null,
    user_name: key.userName ?? null,
  };
}
