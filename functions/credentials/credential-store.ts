import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { keys, type CredentialItem } from '../data/db';
import { deleteItem, getItem, putItem, queryAll, updateItem } from '../data/store';
import { domainKeys, type DomainClaimItem } from '../domains/domain-store';

/**
 * SMTP credentials: one item per login in the account's partition, beside the domain it belongs
 * to (table.ts, "SMTP credentials of a domain"). Logins are full addresses in lower case; only a
 * scrypt hash of each password is kept.
 *
 * | pattern                               | key condition                                            |
 * |---------------------------------------|----------------------------------------------------------|
 * | a domain's credentials, by login      | pk = ACCT#<account>, sk begins_with CREDENTIAL#<domain>#  |
 * | one credential                        | pk = ACCT#<account>, sk = CREDENTIAL#<domain>#<login>     |
 * | SMTP AUTH: who holds the login's domain | pk = DOMAINNAME#<domain> (the region-wide claim), then the credential |
 */

export async function credentialsOf(accountId: string, domain: string): Promise<CredentialItem[]> {
  return queryAll<CredentialItem>(keys.credential(accountId, domain), keys.credential(accountId, domain).sk);
}

export async function findCredential(accountId: string, domain: string, login: string): Promise<CredentialItem | undefined> {
  return getItem<CredentialItem>(keys.credential(accountId, domain, login), { consistent: true });
}

/** Writes a new credential; false when the login is taken. */
export async function insertCredential(credential: CredentialItem): Promise<boolean> {
  return putItem(keys.credential(credential.accountId, credential.domain, credential.login), credential, { ifAbsent: true });
}

/** Writes a credential whether or not it exists (the domain's postmaster, set with the domain). */
export async function saveCredential(credential: CredentialItem): Promise<void> {
  await putItem(keys.credential(credential.accountId, credential.domain, credential.login), credential);
}

/** Replaces an existing credential's hash; false when there is no such credential. */
export async function setPasswordHash(credential: Pick<CredentialItem, 'accountId' | 'domain' | 'login'>, passwordHash: string): Promise<boolean> {
  try {
    await updateItem(keys.credential(credential.accountId, credential.domain, credential.login), { passwordHash, updatedAt: new Date().toISOString() });
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function removeCredential(credential: Pick<CredentialItem, 'accountId' | 'domain' | 'login'>): Promise<void> {
  await deleteItem(keys.credential(credential.accountId, credential.domain, credential.login));
}

/** The account holding a domain name in this region, whoever asks: SMTP AUTH knows only the login. */
export async function domainHolder(domain: string): Promise<string | undefined> {
  return (await getItem<DomainClaimItem>(domainKeys.domainClaim(domain)))?.accountId;
}
