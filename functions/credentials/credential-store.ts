import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { defineEntity } from '../data/key-registry';
import { deleteItem, getItem, putItem, queryAll, updateItem, type Key } from '../data/store';
import { nameHolder } from '../domains/domain-store';

/**
 * SMTP credentials: one item per login in the account's partition, beside the domain it belongs
 * to (docs/access-patterns.md). Logins are full addresses in lower case; only a
 * scrypt hash of each password is kept.
 *
 */
const credentialKeys = defineEntity(
  'credentials',
  {
    credential: {
      what: 'an SMTP credential (SMTP AUTH finds the domain\'s holder by its region-wide name claim, then this)',
      pk: 'ACCT#<account>',
      sk: 'CREDENTIAL#<domain>#<login*>',
      key: (accountId: string, domain: string, login = ''): Key => ({ pk: `ACCT#${accountId}`, sk: `CREDENTIAL#${domain}#${login}` }),
    },
  },
  [{ what: "a domain's credentials, by login", pk: 'ACCT#<account>', skPrefix: 'CREDENTIAL#<domain>#' }],
);

export interface CredentialItem {
  accountId: string;
  domain: string;
  login: string;
  mailbox: string;
  /** scrypt; the password itself is never stored. */
  passwordHash: string;
  system: boolean;
  createdAt: string;
  /** When the password last changed. */
  updatedAt?: string;
}

export async function credentialsOf(accountId: string, domain: string): Promise<CredentialItem[]> {
  return queryAll<CredentialItem>(credentialKeys.credential(accountId, domain), credentialKeys.credential(accountId, domain).sk);
}

export async function findCredential(accountId: string, domain: string, login: string): Promise<CredentialItem | undefined> {
  return getItem<CredentialItem>(credentialKeys.credential(accountId, domain, login), { consistent: true });
}

/** Writes a new credential; false when the login is taken. */
export async function insertCredential(credential: CredentialItem): Promise<boolean> {
  return putItem(credentialKeys.credential(credential.accountId, credential.domain, credential.login), credential, { ifAbsent: true });
}

/** Writes a credential whether or not it exists (the domain's postmaster, set with the domain). */
export async function saveCredential(credential: CredentialItem): Promise<void> {
  await putItem(credentialKeys.credential(credential.accountId, credential.domain, credential.login), credential);
}

/** Replaces an existing credential's hash; false when there is no such credential. */
export async function setPasswordHash(credential: Pick<CredentialItem, 'accountId' | 'domain' | 'login'>, passwordHash: string): Promise<boolean> {
  try {
    await updateItem(credentialKeys.credential(credential.accountId, credential.domain, credential.login), { passwordHash, updatedAt: new Date().toISOString() });
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function removeCredential(credential: Pick<CredentialItem, 'accountId' | 'domain' | 'login'>): Promise<void> {
  await deleteItem(credentialKeys.credential(credential.accountId, credential.domain, credential.login));
}

/** The account holding a domain name in this region, whoever asks: SMTP AUTH knows only the login. */
export async function domainHolder(domain: string): Promise<string | undefined> {
  return nameHolder(domain);
}
