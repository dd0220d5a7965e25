import { deleteItem, getItem, putItem, queryAll, updateItem, updateItemWhere } from '../data/store';
import { listDomainItems, patchDomain, type DomainItem } from '../domains/domain-store';
import { BadRequest, NotFound } from '../platform/errors';
import { objectId } from '../platform/ids';
import { accountIps, compareIps, type DedicatedIpItem } from './ip-store';
import { delegationsOf, ipPoolKeys, type DomainAssignment, type IpDelegationItem, type IpPoolItem, type VisiblePool } from './pool-records';

export type { DomainAssignment, IpDelegationItem, IpPoolItem, VisiblePool } from './pool-records';

const live = (pool: IpPoolItem | undefined) => (pool && !pool.deleting ? pool : undefined);

/** The account's own pools, without those being deleted. */
export async function ownPools(accountId: string): Promise<IpPoolItem[]> {
  return (await queryAll<IpPoolItem>(ipPoolKeys.ipPool(accountId), '')).filter((pool) => !pool.deleting);
}

const delegationsTo = (subaccountId: string) => queryAll<IpDelegationItem>(delegationsOf(subaccountId), '');

/** The pools delegated to a subaccount by its parent. */
async function inheritedPools(accountId: string): Promise<IpPoolItem[]> {
  const delegated = (await delegationsTo(accountId)).filter((d) => d.poolId);
  const pools = await Promise.all(delegated.map((d) => getItem<IpPoolItem>(ipPoolKeys.ipPool(d.parentId, d.poolId!))));
  return pools.map(live).filter((pool): pool is IpPoolItem => Boolean(pool));
}

/** Own pools, then delegated ones. */
export async function visiblePools(accountId: string): Promise<VisiblePool[]> {
  const [own, inherited] = await Promise.all([ownPools(accountId), inheritedPools(accountId)]);
  return [...own.map((pool) => ({ ...pool, inherited: false })), ...inherited.map((pool) => ({ ...pool, inherited: true }))];
}

/** A pool named in a parameter (`pool_id` of a domain or a replacement): one that does not exist is a bad parameter, not a missing page. */
export async function poolParameter(accountId: string, poolId: string): Promise<VisiblePool> {
  try {
    return await requirePool(accountId, poolId);
  } catch (error) {
    if (error instanceof NotFound) throw new BadRequest(`IP pool ${poolId} not found`);
    throw error;
  }
}

export async function requirePool(accountId: string, poolId: string): Promise<VisiblePool> {
  if (!/^[0-9a-f]{24}$/.test(poolId)) throw new NotFound('IP pool not found');
  const own = live(await getItem<IpPoolItem>(ipPoolKeys.ipPool(accountId, poolId), { consistent: true }));
  if (own) return { ...own, inherited: false };
  const delegation = await getItem<IpDelegationItem>(ipPoolKeys.poolDelegation(accountId, poolId), { consistent: true });
  const inherited = delegation && live(await getItem<IpPoolItem>(ipPoolKeys.ipPool(delegation.parentId, poolId), { consistent: true }));
  if (inherited) return { ...inherited, inherited: true };
  throw new NotFound('IP pool not found');
}

/** Rule 2: a subaccount uses a delegated pool; only the parent changes it. */
export function requireOwnPool(pool: VisiblePool, what: 'edited' | 'deleted'): void {
  if (pool.inherited) throw new BadRequest(`An IP pool inherited from the parent account cannot be ${what}`);
}

/** The pool each of the account's own pools' IPs is in. */
export async function poolOfIp(accountId: string): Promise<Map<string, string>> {
  return new Map((await ownPools(accountId)).flatMap((pool) => pool.ips.map((ip) => [ip, pool.poolId] as const)));
}

/**
 * An IP the account may put in a pool or on a domain: one of its dedicated IPs. `outsidePools`
 * also refuses one already in a DIPP (other than `exceptPool`), as Mailgun's rules 4 and 7 do.
 */
export async function requireAccountIp(accountId: string, ip: string, outsidePools?: { exceptPool?: string }): Promise<DedicatedIpItem> {
  const owned = (await accountIps(accountId)).find((item) => item.ip === ip);
  if (!owned) throw new BadRequest(`IP ${ip} is not a dedicated IP of this account`);
  if (outsidePools) {
    const pool = (await poolOfIp(accountId)).get(ip);
    if (pool && pool !== outsidePools.exceptPool) throw new BadRequest(`IP ${ip} is already in the IP pool ${pool}`);
  }
  return owned;
}

export async function createPool(accountId: string, input: { name: string; description: string; ips: string[] }): Promise<IpPoolItem> {
  const existing = await ownPools(accountId);
  if (existing.some((pool) => pool.name === input.name)) throw new BadRequest(`An IP pool named ${input.name} already exists`);
  const ips = [...new Set(input.ips)].sort(compareIps);
  for (const ip of ips) await requireAccountIp(accountId, ip, {});
  const pool: IpPoolItem = { poolId: objectId(), accountId, name: input.name, description: input.description, ips, createdAt: new Date().toISOString(), delegatedTo: [] };
  await putItem(ipPoolKeys.ipPool(accountId, pool.poolId), pool, { ifAbsent: true });
  return pool;
}

export const savePoolChanges = (pool: Pick<IpPoolItem, 'accountId' | 'poolId'>, changes: Partial<Omit<IpPoolItem, 'poolId' | 'accountId'>>) =>
  updateItem<IpPoolItem>(ipPoolKeys.ipPool(pool.accountId, pool.poolId), changes);

/**
 * Adds or removes a delegate with a compare-and-set, so two delegations at once both land. The
 * condition is on a revision string, not on the list itself: the local stand-in (dynalite) never
 * finds two non-empty lists equal. False when the pool is gone.
 */
export async function changeDelegates(which: Pick<IpPoolItem, 'accountId' | 'poolId'>, change: (delegates: string[]) => string[]): Promise<boolean> {
  const key = ipPoolKeys.ipPool(which.accountId, which.poolId);
  for (let round = 0; round < 5; round++) {
    const pool = await getItem<IpPoolItem>(key, { consistent: true });
    if (!pool) return false;
    const current = pool.delegatedTo ?? [];
    const next = change(current);
    if (next.join() === current.join()) return true;
    if (await updateItemWhere(key, ['delegatesRevision'], pool.delegatesRevision, { delegatedTo: next, delegatesRevision: objectId() })) return true;
  }
  throw new Error(`could not change the delegates of IP pool ${which.poolId}: too many concurrent changes`);
}

export const removePool = (pool: Pick<IpPoolItem, 'accountId' | 'poolId'>) => deleteItem(ipPoolKeys.ipPool(pool.accountId, pool.poolId));

/** Is this domain linked to that pool (its own account's, or a delegated one)? */
const isLinkedTo = (domain: DomainItem, pool: Pick<IpPoolItem, 'accountId' | 'poolId'>) =>
  domain.ipPoolId === pool.poolId && (domain.ipPoolOwnerId ?? domain.accountId) === pool.accountId;

/** The domains linked to the pool: its account's and those of the subaccounts it is delegated to. */
export async function linkedDomains(pool: IpPoolItem, ownerDomains?: DomainItem[]): Promise<DomainItem[]> {
  const delegated = await Promise.all((pool.delegatedTo ?? []).map((subaccountId) => listDomainItems(subaccountId)));
  return [...(ownerDomains ?? (await listDomainItems(pool.accountId))), ...delegated.flat()].filter((domain) => isLinkedTo(domain, pool));
}

/** The domain fields an assignment sets; any assignment also takes the domain out of dynamic pools. */
export function assignmentChanges(domain: Pick<DomainItem, 'accountId'>, assignment: DomainAssignment): Pick<DomainItem, 'ipPoolId' | 'ipPoolLinkedAt' | 'ipPoolOwnerId' | 'ips' | 'dynamicPool'> {
  const none = { ipPoolId: undefined, ipPoolLinkedAt: undefined, ipPoolOwnerId: undefined, ips: undefined, dynamicPool: undefined };
  if (assignment === 'shared') return none;
  if ('poolId' in assignment) {
    const owner = assignment.ownerId && assignment.ownerId !== domain.accountId ? assignment.ownerId : undefined;
    return { ...none, ipPoolId: assignment.poolId, ipPoolLinkedAt: new Date().toISOString(), ipPoolOwnerId: owner };
  }
  return { ...none, ips: assignment.ips.length ? assignment.ips : undefined };
}

export const assignDomain = (domain: DomainItem, assignment: DomainAssignment) => patchDomain(domain, assignmentChanges(domain, assignment));

/** Linking to a pool the account sees (own or delegated): the assignment that names it. */
export const poolAssignment = (pool: VisiblePool): DomainAssignment => ({ poolId: pool.poolId, ownerId: pool.accountId });

/**
 * The replacement a caller names when a pool or a domain's IPs go away (`ip`: an IP or `shared`;
 * `pool_id`: a DIPP), checked as Mailgun's rules 3 and 4 say: a pool must hold at least one IP;
 * an IP must be the account's and in no DIPP.
 */
export async function replacementOf(accountId: string, ip: string | undefined, poolId: string | undefined, exceptPool?: string): Promise<DomainAssignment | undefined> {
  if (ip && poolId) throw new BadRequest('Give either ip or pool_id as the replacement, not both');
  if (poolId) {
    if (poolId === exceptPool) throw new BadRequest('The replacement IP pool must be another pool');
    const pool = await poolParameter(accountId, poolId);
    if (!pool.ips.length) throw new BadRequest(`The replacement IP pool ${poolId} has no IPs`);
    return poolAssignment(pool);
  }
  if (ip === 'shared') return 'shared';
  if (ip) {
    await requireAccountIp(accountId, ip, { exceptPool });
    return { ips: [ip] };
  }
  return undefined;
}

/** The pool a domain is linked to, as stored (also while it is being deleted: its domains keep sending from it until moved). */
export async function poolOfDomain(domain: Pick<DomainItem, 'accountId' | 'ipPoolId' | 'ipPoolOwnerId'>): Promise<IpPoolItem | undefined> {
  if (!domain.ipPoolId) return undefined;
  return getItem<IpPoolItem>(ipPoolKeys.ipPool(domain.ipPoolOwnerId ?? domain.accountId, domain.ipPoolId));
}

/** The IPs a domain may send from (empty: the shared addresses). */
export async function domainIps(domain: DomainItem): Promise<string[]> {
  if (domain.ipPoolId) return (await poolOfDomain(domain))?.ips ?? [];
  return domain.ips ?? [];
}

/** Delegates one of a parent's dedicated IPs to a subaccount. */
export async function delegateIp(parentId: string, subaccountId: string, ip: string): Promise<void> {
  const delegation: IpDelegationItem = { subaccountId, parentId, ip, delegatedAt: new Date().toISOString() };
  await putItem(ipPoolKeys.ipDelegation(subaccountId, ip), delegation);
}

/** Writes the subaccount's side of a pool's delegation (ip-jobs.ts keeps the pool's list of delegates first). */
export async function savePoolDelegation(pool: Pick<IpPoolItem, 'accountId' | 'poolId'>, subaccountId: string): Promise<void> {
  const delegation: IpDelegationItem = { subaccountId, parentId: pool.accountId, poolId: pool.poolId, delegatedAt: new Date().toISOString() };
  await putItem(ipPoolKeys.poolDelegation(subaccountId, pool.poolId), delegation);
}

/** Takes back a pool's delegation from a subaccount: it can no longer link domains to it. */
export async function removePoolDelegation(subaccountId: string, poolId: string): Promise<void> {
  await deleteItem(ipPoolKeys.poolDelegation(subaccountId, poolId));
}
