import { readFile } from 'node:fs/promises';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { z } from 'zod/v3';
import { secretsClient } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { schema } from '../../platform/http/params';

/**
 * The Google service account the Postmaster fetch signs in as. Its JSON key is the operator's:
 * a Secrets Manager secret on AWS (POSTMASTER_CREDENTIALS_SECRET_ID, readable by the fetch job
 * only), or in local mode the key inline (POSTMASTER_SERVICE_ACCOUNT_JSON) or a path to the file
 * Google hands out (POSTMASTER_SERVICE_ACCOUNT_FILE). The key never leaves this module's caller:
 * it is not stored, returned or logged, and errors about it never quote it.
 */
export const NOT_CONFIGURED_REASON =
  'no Google Postmaster Tools service account is configured (POSTMASTER_CREDENTIALS_SECRET_ID on AWS; POSTMASTER_SERVICE_ACCOUNT_FILE or POSTMASTER_SERVICE_ACCOUNT_JSON in local mode)';

// Built on first use, as every schema here is: loading a handler builds none (cold starts).
const serviceAccountKeySchema = schema(() =>
  z.object({
    type: z.literal('service_account').optional(),
    client_email: z.string().email(),
    private_key: z.string().includes('PRIVATE KEY'),
    token_uri: z.string().url().optional(),
  }),
);

export type ServiceAccountKey = z.infer<ReturnType<typeof serviceAccountKeySchema>>;

/** Whether a key is configured at all; the routes say so without ever reading it. */
export function credentialsConfigured(): boolean {
  const settings = env();
  return Boolean(settings.POSTMASTER_CREDENTIALS_SECRET_ID || settings.POSTMASTER_SERVICE_ACCOUNT_JSON || settings.POSTMASTER_SERVICE_ACCOUNT_FILE);
}

async function readKeyText(): Promise<{ text: string; source: string }> {
  const settings = env();
  if (settings.POSTMASTER_SERVICE_ACCOUNT_JSON) return { text: settings.POSTMASTER_SERVICE_ACCOUNT_JSON, source: 'POSTMASTER_SERVICE_ACCOUNT_JSON' };
  if (settings.POSTMASTER_SERVICE_ACCOUNT_FILE) return { text: await readFile(settings.POSTMASTER_SERVICE_ACCOUNT_FILE, 'utf8'), source: 'POSTMASTER_SERVICE_ACCOUNT_FILE' };
  if (settings.POSTMASTER_CREDENTIALS_SECRET_ID) {
    const out = await secretsClient().send(new GetSecretValueCommand({ SecretId: settings.POSTMASTER_CREDENTIALS_SECRET_ID }));
    return { text: out.SecretString ?? '', source: 'the POSTMASTER_CREDENTIALS_SECRET_ID secret' };
  }
  throw new Error(NOT_CONFIGURED_REASON);
}

/** The configured key, checked to be a service account key; the error names where it came from, never what it holds. */
export async function loadServiceAccountKey(): Promise<ServiceAccountKey> {
  const { text, source } = await readKeyText();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${source} is not JSON: expected a Google service account key file`);
  }
  const parsed = serviceAccountKeySchema().safeParse(json);
  if (!parsed.success) throw new Error(`${source} is not a Google service account key (it needs client_email and private_key)`);
  return parsed.data;
}
