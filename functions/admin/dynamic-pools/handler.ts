import { z } from 'zod/v3';
import { listSubaccounts } from '../../accounts/subaccount-list';
import { listDomainItems, requireDomain, type DomainItem } from '../../domains/domain-store';
import { BadRequest, NotFound } from '../../platform/errors';
import { boundedText, flag, integer, list, MAX_LENGTH, schema, text } from '../../platform/http/params';
import { areaHandler, operation, type ApiRequest } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { objectId } from '../../platform/ids';
import { queueIpJob } from '../../sending-ips/ip-jobs';
import { assignDomain, poolOfIp, replacementOf } from '../../sending-ips/ip-pools';
import { ipAddressList } from '../../sending-ips/ip-records';
import { accountIps } from '../../sending-ips/ip-store';
import {
  BAND_FIELDS,
  BANDS,
  bandOf,
  deleteDynamicPools,
  effectiveBand,
  enroll,
  enrolledDomains,
  getDynamicPools,
  historyOf,
  isBand,
  markDynamicPoolOwner,
  metricsOf,
  saveDynamicPools,
  setBandOverride,
  type Band,
  type DynamicPoolsItem,
} from '../../sending-ips/dynamic-pools';
import { listWarmups } from '../../sending-ips/warmup';
import { dynamicPoolRoutes } from './routes';

const SUCCESS = { message: 'success' };

/**
 * The IPs a band may hold: the account's dedicated IPs, in no DIPP and no other band; and every
 * band keeps at least one IP that is not warming (Mailgun's rules).
 */
async function checkBands(accountId: string, ips: Record<Band, string[]>): Promise<void> {
  const owned = new Set((await accountIps(accountId)).map((item) => item.ip));
  const pooled = await poolOfIp(accountId);
  const warming = new Set((await listWarmups()).map((warmup) => warmup.ip));
  const seen = new Map<string, Band>();
  for (const band of BANDS) {
    for (const ip of ips[band]) {
      if (!owned.has(ip)) throw new BadRequest(`IP ${ip} is not a dedicated IP of this account`);
      if (pooled.has(ip)) throw new BadRequest(`IP ${ip} is in the IP pool ${pooled.get(ip)}`);
      if (seen.has(ip) && seen.get(ip) !== band) throw new BadRequest(`IP ${ip} cannot be in both ${seen.get(ip)} and ${band}`);
      seen.set(ip, band);
    }
    if (!ips[band].some((ip) => !warming.has(ip))) throw new BadRequest(`${band} needs at least one IP that is not warming up`);
  }
}

async function requirePools(accountId: string): Promise<DynamicPoolsItem> {
  const pools = await getDynamicPools(accountId);
  if (!pools) throw new BadRequest('Dynamic IP pools are not set up for this account: POST /v3/dynamic_pools/all first');
  return pools;
}

function requireBand(name: string): Band {
  if (!isBand(name)) throw new NotFound(`Dynamic IP pool ${name} not found: it is one of ${BANDS.join(', ')}`);
  return name;
}

const bandIps = (pools: DynamicPoolsItem) => Object.fromEntries(BANDS.map((band) => [band, [...pools.bands[band].ips]])) as Record<Band, string[]>;

function poolsJson(pools: DynamicPoolsItem) {
  return {
    pools: BANDS.map((band) => ({ account_id: pools.accountId, enabled: true, id: pools.bands[band].id, ips: pools.bands[band].ips, name: band })),
    ...Object.fromEntries(BANDS.map((band) => [BAND_FIELDS[band], pools.bands[band].ips])),
  };
}

/** The pools a domain of the acting account is enrolled into: the acting account's, or (for a subaccount) its parent's. */
async function enrolledDomain(req: ApiRequest, name: string): Promise<DomainItem & { dynamicPool: NonNullable<DomainItem['dynamicPool']> }> {
  const domain = await requireDomain(req.accountId, name);
  if (!domain.dynamicPool) throw new BadRequest(`Domain ${domain.name} is not enrolled in dynamic IP pools`);
  return domain as DomainItem & { dynamicPool: NonNullable<DomainItem['dynamicPool']> };
}

function enrolledJson(domain: DomainItem) {
  const enrollment = domain.dynamicPool!;
  return {
    id: domain.domainId,
    account_id: domain.accountId,
    name: domain.name,
    registered_at: enrollment.enrolledAt,
    pool: effectiveBand(enrollment),
    ...(enrollment.override ? { override: enrollment.override } : {}),
    ...enrollment.metrics,
  };
}

export const handler = areaHandler(dynamicPoolRoutes, {
  listDynamicPools: operation(() => z.object({}).passthrough(), async (req) => {
    const pools = await getDynamicPools(req.accountId);
    return pools ? poolsJson(pools) : { pools: [], good_reputation: [], poor_reputation: [], new_senders: [] };
  }),

  setDynamicPools: operation(
    schema(() => z.object({ good_reputation: ipAddressList().optional(), poor_reputation: ipAddressList().optional(), new_senders: ipAddressList().optional() })),
    async (req, input) => {
      const ips = { dynamic_good: input.good_reputation ?? [], dynamic_poor: input.poor_reputation ?? [], dynamic_new: input.new_senders ?? [] };
      await checkBands(req.accountId, ips);
      const pools = await saveDynamicPools(req.accountId, ips);
      await markDynamicPoolOwner(req.accountId);
      const { pools: _, ...lists } = poolsJson(pools);
      return lists;
    },
  ),

  deleteDynamicPools: operation(() => z.object({}).passthrough(), async (req) => {
    await requirePools(req.accountId);
    if ((await enrolledDomains(req.accountId)).length) throw new BadRequest('Remove every domain (and every subaccount domain) from the dynamic IP pools first');
    await deleteDynamicPools(req.accountId);
    return SUCCESS;
  }),

  editDynamicPool: operation(schema(() => z.object({ pool_name: z.string(), add_ip: ipAddressList().optional(), remove_ip: ipAddressList().optional() })), async (req, input) => {
    const band = requireBand(input.pool_name);
    const pools = await requirePools(req.accountId);
    const ips = bandIps(pools);
    const before = ips[band].join();
    for (const ip of input.add_ip ?? []) if (!ips[band].includes(ip)) ips[band].push(ip);
    for (const ip of input.remove_ip ?? []) {
      if (!ips[band].includes(ip)) throw new BadRequest(`IP ${ip} is not in ${band}`);
      ips[band] = ips[band].filter((kept) => kept !== ip);
    }
    if (ips[band].join() === before) throw new BadRequest('The edit changes nothing');
    await checkBands(req.accountId, ips);
    await saveDynamicPools(req.accountId, ips);
    return SUCCESS;
  }),

  addDynamicPoolIp: operation(schema(() => z.object({ pool_name: z.string(), ip: z.string() })), async (req, input) => {
    const band = requireBand(input.pool_name);
    const ips = bandIps(await requirePools(req.accountId));
    if (ips[band].includes(input.ip)) throw new BadRequest(`IP ${input.ip} is in ${band} already`);
    ips[band].push(input.ip);
    await checkBands(req.accountId, ips);
    await saveDynamicPools(req.accountId, ips);
    return SUCCESS;
  }),

  enrollDomain: operation(schema(() => z.object({ name: z.string() })), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    if (domain.type === 'sandbox') throw new BadRequest('A sandbox domain sends from shared IPs only');
    if (domain.dynamicPool) throw new BadRequest(`Domain ${domain.name} is enrolled in dynamic IP pools already`);
    await enroll(domain, req.accountId);
    return SUCCESS;
  }),

  unenrollDomain: operation(schema(() => z.object({ name: z.string(), replacement_ip: boundedText(MAX_LENGTH.ip).optional(), replacement_pool_id: boundedText(MAX_LENGTH.reference).optional() })), async (req, input) => {
    const domain = await enrolledDomain(req, input.name);
    const replacement = await replacementOf(req.accountId, input.replacement_ip, input.replacement_pool_id);
    if (!replacement) throw new BadRequest('Give replacement_ip (an IP or shared) or replacement_pool_id');
    await assignDomain(domain, replacement);
    return SUCCESS;
  }),

  listAssignableDomains: operation(schema(() => z.object({ subaccount_id: text().optional(), domain: text().optional() })), async (req, input) => {
    let pattern: RegExp | undefined;
    try {
      pattern = input.domain ? new RegExp(input.domain, 'i') : undefined;
    } catch {
      throw new BadRequest("Invalid parameter 'domain': not a regular expression");
    }
    const subaccounts = input.subaccount_id ? (await listSubaccounts(req.accountId)).filter((a) => a.accountId === input.subaccount_id) : [];
    if (input.subaccount_id && !subaccounts.length) throw new NotFound('Subaccount not found');
    const owner = input.subaccount_id ?? req.accountId;
    const items = (await listDomainItems(owner)).filter((d) => d.type !== 'sandbox' && !d.dynamicPool && (!pattern || pattern.test(d.name)));
    return { items: items.map((d) => ({ id: d.domainId, account_id: d.accountId, name: d.name })) };
  }),

  enrollAllDomains: operation(schema(() => z.object({ include_subaccounts: flag().optional() })), async (req, input) => {
    await requirePools(req.accountId);
    const referenceId = objectId();
    await queueIpJob({ kind: 'enroll-all', ownerId: req.accountId, includeSubaccounts: input.include_subaccounts ?? false, referenceId });
    return { message: 'started', reference_id: referenceId };
  }),

  listEnrolledDomains: operation(
    schema(() =>
      z.object({
        limit: integer().refine((n) => n >= 1 && n <= 100, { message: 'must be between 1 and 100' }).default(10),
        account: list().optional(),
        pool: text().optional(),
        sort_by: z.enum(['name', 'bounce_rate', 'complaint_rate']).default('name'),
        sort_order: z.enum(['ascending', 'descending']).default('ascending'),
      }),
    ),
    async (req, input) => {
      if (input.pool) requireBand(input.pool);
      const enrolled = (await enrolledDomains(req.accountId)).filter((d) => (!input.account || input.account.includes(d.accountId)) && (!input.pool || effectiveBand(d.dynamicPool!) === input.pool));
      const key = (d: DomainItem) => (input.sort_by === 'name' ? d.name : d.dynamicPool!.metrics[input.sort_by]);
      enrolled.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (input.sort_order === 'ascending' ? 1 : -1));
      return { items: enrolled.slice(0, input.limit).map(enrolledJson), total_items: enrolled.length, paging: {} };
    },
  ),

  previewDomainBand: operation(schema(() => z.object({ name: z.string() })), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    const metrics = await metricsOf(domain);
    const { band, perMetric } = bandOf(metrics);
    return {
      pool: band,
      metrics: Object.fromEntries((Object.keys(metrics) as Array<keyof typeof metrics>).map((name) => [name, { value: metrics[name], band: perMetric[name] }])),
    };
  }),

  domainBandHistory: operation(schema(() => z.object({ name: z.string() })), async (req, input) => {
    const domain = await enrolledDomain(req, input.name);
    const items = (await historyOf(domain.dynamicPool.ownerId, { limit: 1000 })).filter((h) => h.domain_name === domain.name);
    return { items };
  }),

  overrideDomainBand: operation(schema(() => z.object({ name: z.string(), pool: boundedText(MAX_LENGTH.word) })), async (req, input) => {
    const domain = await enrolledDomain(req, input.name);
    await setBandOverride(domain, requireBand(input.pool));
    return SUCCESS;
  }),

  clearDomainBandOverride: operation(schema(() => z.object({ name: z.string() })), async (req, input) => {
    const domain = await enrolledDomain(req, input.name);
    await setBandOverride(domain, undefined);
    return SUCCESS;
  }),

  listBandHistory: operation(
    schema(() =>
      z.object({
        Limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }).default(100),
        include_subaccounts: flag().optional(),
        domain: text().optional(),
        moved_to: text().optional(),
        moved_from: text().optional(),
        before: text().optional(),
        after: text().optional(),
      }),
    ),
    async (req, input) => {
      const at = (name: string, value: string | undefined) => {
        if (value === undefined) return undefined;
        const ms = Date.parse(value);
        if (Number.isNaN(ms)) throw new BadRequest(`Invalid parameter '${name}': expected an RFC 1123 date`);
        return new Date(ms).toISOString();
      };
      const after = at('after', input.after);
      const before = at('before', input.before);
      const items = (await historyOf(req.accountId, { limit: 10_000, after, before })).filter(
        (h) =>
          (input.include_subaccounts || h.account_id === req.accountId) &&
          (!input.domain || h.domain_name === input.domain) &&
          (!input.moved_to || h.new_band === input.moved_to) &&
          (!input.moved_from || h.prev_band === input.moved_from),
      );
      return { items: items.slice(0, input.Limit), paging: {} };
    },
  ),
}, { onBehalfOf });
