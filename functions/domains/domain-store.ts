import { db, type CredentialItem, type DkimKeyItem, type DomainItem } from '../data/db';
import { hashPassword } from '../platform/secrets';

export async function findDomain(accountId: string, name: string): Promise<DomainItem | undefined> {
  const { data } = await db().domain.get({ accountId, name: name.toLowerCase() }).go({ consistent: true });
  return data ?? undefined;
}

export async function listDomainItems(accountId: string): Promise<DomainItem[]> {
  const { data } = await db().domain.query.byAccount({ accountId }).go({ pages: 'all' });
  return data;
}

/** Reserves a name region-wide; false when another domain (in any account) holds it. */
export async function claimName(name: string, accountId: string): Promise<boolean> {
  try {
    await db().domainClaim.create({ name, accountId }).go();
    return true;
  } catch (error) {
    if ((error as { cause?: { name?: string } }).cause?.name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

export async function releaseName(name: string): Promise<void> {
  await db().domainClaim.delete({ name }).go();
}

export async function activeDkimKey(domain: DomainItem): Promise<DkimKeyItem | undefined> {
  const { data } = await db()
    .dkimKey.get({ accountId: domain.accountId, signingDomain: domain.dkimAuthority, selector: domain.dkimSelector })
    .go();
  return data ?? undefined;
}

export async function dkimKeysOf(accountId: string, signingDomain: string): Promise<DkimKeyItem[]> {
  const { data } = await db().dkimKey.query.byAccount({ accountId, signingDomain }).go({ pages: 'all' });
  return data.filter((key) => key.signingDomain === signingDomain);
}

export async function credentialsOf(accountId: string, domain: string): Promise<CredentialItem[]> {
  const { data } = await db().credential.query.byAccount({ accountId, domain }).go({ pages: 'all' });
  return data.filter((credential) => credential.domain === domain);
}

/** The domain's system SMTP login (postmaster@domain) with a new password; only its hash is kept. */
export async function setPostmasterPassword(accountId: string, domain: string, password: string): Promise<void> {
  const login = `postmaster@${domain}`;
  await db()
    .credential.put({
      accountId,
      domain,
      login,
      mailbox: login,
      passwordHash: await hashPassword(password),
      system: true,
      createdAt: new Date().toISOString(),
    })
    .go();
}
