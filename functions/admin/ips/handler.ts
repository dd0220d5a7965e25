import { z } from 'zod/v3';
import { listDomainItems, type DomainItem } from '../../domains/domain-store';
import { BadRequest, Forbidden, NotFound } from '../../platform/errors';
import { absoluteUrl } from '../../platform/http/paging';
import { offsetOfPage, offsetPaging } from '../../platform/http/offset-pages';
import { atMost, boundedList, boundedText, integer, MAX_LENGTH, schema, text } from '../../platform/http/params';
import { areaHandler, operation, shadowedParam, type ApiRequest } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { objectId } from '../../platform/ids';
import { logger } from '../../platform/logger';
import { canHaveIps, delegatePool, queueIpJob, type IpJob } from '../../sending-ips/ip-jobs';
import {
  assignDomain,
  createPool,
  delegateIp,
  domainIps,
  linkedDomains,
  ownPools,
  poolAssignment,
  poolOfIp,
  removePoolDelegation,
  replacementOf,
  requireAccountIp,
  requireOwnPool,
  requirePool,
  savePoolChanges,
  visiblePools,
  type IpPoolItem,
} from '../../sending-ips/ip-pools';
import { ipAddressList } from '../../sending-ips/ip-records';
import { accountIps, compareIps } from '../../sending-ips/ip-store';
import { cancelWarmup, findWarmup, listWarmups, sentThisHour, startWarmup, warmupDetails, warmupListItem } from '../../sending-ips/warmup';
import { findSubaccount } from '../../accounts/subaccount-store';
import { BANDS, getDynamicPools } from '../../sending-ips/dynamic-pools';
import { ipRoutes } from './routes';

const SUCCESS = { message: 'success' };

/** Queues work to finish after the reply (rule 6) and answers as Mailgun does: `started`, with a reference. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

async function started(job: DistributiveOmit<IpJob, 'referenceId'>) {
  const referenceId = objectId();
  await queueIpJob({ ...job, referenceId });
  return { message: 'started', reference_id: referenceId };
}

/** The DIPPs feature (rule 1): an account that has dedicated IPs (its own or delegated) or a delegated pool has it. */
async function requireDipps(accountId: string): Promise<void> {
  if ((await accountIps(accountId)).length || (await visiblePools(accountId)).length) return;
  throw new Forbidden('Dedicated IP pools are not enabled for this account: it has no dedicated IPs');
}

/**
 * Editing or deleting a DIPP names who asks (authentication item 7): the account, the requesting
 * user's address and the calling client, each required; the account must be the one acted on.
 */
function requireServiceHeaders(req: ApiRequest): void {
  const header = (name: string) => req.headers[name.toLowerCase()]?.trim();
  for (const name of ['X-Service-Account-Id', 'X-Service-Requestor', 'X-Service-Requestor-Client']) {
    if (!header(name)) throw new BadRequest(`Missing header '${name}'`);
  }
  if (header('X-Service-Account-Id') !== req.accountId) throw new Forbidden('X-Service-Account-Id does not name the account acted on');
  logger.info('IP pool change', { accountId: req.accountId, requestor: header('X-Service-Requestor'), client: header('X-Service-Requestor-Client'), route: req.route.path });
}

async function requireSubaccount(parentId: string, subaccountId: string): Promise<void> {
  if (!(await findSubaccount(parentId, subaccountId))) throw new NotFound('Subaccount not found');
}

function poolJson(pool: IpPoolItem, linked: DomainItem[]) {
  return { pool_id: pool.poolId, name: pool.name, description: pool.description, ips: pool.ips, is_linked: linked.length > 0 };
}

/** A listed pool also says when each domain was linked to it, as Mailgun's listing does. */
const metadataOf = (linked: DomainItem[]) => ({ assignments: Object.fromEntries(linked.map((d) => [d.name, { linked_at: d.ipPoolLinkedAt ?? '' }])) });

/** The account's domains linked to a pool it sees (a subaccount sees only its own domains on a delegated pool). */
const linkedFor = (accountId: string, pool: IpPoolItem, domains: DomainItem[]) =>
  linkedDomains(pool.accountId === accountId ? pool : { ...pool, delegatedTo: [] }, domains);

const ipInput = schema(() => z.object({ ip: z.string() }));
const poolInput = schema(() => z.object({ pool_id: z.string() }));
const poolIpInput = schema(() => z.object({ pool_id: z.string(), ip: z.string() }));
const delegateInput = schema(() => z.object({ pool_id: z.string(), subaccount_id: boundedText(MAX_LENGTH.reference) }));
const subaccountPoolInput = schema(() => z.object({ subaccount_id: z.string(), pool_id: boundedText(MAX_LENGTH.reference) }));

/** More domains than one request names. */
const MAX_DOMAINS_NAMED = 1000;
const domainNames = () => boundedList(MAX_LENGTH.host, MAX_DOMAINS_NAMED);

export const handler = areaHandler(ipRoutes, {
  listIps: operation(
    () => z.object({ dedicated: text().optional(), enabled: text().optional() }),
    async (req, input) => {
      // Every address named here is dedicated and enabled; SES does not name its shared ones.
      const none = input.dedicated === 'false' || input.enabled === 'false';
      const ips = none ? [] : await accountIps(req.accountId);
      const pooled = await poolOfIp(req.accountId);
      const warming = new Set((await listWarmups()).map((warmup) => warmup.ip));
      return {
        items: ips.map((item) => item.ip),
        total_count: ips.length,
        details: ips.map((item) => ({ ip: item.ip, is_on_warmup: warming.has(item.ip) })),
        assignable_to_pools: ips.filter((item) => !pooled.has(item.ip)).map((item) => item.ip),
      };
    },
  ),

  getIp: operation(ipInput, async (req, input) => {
    const item = (await accountIps(req.accountId)).find((candidate) => candidate.ip === input.ip);
    if (!item) throw new NotFound('IP not found');
    return { ip: item.ip, dedicated: true, rdns: item.rdns };
  }),

  listIpDomains: operation(
    () =>
      z.object({
        ip: z.string(),
        limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }).default(10),
        skip: integer().refine((n) => n >= 0, { message: 'must not be negative' }).default(0),
        search: text().optional(),
      }),
    async (req, input) => {
      if (!(await accountIps(req.accountId)).some((item) => item.ip === input.ip)) throw new NotFound('IP not found');
      // The search is split on whitespace and punctuation, and any word matching selects a domain (rule 8).
      const words = (input.search ?? '').toLowerCase().split(/[\s\p{P}]+/u).filter(Boolean);
      const domains = (await listDomainItems(req.accountId)).filter((domain) => !words.length || words.some((word) => domain.name.includes(word)));
      const using = (await Promise.all(domains.map(async (domain) => ({ domain, ips: await domainIps(domain) }))))
        .filter(({ ips }) => ips.includes(input.ip))
        .sort((a, b) => a.domain.domainId.localeCompare(b.domain.domainId));
      return { items: using.slice(input.skip, input.skip + input.limit).map(({ domain, ips }) => ({ domain: domain.name, ips })), total_count: using.length };
    },
  ),

  assignIpToAllDomains: operation(ipInput, async (req, input) => {
    await requireAccountIp(req.accountId, input.ip);
    return started({ kind: 'assign-ip', accountId: req.accountId, ip: input.ip });
  }),

  removeIpFromAllDomains: operation(
    () => z.object({ ip: z.string(), alternative: boundedText(MAX_LENGTH.ip).optional() }),
    async (req, input) => {
      await requireAccountIp(req.accountId, input.ip);
      if (input.alternative) await requireAccountIp(req.accountId, input.alternative);
      return started({ kind: 'unassign-ip', accountId: req.accountId, ip: input.ip, alternative: input.alternative });
    },
  ),

  listPools: operation(() => z.object({}).passthrough(), async (req) => {
    const [pools, domains] = await Promise.all([visiblePools(req.accountId), listDomainItems(req.accountId)]);
    const items = await Promise.all(pools.map(async (pool) => {
      const linked = await linkedFor(req.accountId, pool, domains);
      return { ...poolJson(pool, linked), is_inherited: pool.inherited, metadata: metadataOf(linked) };
    }));
    return { ip_pools: items, message: 'success' };
  }),

  createPool: operation(
    // Mailgun documents `ip` (repeated); mailgun.js sends its `ips` array as repeated `ips`.
    () => z.object({ name: boundedText(MAX_LENGTH.name), description: boundedText(MAX_LENGTH.description), ip: ipAddressList().optional(), ips: ipAddressList().optional() }),
    async (req, input) => {
      await requireDipps(req.accountId);
      const pool = await createPool(req.accountId, { name: input.name, description: input.description, ips: [...(input.ip ?? []), ...(input.ips ?? [])] });
      return { message: 'success', pool_id: pool.poolId };
    },
  ),

  getPool: operation(poolInput, async (req, input) => {
    const pool = await requirePool(req.accountId, input.pool_id);
    const linked = await linkedFor(req.accountId, pool, await listDomainItems(req.accountId));
    return { details: { ...poolJson(pool, linked), ...(linked.length ? { linked_domains: linked.map((d) => d.name) } : {}) }, message: 'success' };
  }),

  editPool: operation(
    () =>
      z.object({
        pool_id: z.string(),
        name: boundedText(MAX_LENGTH.name).optional(),
        description: boundedText(MAX_LENGTH.description).optional(),
        add_ip: ipAddressList().optional(),
        remove_ip: ipAddressList().optional(),
        link_domain: domainNames().optional(),
        unlink_domain: domainNames().optional(),
      }),
    async (req, input) => {
      requireServiceHeaders(req);
      await requireDipps(req.accountId);
      const pool = await requirePool(req.accountId, input.pool_id);
      requireOwnPool(pool, 'edited');
      const domains = await listDomainItems(req.accountId);
      const byName = new Map(domains.map((d) => [d.name, d]));
      const ips = new Set(pool.ips);
      for (const ip of input.add_ip ?? []) {
        await requireAccountIp(req.accountId, ip, { exceptPool: pool.poolId });
        ips.add(ip);
      }
      for (const ip of input.remove_ip ?? []) {
        if (!ips.has(ip)) throw new BadRequest(`IP ${ip} is not in this IP pool`);
        ips.delete(ip);
      }
      const domainNamed = (name: string) => {
        const domain = byName.get(name.toLowerCase());
        if (!domain || !canHaveIps(domain)) throw new BadRequest(`Domain ${name} not found`);
        return domain;
      };
      const toLink = (input.link_domain ?? []).map(domainNamed).filter((d) => d.ipPoolId !== pool.poolId);
      const toUnlink = (input.unlink_domain ?? []).map(domainNamed);
      for (const domain of toUnlink) if (domain.ipPoolId !== pool.poolId) throw new BadRequest(`Domain ${domain.name} is not linked to this IP pool`);
      const newIps = [...ips].sort(compareIps);
      const changes = {
        ...(input.name !== undefined && input.name !== pool.name ? { name: input.name } : {}),
        ...(input.description !== undefined && input.description !== pool.description ? { description: input.description } : {}),
        ...(newIps.join() !== pool.ips.join() ? { ips: newIps } : {}),
      };
      // An edit that would leave everything as it was is an error (errors item 4).
      if (!Object.keys(changes).length && !toLink.length && !toUnlink.length) throw new BadRequest('The edit changes nothing');
      const stillLinked = (await linkedDomains(pool, domains)).length - toUnlink.length + toLink.length;
      if (!newIps.length && stillLinked > 0) throw new BadRequest('An IP pool linked to domains must keep at least one IP');
      if (changes.name && (await ownPools(req.accountId)).some((other) => other.poolId !== pool.poolId && other.name === changes.name)) {
        throw new BadRequest(`An IP pool named ${changes.name} already exists`);
      }
      if (Object.keys(changes).length) await savePoolChanges(pool, changes);
      for (const domain of toLink) await assignDomain(domain, poolAssignment(pool));
      for (const domain of toUnlink) await assignDomain(domain, 'shared');
      return SUCCESS;
    },
  ),

  deletePool: operation(poolInput, async (req, input) => {
    requireServiceHeaders(req);
    await requireDipps(req.accountId);
    const pool = await requirePool(req.accountId, input.pool_id);
    requireOwnPool(pool, 'deleted');
    const replacementIp = shadowedParam(req, 'ip');
    // Rule 4: subaccounts cannot be handed an address in place of the pool they inherited.
    if (replacementIp && replacementIp !== 'shared' && pool.delegatedTo?.length) {
      throw new BadRequest('An IP pool delegated to subaccounts cannot be replaced by an IP: give pool_id or shared');
    }
    const replacement = await replacementOf(req.accountId, replacementIp, shadowedParam(req, 'pool_id'), pool.poolId);
    // Without a replacement the pool's domains go to the shared addresses, which only an empty pool may do (rule 5).
    if (!replacement && pool.ips.length) throw new BadRequest('An IP pool with IPs can be deleted only with a replacement: ip (an IP or shared) or pool_id');
    // Hidden from listings at once; its domains keep sending from it until the job has moved them.
    await savePoolChanges(pool, { deleting: { replacement: replacement ?? 'shared', requestedAt: new Date().toISOString() } });
    return started({ kind: 'delete-pool', ownerId: pool.accountId, poolId: pool.poolId });
  }),

  listPoolDomains: operation(
    () => z.object({ pool_id: z.string(), limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }).default(100), page: text().optional() }),
    async (req, input) => {
      const pool = await requirePool(req.accountId, input.pool_id);
      const linked = (await linkedFor(req.accountId, pool, await listDomainItems(req.accountId))).sort((a, b) => a.domainId.localeCompare(b.domainId));
      const offset = offsetOfPage(input.page, linked.length, input.limit);
      const link = (page: string) => absoluteUrl(req.baseUrl, `/v3/ip_pools/${pool.poolId}/domains`, { page, limit: input.limit });
      return {
        domains: linked.slice(offset, offset + input.limit).map((d) => ({ id: d.domainId, name: d.name })),
        paging: offsetPaging(link, offset, input.limit),
      };
    },
  ),

  addPoolIp: operation(poolIpInput, async (req, input) => addIps(req.accountId, input.pool_id, [input.ip])),

  addPoolIps: operation(schema(() => z.object({ pool_id: z.string(), ips: z.array(atMost(MAX_LENGTH.ip)).min(1, 'must name at least one IP') })), async (req, input) => addIps(req.accountId, input.pool_id, input.ips)),

  removePoolIp: operation(poolIpInput, async (req, input) => {
    await requireDipps(req.accountId);
    const pool = await requirePool(req.accountId, input.pool_id);
    requireOwnPool(pool, 'edited');
    if (!pool.ips.includes(input.ip)) throw new NotFound(`IP ${input.ip} is not in this IP pool`);
    const ips = pool.ips.filter((ip) => ip !== input.ip);
    if (!ips.length && (await linkedDomains(pool)).length) throw new BadRequest('An IP pool linked to domains must keep at least one IP');
    await savePoolChanges(pool, { ips });
    return { ...SUCCESS, reference_id: objectId() };
  }),

  delegatePool: operation(delegateInput, async (req, input) => delegateTo(req.accountId, input.pool_id, input.subaccount_id)),
  // Mailgun: from the subaccount's side a delegation replaces the pool it had (the pool's side adds one).
  delegatePoolToSubaccount: operation(subaccountPoolInput, async (req, input) => {
    await delegateTo(req.accountId, input.pool_id, input.subaccount_id);
    const replaced = (await ownPools(req.accountId)).filter((pool) => pool.poolId !== input.pool_id && pool.delegatedTo?.includes(input.subaccount_id));
    for (const pool of replaced) await revokeFrom(req.accountId, pool.poolId, input.subaccount_id);
    return { message: 'started', reference_id: objectId() };
  }),

  revokePoolDelegation: operation(delegateInput, async (req, input) => revokeFrom(req.accountId, input.pool_id, input.subaccount_id)),
  revokeSubaccountPool: operation(subaccountPoolInput, async (req, input) => revokeFrom(req.accountId, input.pool_id, input.subaccount_id)),

  listPoolDelegations: operation(() => z.object({}).passthrough(), async (req) => {
    const items = (await ownPools(req.accountId)).flatMap((pool) => (pool.delegatedTo ?? []).map((subaccountId) => ({ pool_id: pool.poolId, subaccount_id: subaccountId })));
    return { items, total_count: items.length };
  }),

  listWarmups: operation(
    () => z.object({ limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }).default(100), page: text().optional() }),
    async (req, input) => {
      const mine = new Set((await accountIps(req.accountId)).map((item) => item.ip));
      const warming = (await listWarmups()).filter((warmup) => mine.has(warmup.ip)).sort((a, b) => compareIps(a.ip, b.ip));
      const offset = offsetOfPage(input.page, warming.length, input.limit);
      const link = (page: string) => absoluteUrl(req.baseUrl, '/v3/ip_warmups', { page, limit: input.limit });
      return {
        items: warming.slice(offset, offset + input.limit).map(warmupListItem),
        paging: offsetPaging(link, offset, input.limit),
      };
    },
  ),

  getWarmup: operation(ipInput, async (req, input) => {
    await requireAccountIp(req.accountId, input.ip);
    const warmup = await findWarmup(input.ip);
    if (!warmup) throw new NotFound(`IP ${input.ip} is not warming up`);
    return { details: warmupDetails(warmup, await sentThisHour(input.ip)) };
  }),

  startWarmup: operation(ipInput, async (req, input) => {
    await requireAccountIp(req.accountId, input.ip);
    if (!(await startWarmup(input.ip, req.accountId))) throw new BadRequest(`IP ${input.ip} is warming up already`);
    return SUCCESS;
  }),

  cancelWarmup: operation(ipInput, async (req, input) => {
    await requireAccountIp(req.accountId, input.ip);
    if (!(await findWarmup(input.ip))) throw new NotFound(`IP ${input.ip} is not warming up`);
    await cancelWarmup(input.ip);
    return SUCCESS;
  }),

  delegateIpToSubaccount: operation(schema(() => z.object({ subaccount_id: z.string(), ip: boundedText(MAX_LENGTH.ip) })), async (req, input) => {
    await requireSubaccount(req.accountId, input.subaccount_id);
    await requireDelegableIp(req.accountId, input.ip);
    await delegateIp(req.accountId, input.subaccount_id, input.ip);
    return SUCCESS;
  }),
}, { onBehalfOf });

async function addIps(accountId: string, poolId: string, add: string[]) {
  await requireDipps(accountId);
  const pool = await requirePool(accountId, poolId);
  requireOwnPool(pool, 'edited');
  for (const ip of add) await requireAccountIp(accountId, ip, { exceptPool: pool.poolId });
  const ips = [...new Set([...pool.ips, ...add])].sort(compareIps);
  if (ips.length === pool.ips.length) throw new BadRequest('The IPs are in this IP pool already');
  await savePoolChanges(pool, { ips });
  return { ...SUCCESS, reference_id: objectId() };
}

/** Mailgun's rule: an IP the parent has in a DIPP or a dynamic pool band cannot be delegated to a subaccount. */
async function requireDelegableIp(parentId: string, ip: string): Promise<void> {
  await requireAccountIp(parentId, ip);
  const pool = (await ownPools(parentId)).find((candidate) => candidate.ips.includes(ip));
  if (pool) throw new BadRequest(`IP ${ip} is in the IP pool ${pool.name}: an IP in a pool cannot be delegated`);
  const bands = (await getDynamicPools(parentId))?.bands;
  const band = bands && BANDS.find((name) => bands[name].ips.includes(ip));
  if (band) throw new BadRequest(`IP ${ip} is in the dynamic IP pool ${band}: an IP in a pool cannot be delegated`);
}

/** A parent's own pool to one of its subaccounts. */
async function delegateTo(parentId: string, poolId: string, subaccountId: string) {
  await requireSubaccount(parentId, subaccountId);
  const pool = await requirePool(parentId, poolId);
  requireOwnPool(pool, 'edited');
  await delegatePool(pool, subaccountId);
  return SUCCESS;
}

/** Takes a pool back: the subaccount cannot link domains to it from now, and those linked move to the shared addresses after the reply. */
async function revokeFrom(parentId: string, poolId: string, subaccountId: string) {
  await requireSubaccount(parentId, subaccountId);
  const pool = await requirePool(parentId, poolId);
  requireOwnPool(pool, 'edited');
  if (!pool.delegatedTo?.includes(subaccountId)) throw new BadRequest('The IP pool is not delegated to this subaccount');
  await removePoolDelegation(subaccountId, pool.poolId);
  return started({ kind: 'revoke-pool', ownerId: parentId, poolId: pool.poolId, subaccountId });
}
