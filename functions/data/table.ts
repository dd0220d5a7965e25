/**
 * The physical single table, shared by CDK (lib/constructs/data.ts) and the local host, so both
 * create exactly the same keys and indexes.
 *
 * Access patterns (ElectroDB composes the key values; the entity and its composite attributes are
 * what matters):
 *
 * | pattern                                   | entity      | key condition                                  |
 * |-------------------------------------------|-------------|------------------------------------------------|
 * | the primary account of this region        | system      | pk = name                                      |
 * | an account by id                          | account     | pk = accountId                                 |
 * | authenticate a request (key by its hash)  | apiKey      | pk = secretHash (GetItem, strongly consistent) |
 * | list / find an account's keys             | apiKey      | gsi1: pk = accountId, sk begins keyId          |
 * | a domain of an account                    | domain      | pk = accountId, sk = name                      |
 * | an account's domains, in name order       | domain      | pk = accountId, sk begins_with domain prefix   |
 * | who owns a domain name (region-wide)      | domainClaim | pk = name                                      |
 * | DKIM keys of a signing domain             | dkimKey     | pk = accountId, sk begins signingDomain        |
 * | SMTP credentials of a domain              | credential  | pk = accountId, sk begins domain               |
 *
 * The two region-wide lookups (a key by its hash, a domain name's owner) are index items by
 * nature: the caller does not know the account yet. Everything else starts with the account id.
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
