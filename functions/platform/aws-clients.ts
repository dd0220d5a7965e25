import { ACMClient } from '@aws-sdk/client-acm';
import { ApiGatewayV2Client } from '@aws-sdk/client-apigatewayv2';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
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

/**
 * SES for sending only: one attempt per call. The SDK's automatic retries would resend a message
 * whose first attempt reached SES but whose reply was lost; the send worker decides on retries.
 * A call not answered within `requestTimeoutMs` is abandoned with an error (not merely logged),
 * which bounds how long a recipient's claim stays 'sending'.
 */
export function sesSendClient(requestTimeoutMs: number): SESv2Client {
  const { AWS_REGION: region, SES_ENDPOINT: endpoint } = env();
  return memo(
    `ses-send|${region}|${endpoint ?? ''}|${requestTimeoutMs}`,
    () =>
      new SESv2Client({
        region,
        endpoint,
        maxAttempts: 1,
        requestHandler: { connectionTimeout: 3_000, requestTimeout: requestTimeoutMs, throwOnRequestTimeout: true },
      }),
  );
}

/**
 * Request checksums only where an operation requires one (DeleteObjects and the like). The
 * default, WHEN_SUPPORTED, adds a CRC32 of every PutObject body (x-amz-checksum-crc32): a second
 * pass over each stored MIME, which the signed payload hash (x-amz-content-sha256, still sent and
 * checked by S3) already covers. Response checksums keep the default: reads still verify them.
 */
export function s3Client(): S3Client {
  const { AWS_REGION: region, S3_ENDPOINT: endpoint } = env();
  // Stand-ins serve buckets by path, not by virtual host.
  return memo(`s3|${region}|${endpoint ?? ''}`, () => new S3Client({ region, endpoint, forcePathStyle: Boolean(endpoint), requestChecksumCalculation: 'WHEN_REQUIRED' }));
}

export function sqsClient(): SQSClient {
  const { AWS_REGION: region, SQS_ENDPOINT: endpoint } = env();
  return memo(`sqs|${region}|${endpoint ?? ''}`, () => new SQSClient({ region, endpoint }));
}

export function sfnClient(): SFNClient {
  const { AWS_REGION: region, SFN_ENDPOINT: endpoint } = env();
  return memo(`sfn|${region}|${endpoint ?? ''}`, () => new SFNClient({ region, endpoint }));
}

export function secretsClient(): SecretsManagerClient {
  const { AWS_REGION: region, SECRETSMANAGER_ENDPOINT: endpoint } = env();
  return memo(`sm|${region}|${endpoint ?? ''}`, () => new SecretsManagerClient({ region, endpoint }));
}

export function acmClient(): ACMClient {
  const { AWS_REGION: region, ACM_ENDPOINT: endpoint } = env();
  return memo(`acm|${region}|${endpoint ?? ''}`, () => new ACMClient({ region, endpoint }));
}

export function apiGatewayClient(): ApiGatewayV2Client {
  const { AWS_REGION: region, APIGATEWAY_ENDPOINT: endpoint } = env();
  return memo(`apigw|${region}|${endpoint ?? ''}`, () => new ApiGatewayV2Client({ region, endpoint }));
}
