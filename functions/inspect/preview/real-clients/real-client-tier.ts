import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { secretsClient } from '../../../platform/aws-clients';
import { env } from '../../../platform/env';
import type { RealClientTier } from './contract';
import { EmailOnAcid } from './email-on-acid';

interface Credentials {
  apiKey: string;
  password: string;
}

let cached: { key: string; credentials: Promise<Credentials> } | undefined;

/** The service's credentials: a Secrets Manager secret on AWS (JSON apiKey, password), or the operator's environment. */
async function credentials(): Promise<Credentials | undefined> {
  const { EOA_CREDENTIALS_SECRET_ID: secretId, EOA_API_KEY: apiKey, EOA_PASSWORD: password } = env();
  if (apiKey && password) return { apiKey, password };
  if (!secretId) return undefined;
  if (cached?.key !== secretId) {
    const loading = secretsClient()
      .send(new GetSecretValueCommand({ SecretId: secretId }))
      .then((out) => JSON.parse(out.SecretString ?? '{}') as Credentials);
    cached = { key: secretId, credentials: loading };
    loading.catch(() => (cached = undefined));
  }
  return cached.credentials;
}

/**
 * The configured real-client tier, or undefined: it is on only when PREVIEW_REAL_CLIENTS names a
 * service and its credentials are there. Without them nothing pretends to be it.
 */
export async function realClientTier(): Promise<RealClientTier | undefined> {
  const { PREVIEW_REAL_CLIENTS: service, EOA_API_URL: baseUrl } = env();
  if (service !== 'emailonacid') return undefined;
  const creds = await credentials();
  if (!creds?.apiKey || !creds.password) return undefined;
  return new EmailOnAcid(baseUrl, creds.apiKey, creds.password);
}
