import { CloudWatchLogsClient, DeleteLogGroupCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteBucketCommand, DeleteObjectsCommand, ListObjectVersionsCommand, NoSuchBucket, S3Client } from '@aws-sdk/client-s3';
import { DeleteSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { PassThrough } from 'node:stream';
import { confirmed, remove } from '../../../scripts/teardown';

const s3 = mockClient(S3Client);
const dynamodb = mockClient(DynamoDBClient);
const secrets = mockClient(SecretsManagerClient);
const logs = mockClient(CloudWatchLogsClient);

beforeEach(() => {
  for (const client of [s3, dynamodb, secrets, logs]) client.reset();
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => jest.restoreAllMocks());

const retained = (logicalId: string, type: string, physicalId?: string) => ({ stack: 'Mailplane-us', logicalId, type, physicalId });

test('empties each bucket of every version (page by page) before deleting it, the access logs last; deletes the table and the log group; schedules the secret for 7 days', async () => {
  s3.on(ListObjectVersionsCommand, { Bucket: 'messages-bucket' })
    .resolvesOnce({ Versions: [{ Key: 'a', VersionId: 'null' }], DeleteMarkers: [{ Key: 'b', VersionId: 'v2' }], IsTruncated: true, NextKeyMarker: 'b', NextVersionIdMarker: 'v2' })
    .resolvesOnce({ Versions: [{ Key: 'c', VersionId: 'null' }], IsTruncated: false });
  s3.on(ListObjectVersionsCommand, { Bucket: 'access-logs-bucket' }).resolves({ IsTruncated: false });
  await remove({
    stack: 'Mailplane-us',
    region: 'us-east-1',
    resources: [
      retained('ApiAccessLogs50B185DB', 'AWS::Logs::LogGroup', '/aws/api/access'),
      retained('DataAccessLogsC0C25EE4', 'AWS::S3::Bucket', 'access-logs-bucket'),
      retained('DataMessagesCEC34E34', 'AWS::S3::Bucket', 'messages-bucket'),
      retained('DataTableFDBAD0F2', 'AWS::DynamoDB::Table', 'Mailplane-us-table'),
      retained('DataEncryptionKey730612E4', 'AWS::SecretsManager::Secret', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:key'),
      retained('Unmade', 'AWS::S3::Bucket'),
      retained('Topic', 'AWS::SNS::Topic', 'arn:aws:sns:us-east-1:123456789012:t'),
    ],
  });
  expect(s3.commandCalls(DeleteObjectsCommand).map((c) => c.args[0].input)).toEqual([
    { Bucket: 'messages-bucket', Delete: { Objects: [{ Key: 'a', VersionId: 'null' }, { Key: 'b', VersionId: 'v2' }], Quiet: true } },
    { Bucket: 'messages-bucket', Delete: { Objects: [{ Key: 'c', VersionId: 'null' }], Quiet: true } },
  ]);
  expect(s3.commandCalls(ListObjectVersionsCommand)[1]!.args[0].input).toEqual({ Bucket: 'messages-bucket', KeyMarker: 'b', VersionIdMarker: 'v2' });
  expect(s3.commandCalls(DeleteBucketCommand).map((c) => c.args[0].input.Bucket)).toEqual(['messages-bucket', 'access-logs-bucket']);
  expect(dynamodb.commandCalls(DeleteTableCommand).map((c) => c.args[0].input)).toEqual([{ TableName: 'Mailplane-us-table' }]);
  expect(secrets.commandCalls(DeleteSecretCommand).map((c) => c.args[0].input)).toEqual([{ SecretId: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:key', RecoveryWindowInDays: 7 }]);
  expect(logs.commandCalls(DeleteLogGroupCommand).map((c) => c.args[0].input)).toEqual([{ logGroupName: '/aws/api/access' }]);
});

test('a resource already gone is passed over, and the rest still removed', async () => {
  s3.on(ListObjectVersionsCommand).rejects(new NoSuchBucket({ message: 'gone', $metadata: {} }));
  await remove({ stack: 'Mailplane-us', region: 'us-east-1', resources: [retained('DataMessagesCEC34E34', 'AWS::S3::Bucket', 'messages-bucket'), retained('DataTableFDBAD0F2', 'AWS::DynamoDB::Table', 'Mailplane-us-table')] });
  expect(s3.commandCalls(DeleteBucketCommand)).toEqual([]);
  expect(dynamodb.commandCalls(DeleteTableCommand)).toHaveLength(1);
  expect(process.stdout.write).toHaveBeenCalledWith('already gone\n');
});

test('goes on only when the stack name is typed: another answer, or input that ends first (no terminal, < /dev/null), is no', async () => {
  const ask = (input: string[]) => {
    const typed = new PassThrough();
    setImmediate(() => typed.end(input.join('')));
    return confirmed('Mailplane-us', typed, new PassThrough());
  };
  expect(await ask(['Mailplane-us\n'])).toBe(true);
  expect(await ask(['  Mailplane-us  \n'])).toBe(true);
  expect(await ask(['no\n'])).toBe(false);
  expect(await ask(['Mailplane-eu\n'])).toBe(false);
  expect(await ask([])).toBe(false);
});
