import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { secretsClient } from '../../../platform/aws-clients';
import { env } from '../../../platform/env';
import type { CatalogClient } from '../clients';
import { EmailOnAcid } from './email-on-acid';

/** A client as a real-client service lists it (the catalog's fields, contract §5.1). */
export type RealClient = Omit<CatalogClient, 'free'>;

/** One client's result at the service: its state, and where its screenshots are (by our names). */
export interface RealResult {
  status: 'Complete' | 'Processing' | 'Bounced' | 'Pending';
  screenshots: Record<string, string>;
  bounceCode?: string;
  bounceMessage?: string;
}

/**
 * A service that screenshots emails in real mail clients, behind the same preview contract: a
 * test names its clients, the service renders them, and the render task copies each finished
 * client's screenshots into our bucket, so results, exports and shares work as for emulated ones.
 */
export interface RealClientTier {
  readonly name: string;
  clients(): Promise<RealClient[]>;
  createTest(test: { subject: string; html: string; clients: string[]; imageBlocking: boolean }): Promise<string>;
  results(remoteId: string): Promise<Record<string, RealResult>>;
  /** A screenshot's bytes (the service's URLs need its credentials or expire). */
  download(url: string): Promise<Buffer>;
}

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
