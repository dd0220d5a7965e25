/**
 * The physical single table, shared by CDK (lib/constructs/data.ts) and the local host, so both
 * create exactly the same keys and indexes.
 *
 * Access patterns (key builders in db.ts; every one is a GetItem or a Query, never a Scan):
 *
 * | pattern                                   | key condition                                          |
 * |-------------------------------------------|--------------------------------------------------------|
 * | the primary account of this region        | pk = SYSTEM#primary-account                            |
 * | an account by id                          | pk = ACCT#<account>, sk = ACCOUNT                      |
 * | authenticate a request (key by its hash)  | pk = APIKEY#<sha256>  (GetItem, strongly consistent)   |
 * | recent failed sign-ins of a login/key/address | pk = AUTHFAIL#<scope>#<sha256 of the subject>     |
 * | list / find an account's keys             | gsi1pk = ACCT#<account>#APIKEYS, gsi1sk = <key id>     |
 * | a domain of an account                    | pk = ACCT#<account>, sk = DOMAIN#<name>                |
 * | an account's domains, in name order       | pk = ACCT#<account>, sk begins_with DOMAIN#            |
 * | who holds a domain name (region-wide)     | pk = DOMAINNAME#<name>                                 |
 * | DKIM keys of a signing domain             | pk = ACCT#<account>, sk begins_with DKIMKEY#<domain>#  |
 * | SMTP credentials of a domain              | pk = ACCT#<account>, sk begins_with CREDENTIAL#<domain>#|
 * | has a stream consumer finished a batch     | pk = SYSTEM#stream-progress#<consumer>, sk = <batch id> |
 * | an account's tags by name (or prefix)     | pk = ACCT#<account>#TAG, sk begins_with <prefix>       |
 * | an account's tags by last sighting        | gsi1pk = ACCT#<account>#TAGSEEN, gsi1sk = <ms>#<tag>   |
 * | a domain's tags by name (or prefix)       | pk = ACCT#<account>#DTAG#<domain>, sk begins_with <prefix> |
 * | distinct tag count (account / domain)     | pk = ACCT#<account>, sk = TAGCOUNT / TAGCOUNT#<domain> |
 * | a domain's webhooks (all types)           | pk = ACCT#<account>, sk = WEBHOOKS#<domain>            |
 * | an account's /v1/webhooks                 | pk = ACCT#<account>, sk = ACCOUNTWEBHOOKS              |
 * | an account's webhook signing key          | pk = ACCT#<account>, sk = HTTPSIGNINGKEY               |
 * | the owners of an event's webhook deliveries (one attempt) | pk = ACCT#<account>#WHDELIVERY#<event id>#<attempt> |
 * | failed webhook deliveries of a day        | pk = ACCT#<account>#WHFAILED#<yyyymmdd>, sk = time#id  |
 * | an account's alert settings               | pk = ACCT#<account>#ALERTS, sk begins_with SETTING#    |
 * | who holds an alert's (event type, channel) | pk = ACCT#<account>#ALERTS, sk = PAIR#<type>#<channel> |
 * | alerts signing key / Slack connection     | pk = ACCT#<account>#ALERTS, sk = SIGNINGKEY / SLACK     |
 * | an alert raised, by its transition's hash | pk = ACCT#<account>#ALERTSRAISED, sk = <sha256>        |
 * | the claim of one alert delivery attempt   | pk = ACCT#<account>#ALERTDELIVERY#<alert id>, sk = <setting>#<attempt> |
 * | blocklist subjects (region-wide / account) | pk = SYSTEM#blocklist-subjects, sk begins_with <account>#<kind># |
 * | checks confirming subjects as they were   | pk = SYSTEM#blocklist-confirmations, sk begins_with <account>#<kind># |
 *
 * The region-wide lookups (a key by its hash, a domain name's owner, failed sign-ins) are index
 * items by nature: the caller does not know the account yet. Everything else starts with the
 * account id.
 */
export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
  gsi1: { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  ttl: 'ttl',
} as const;

/** The CreateTable input the local host uses; CDK builds the same shape from TABLE_KEYS. */
export function createTableInput(tableName: string) {
  const { partitionKey, sortKey, gsi1 } = TABLE_KEYS;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [partitionKey, sortKey, gsi1.partitionKey, gsi1.sortKey].map((name) => ({
      AttributeName: name,
      AttributeType: 'S' as const,
    })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' as const },
      { AttributeName: sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: gsi1.name,
        KeySchema: [
          { AttributeName: gsi1.partitionKey, KeyType: 'HASH' as const },
          { AttributeName: gsi1.sortKey, KeyType: 'RANGE' as const },
        ],
        Projection: { ProjectionType: 'ALL' as const },
      },
    ],
  };
}
