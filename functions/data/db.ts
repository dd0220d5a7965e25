import { Entity, type EntityItem } from 'electrodb';
import { documentClient } from '../platform/aws-clients';
import { env } from '../platform/env';
import { TABLE_KEYS } from './table';

const service = 'mailplane';
const { partitionKey: pk, sortKey: sk, gsi1 } = TABLE_KEYS;

// Key values keep their case: key hashes and ids are case-sensitive identifiers.
const key = <const C extends readonly string[]>(composite: C) => ({ composite, casing: 'none' as const });

function entities(client: ReturnType<typeof documentClient>, table: string) {
  const config = { client, table };
  return {
    system: new Entity(
      {
        model: { entity: 'system', version: '1', service },
        attributes: {
          name: { type: 'string', required: true },
          value: { type: 'string', required: true },
        },
        indexes: {
          byName: { pk: { field: pk, ...key(['name']) }, sk: { field: sk, ...key([]) } },
        },
      },
      config,
    ),
    account: new Entity(
      {
        model: { entity: 'account', version: '1', service },
        attributes: {
          accountId: { type: 'string', required: true },
          name: { type: 'string', required: true },
          parentId: { type: 'string' },
          status: { type: ['open', 'disabled', 'closed'] as const, required: true, default: 'open' },
          createdAt: { type: 'string', required: true },
        },
        indexes: {
          byId: { pk: { field: pk, ...key(['accountId']) }, sk: { field: sk, ...key([]) } },
        },
      },
      config,
    ),
    apiKey: new Entity(
      {
        model: { entity: 'apiKey', version: '1', service },
        attributes: {
          secretHash: { type: 'string', required: true },
          keyId: { type: 'string', required: true },
          accountId: { type: 'string', required: true },
          kind: { type: ['domain', 'user', 'web'] as const, required: true },
          role: { type: ['admin', 'developer', 'support', 'basic', 'sending'] as const, required: true },
          description: { type: 'string', required: true, default: '' },
          domainName: { type: 'string' },
          userId: { type: 'string' },
          userName: { type: 'string' },
          requestor: { type: 'string' },
          createdAt: { type: 'string', required: true },
          updatedAt: { type: 'string', required: true },
          expiresAt: { type: 'string' },
          isDisabled: { type: 'boolean', required: true, default: false },
          disabledReason: { type: 'string' },
          /** Expired keys are refused at once; TTL only tidies them away later. */
          ttl: { type: 'number', field: TABLE_KEYS.ttl },
        },
        indexes: {
          bySecret: { pk: { field: pk, ...key(['secretHash']) }, sk: { field: sk, ...key([]) } },
          byAccount: {
            index: gsi1.name,
            pk: { field: gsi1.partitionKey, ...key(['accountId']) },
            sk: { field: gsi1.sortKey, ...key(['keyId']) },
          },
        },
      },
      config,
    ),
    domain: new Entity(
      {
        model: { entity: 'domain', version: '1', service },
        attributes: {
          accountId: { type: 'string', required: true },
          name: { type: 'string', required: true },
          domainId: { type: 'string', required: true },
          type: { type: ['custom', 'sandbox'] as const, required: true },
          state: { type: ['active', 'unverified', 'disabled'] as const, required: true },
          createdAt: { type: 'string', required: true },
          isDisabled: { type: 'boolean', required: true, default: false },
          disabled: { type: 'any' },
          requireTls: { type: 'boolean', required: true, default: false },
          skipVerification: { type: 'boolean', required: true, default: false },
          wildcard: { type: 'boolean', required: true, default: false },
          spamAction: { type: ['disabled', 'tag', 'block'] as const, required: true, default: 'disabled' },
          webPrefix: { type: 'string', required: true },
          webScheme: { type: ['http', 'https'] as const, required: true, default: 'http' },
          useAutomaticSenderSecurity: { type: 'boolean', required: true, default: false },
          encryptIncomingMessage: { type: 'boolean', required: true, default: false },
          messageTtl: { type: 'number', required: true },
          archiveTo: { type: 'string' },
          mailfromHost: { type: 'string', required: true },
          /** The signing domain whose key signs this domain's mail (itself, or a parent). */
          dkimAuthority: { type: 'string', required: true },
          dkimSelector: { type: 'string', required: true },
          /** The signing key's public half, kept here so reading a domain and its records is one GetItem. */
          dkimPublicKey: { type: 'string' },
          /** SES Easy DKIM tokens, when SES manages the keys (automatic sender security). */
          dkimTokens: { type: 'list', items: { type: 'string' } },
          /** Last DNS observation per record id: { cached: string[], valid: 'valid'|'invalid'|'unknown' }. */
          dnsChecks: { type: 'any' },
          sesVerified: { type: 'boolean' },
          verifiedAt: { type: 'string' },
        },
        indexes: {
          byAccount: { pk: { field: pk, ...key(['accountId']) }, sk: { field: sk, ...key(['name']) } },
        },
      },
      config,
    ),
    domainClaim: new Entity(
      {
        model: { entity: 'domainClaim', version: '1', service },
        attributes: {
          name: { type: 'string', required: true },
          accountId: { type: 'string', required: true },
        },
        indexes: {
          byName: { pk: { field: pk, ...key(['name']) }, sk: { field: sk, ...key([]) } },
        },
      },
      config,
    ),
    dkimKey: new Entity(
      {
        model: { entity: 'dkimKey', version: '1', service },
        attributes: {
          accountId: { type: 'string', required: true },
          signingDomain: { type: 'string', required: true },
          selector: { type: 'string', required: true },
          bits: { type: 'number', required: true },
          /** Base64 SubjectPublicKeyInfo DER: the `p=` of the DNS record. */
          publicKey: { type: 'string', required: true },
          /** The private key, sealed with the platform encryption key; never returned. */
          privateKeySealed: { type: 'string', required: true },
          active: { type: 'boolean', required: true, default: true },
          createdAt: { type: 'string', required: true },
        },
        indexes: {
          byAccount: {
            pk: { field: pk, ...key(['accountId']) },
            sk: { field: sk, ...key(['signingDomain', 'selector']) },
          },
        },
      },
      config,
    ),
    credential: new Entity(
      {
        model: { entity: 'credential', version: '1', service },
        attributes: {
          accountId: { type: 'string', required: true },
          domain: { type: 'string', required: true },
          login: { type: 'string', required: true },
          mailbox: { type: 'string', required: true },
          /** scrypt; the password itself is never stored. */
          passwordHash: { type: 'string', required: true },
          system: { type: 'boolean', required: true, default: false },
          createdAt: { type: 'string', required: true },
        },
        indexes: {
          byAccount: { pk: { field: pk, ...key(['accountId']) }, sk: { field: sk, ...key(['domain', 'login']) } },
        },
      },
      config,
    ),
  };
}

export type Db = ReturnType<typeof entities>;
export type AccountItem = EntityItem<Db['account']>;
export type ApiKeyItem = EntityItem<Db['apiKey']>;
export type DomainItem = EntityItem<Db['domain']>;
export type DkimKeyItem = EntityItem<Db['dkimKey']>;
export type CredentialItem = EntityItem<Db['credential']>;

const cache = new Map<string, Db>();

/** The entities bound to the table and client of the environment in force. */
export function db(): Db {
  const { TABLE_NAME, DYNAMODB_ENDPOINT, AWS_REGION } = env();
  const cacheKey = `${AWS_REGION}|${DYNAMODB_ENDPOINT ?? ''}|${TABLE_NAME}`;
  let value = cache.get(cacheKey);
  if (!value) {
    value = entities(documentClient(), TABLE_NAME);
    cache.set(cacheKey, value);
  }
  return value;
}

/** Real DynamoDB deletes expired items late (and dynalite never): an item past its ttl is absent. */
export function isLive(item: { ttl?: number }, now = Date.now()): boolean {
  return item.ttl === undefined || item.ttl * 1000 > now;
}
