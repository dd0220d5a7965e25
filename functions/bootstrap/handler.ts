import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { ensurePrimaryAccount } from '../accounts/bootstrap';
import { secretsClient } from '../platform/aws-clients';
import { logger } from '../platform/logger';

/**
 * CloudFormation custom resource (onEvent of a cdk Provider): creates the region's primary account
 * and first admin key on stack creation, and stores the key in the Secrets Manager secret named
 * by the `AdminKeySecretId` property. It never rotates a key on update, nor deletes data on delete.
 */
export async function handler(event: CloudFormationCustomResourceEvent) {
  const physicalId = 'primary-account';
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  const secretId = String(event.ResourceProperties['AdminKeySecretId']);
  const { accountId, createdKey } = await ensurePrimaryAccount();
  if (createdKey) {
    await secretsClient().send(
      new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify({ username: 'api', api_key: createdKey, account_id: accountId }) }),
    );
  }
  logger.info('bootstrap done', { accountId, keyCreated: Boolean(createdKey) });
  return { PhysicalResourceId: physicalId, Data: { AccountId: accountId } };
}
