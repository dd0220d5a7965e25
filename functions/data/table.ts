/**
 * The physical single table, shared by CDK (lib/constructs/data.ts) and the local host, so both
 * create exactly the same keys and indexes.
 *
 * Its keys belong to the entities, each declared beside its store with defineEntity (key-registry.ts):
 * the access patterns, every one a GetItem, a BatchGet or a Query and never a Scan, are the table
 * in docs/access-patterns.md, written from that registry (`npm run docs:keys`; a test fails when it
 * falls behind, or when two entities could be given the same key). Every key starts with the
 * account id, except the region-wide lookups whose caller does not know the account yet (a key by
 * its hash, a domain name's owner, failed sign-ins, share links) and the region's own SYSTEM# items.
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
