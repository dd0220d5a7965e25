import { byteLength, MAX_DOMAIN_NAME_BYTES } from '../data/key-limits';
import { keys, type DkimKeyItem, type DomainClaimItem, type DomainItem } from '../data/db';
import { deleteItem, getItem, getItems, putItem, queryAll, updateItem } from '../data/store';
import { NotFound } from '../platform/errors';

export async function findDomain(accountId: string, name: string): Promise<DomainItem | undefined> {
  // Longer than a domain name can be, so not one: and too long for a key DynamoDB would accept.
  if (byteLength(name) > MAX_DOMAIN_NAME_BYTES) return undefined;
  return getItem<DomainItem>(keys.domain(accountId, name.toLowerCase()), { consistent: true });
}

/** The account's domain of that name, or a 404 as Mailgun answers for an unknown domain. */
export async function requireDomain(accountId: string, name: string): Promise<DomainItem> {
  const domain = await findDomain(accountId, name);
  if (!domain) throw new NotFound('Domain not found');
  return domain;
}

export async function listDomainItems(accountId: string): Promise<DomainItem[]> {
  return queryAll<DomainItem>(keys.domain(accountId), keys.domain(accountId).sk);
}

export async function saveNewDomain(domain: DomainItem): Promise<void> {
  if (!(await putItem(keys.domain(domain.accountId, domain.name), domain, { ifAbsent: true }))) throw new Error(`domain ${domain.name} exists`);
}

export async function patchDomain(domain: Pick<DomainItem, 'accountId' | 'name'>, changes: Partial<DomainItem>): Promise<DomainItem> {
  return updateItem<DomainItem>(keys.domain(domain.accountId, domain.name), changes);
}

export async function removeDomainItem(domain: Pick<DomainItem, 'accountId' | 'name'>): Promise<void> {
  await deleteItem(keys.domain(domain.accountId, domain.name));
}

/** Reserves a name region-wide; false when another domain (in any account) holds it. */
export async function claimName(name: string, accountId: string): Promise<boolean> {
  const claim: DomainClaimItem = { name, accountId };
  return putItem(keys.domainClaim(name), claim, { ifAbsent: true });
}

/** Which account holds each of these names region-wide, for those any account holds. */
export async function nameHolders(names: readonly string[]): Promise<Map<string, string>> {
  const usable = names.filter((name) => byteLength(name) <= MAX_DOMAIN_NAME_BYTES);
  if (!usable.length) return new Map();
  const claims = await getItems<DomainClaimItem>(usable.map((name) => keys.domainClaim(name)), { consistent: true });
  return new Map(claims.map((claim) => [claim.name, claim.accountId]));
}

export async function releaseName(name: string): Promise<void> {
  await deleteItem(keys.domainClaim(name));
}

/** Saves a key; with `ifAbsent`, only if no key has that selector yet (false when one has). */
export async function saveDkimKey(key: DkimKeyItem, options: { ifAbsent?: boolean } = {}): Promise<boolean> {
  return putItem(keys.dkimKey(key.accountId, key.signingDomain, key.selector), key, options);
}

export async function findDkimKey(accountId: string, signingDomain: string, selector: string): Promise<DkimKeyItem | undefined> {
  return getItem<DkimKeyItem>(keys.dkimKey(accountId, signingDomain, selector), { consistent: true });
}

export async function patchDkimKey(key: Pick<DkimKeyItem, 'accountId' | 'signingDomain' | 'selector'>, changes: Partial<DkimKeyItem>): Promise<DkimKeyItem> {
  return updateItem<DkimKeyItem>(keys.dkimKey(key.accountId, key.signingDomain, key.selector), changes);
}

export async function removeDkimKey(key: Pick<DkimKeyItem, 'accountId' | 'signingDomain' | 'selector'>): Promise<void> {
  await deleteItem(keys.dkimKey(key.accountId, key.signingDomain, key.selector));
}

export async function activeDkimKey(domain: DomainItem): Promise<DkimKeyItem | undefined> {
  return getItem<DkimKeyItem>(keys.dkimKey(domain.accountId, domain.dkimAuthority, domain.dkimSelector));
}

/** The keys of one signing domain, or of the whole account without one, in (domain, selector) order. */
export async function dkimKeysOf(accountId: string, signingDomain?: string): Promise<DkimKeyItem[]> {
  const prefix = signingDomain === undefined ? keys.dkimKey(accountId, '').sk.replace(/#$/, '') : keys.dkimKey(accountId, signingDomain).sk;
  return queryAll<DkimKeyItem>(keys.dkimKey(accountId, ''), prefix);
}
