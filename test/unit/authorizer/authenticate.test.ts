import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { authenticate, basicPassword } from '../../../functions/authorizer/authenticate';
import { handler } from '../../../functions/authorizer/handler';
import { withEnv } from '../../../functions/platform/env';
import { sha256Hex } from '../../../functions/platform/secrets';

const ddb = mockClient(DynamoDBDocumentClient);
const env = { TABLE_NAME: 'table', AWS_REGION: 'us-east-1' };
const basic = (password: string, user = 'api') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function storedKey(secret: string, extra: Record<string, unknown> = {}) {
  return {
    pk: `APIKEY#${sha256Hex(secret)}`,
    sk: 'APIKEY',
    secretHash: sha256Hex(secret),
    keyId: 'aaaa1111-bbbb2222',
    accountId: 'acct',
    kind: 'user',
    role: 'developer',
    description: '',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    isDisabled: false,
    ...extra,
  };
}

beforeEach(() => ddb.reset());

it('reads the password of any Basic username, and nothing else', () => {
  expect(basicPassword(basic('s3cret'))).toBe('s3cret');
  expect(basicPassword(basic('with:colon', 'someone'))).toBe('with:colon');
  expect(basicPassword('Bearer abc')).toBeUndefined();
  expect(basicPassword(basic(''))).toBeUndefined();
});

it('looks the key up by the hash of the secret, consistently, and returns its principal', async () => {
  ddb.on(GetCommand).resolves({ Item: storedKey('s3cret') });
  const verdict = await withEnv(env, () => authenticate(basic('s3cret')));
  expect(verdict).toEqual({ accountId: 'acct', keyId: 'aaaa1111-bbbb2222', role: 'developer', kind: 'user' });
  const input = ddb.commandCalls(GetCommand)[0]!.args[0].input;
  expect(input).toMatchObject({ TableName: 'table', ConsistentRead: true });
  expect(JSON.stringify(input)).toContain(sha256Hex('s3cret'));
  expect(JSON.stringify(input)).not.toContain('s3cret"');
});

it.each([
  ['unknown', undefined],
  ['disabled', storedKey('s3cret', { isDisabled: true })],
  ['expired', storedKey('s3cret', { expiresAt: '2000-01-01T00:00:00.000Z' })],
  ['past its ttl', storedKey('s3cret', { ttl: 946684800 })],
])('denies an %s key', async (_, item) => {
  ddb.on(GetCommand).resolves({ Item: item });
  await expect(withEnv(env, () => authenticate(basic('s3cret')))).resolves.toEqual({ denied: 'Invalid private key' });
});

it('refuses everyone when the key store fails, rather than letting anyone in', async () => {
  ddb.on(GetCommand).rejects(new Error('throttled'));
  const result = await withEnv(env, () =>
    handler({ headers: { authorization: basic('s3cret') }, identitySource: [basic('s3cret')] } as never),
  );
  expect(result.isAuthorized).toBe(false);
});

it('reads the failure counts beside the key and writes nothing when the key is right; a wrong key is counted per key id and address', async () => {
  const secret = `${'a'.repeat(32)}-aaaa1111-bbbb2222`;
  ddb.on(GetCommand).callsFake((input: { Key: { pk: string } }) => ({ Item: input.Key.pk === `APIKEY#${sha256Hex(secret)}` ? storedKey(secret) : undefined }));
  ddb.on(BatchGetCommand).resolves({ Responses: { table: [] } });
  await expect(withEnv(env, () => authenticate(basic(secret), Date.now(), '192.0.2.1'))).resolves.toMatchObject({ keyId: 'aaaa1111-bbbb2222' });
  expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(1);
  expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);

  ddb.on(UpdateCommand).resolves({ Attributes: { failures: new Set(['x']) } });
  const wrong = `${'b'.repeat(32)}-aaaa1111-bbbb2222`;
  await expect(withEnv(env, () => authenticate(basic(wrong), Date.now(), '192.0.2.1'))).resolves.toEqual({ denied: 'Invalid private key' });
  const counted = ddb.commandCalls(UpdateCommand).map((call) => (call.args[0].input.Key as { pk: string }).pk.split('#').slice(0, 2).join('#'));
  expect(counted.sort()).toEqual(['AUTHFAIL#api-login', 'AUTHFAIL#api-source']);
  expect(JSON.stringify(ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input))).not.toContain(wrong);
  expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
});
