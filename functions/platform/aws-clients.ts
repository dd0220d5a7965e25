import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { env } from './env';

// One client per (region, endpoint): Lambda sees one, the local host one per platform region.
const cache = new Map<string, unknown>();

function memo<T>(key: string, make: () => T): T {
  let client = cache.get(key) as T | undefined;
  if (!client) {
    client = make();
    cache.set(key, client);
  }
  return client;
}

export function documentClient(): DynamoDBDocumentClient {
  const { AWS_REGION: region, DYNAMODB_ENDPOINT: endpoint } = env();
  return memo(`ddb|${region}|${endpoint ?? ''}`, () =>
    DynamoDBDocumentClient.from(new DynamoDBClient({ region, endpoint }), {
      marshallOptions: { removeUndefinedValues: true },
    }),
  );
}

export function sesClient(): SESv2Client {
  const { AWS_REGION: region, SES_ENDPOINT: endpoint } = env();
  return memo(`ses|${region}|${endpoint ?? ''}`, () => new SESv2Client({ region, endpoint }));
}

export function secretsClient(): SecretsManagerClient {
  const { AWS_REGION: region, SECRETSMANAGER_ENDPOINT: endpoint } = env();
  return memo(`sm|${region}|${endpoint ?? ''}`, () => new SecretsManagerClient({ region, endpoint }));
}
