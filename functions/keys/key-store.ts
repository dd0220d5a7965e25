import type { KeyKind, Role } from '../platform/access';
import { defineEntity } from '../data/key-registry';
import type { IndexKey, Key } from '../data/store';

/**
 * API keys: found by the hash of their secret (the authorizer's one strongly consistent GetItem),
 * listed per account on gsi1. A module of its own, so the authorizer bundles only this.
 */
export const apiKeyKeys = defineEntity(
  'api keys',
  {
    apiKey: { what: 'a key by the hash of its secret (authentication; GetItem, strongly consistent)', pk: 'APIKEY#<sha256>', sk: 'APIKEY', key: (secretHash: string): Key => ({ pk: `APIKEY#${secretHash}`, sk: 'APIKEY' }) },
    apiKeyIndex: { what: "an account's key, on gsi1", gsi1pk: 'ACCT#<account>#APIKEYS', gsi1sk: '<key id>', key: (accountId: string, keyId = ''): IndexKey => ({ gsi1pk: `ACCT#${accountId}#APIKEYS`, gsi1sk: keyId }) },
  },
  [{ what: "list / find an account's keys", index: 'gsi1', pk: 'ACCT#<account>#APIKEYS' }],
);

export interface ApiKeyItem {
  secretHash: string;
  keyId: string;
  accountId: string;
  kind: KeyKind;
  role: Role;
  description: string;
  domainName?: string;
  userId?: string;
  userName?: string;
  requestor?: string;
  createdAt: string;
  updatedAt: string;
  expiresAt?: string;
  isDisabled: boolean;
  disabledReason?: string;
  /** Disabled because its subaccount was: enabling the subaccount enables it again (and no other). */
  disabledWithAccount?: boolean;
  /** Expired keys are refused at once; TTL only tidies them away later. */
  ttl?: number;
}

