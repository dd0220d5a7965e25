import { bucketsBetween } from '../analytics/buckets';
import { getCounters } from '../analytics/counter-store';
import { defineEntity } from '../data/key-registry';
import { deleteItem, getItem, putItem, queryAll, queryPage, type Key } from '../data/store';
import { listDomainItems, patchDomain, type DomainItem } from '../domains/domain-store';
import { listSubaccounts } from '../accounts/subaccount-list';
import { BadRequest } from '../platform/errors';
import { objectId } from '../platform/ids';
import { logger } from '../platform/logger';
import { assignmentChanges } from './ip-pools';
import { BANDS, type Band, type DynamicEnrollment, type Metrics } from './enrollment';

export { BANDS, type Band, type DynamicEnrollment, type Metrics };

/**
 * Dynamic IP pools: three groups of the account's dedicated IPs by reputation, and domains
 * enrolled in them moved between the groups by their own sending record. A domain's band comes
 * from the platform's analytics counters over the last BAND_WINDOW_DAYS, with these documented
 * thresholds (our choice; Mailgun does not publish its own):
 *
 * - fewer than NEW_SENDER_VOLUME messages processed: `dynamic_new` (too little to judge);
 * - else a hard-bounce rate above POOR_BOUNCE_RATE or a complaint rate above POOR_COMPLAINT_RATE:
 *   `dynamic_poor`;
 * - else `dynamic_good`.
 *
 * An override pins a domain to a band. Bands are reassessed once a day by the periodic sweep
 * (sweep.ts); each move is a history record. The send worker sends an enrolled domain's mail from
 * its band's IPs (sending-route.ts).
 */
/** The form fields of POST /v3/dynamic_pools/all, one per band. */
export const BAND_FIELDS: Readonly<Record<Band, string>> = { dynamic_good: 'good_reputation', dynamic_poor: 'poor_reputation', dynamic_new: 'new_senders' };

const BAND_WINDOW_DAYS = 30;
const NEW_SENDER_VOLUME = 1000;
const POOR_BOUNCE_RATE = 0.05;
const POOR_COMPLAINT_RATE = 0.001;
const REASSESS_EVERY_MS = 24 * 3600_000;

const dynamicPoolKeys = defineEntity(
  'dynamic ip pools',
  {
    dynamicPools: { what: "an account's dynamic IP pools: the IPs of each reputation band, in one item", pk: 'ACCT#<account>', sk: 'DYNAMICPOOLS', key: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'DYNAMICPOOLS' }) },
    dynamicPoolOwners: { what: 'an account that has dynamic pools (few): the daily reassessment walks them', pk: 'SYSTEM#dynamic-pool-owners', sk: '<account>', key: (accountId = ''): Key => ({ pk: 'SYSTEM#dynamic-pool-owners', sk: accountId }) },
    dynamicPoolHistory: {
      what: 'a move of a domain between bands, per owning account, by `<ISO time>#<domain>`',
      pk: 'ACCT#<owner>#DYNPOOLHISTORY',
      sk: '<ISO time>#<domain>',
      key: (ownerId: string, at = '', domain = ''): Key => ({ pk: `ACCT#${ownerId}#DYNPOOLHISTORY`, sk: at && `${at}#${domain}` }),
    },
  },
  [
    { what: 'the accounts with dynamic pools', pk: 'SYSTEM#dynamic-pool-owners' },
    { what: "an owner's band history, newest first (pages)", pk: 'ACCT#<owner>#DYNPOOLHISTORY' },
  ],
);

export interface DynamicPoolsItem {
  accountId: string;
  bands: Record<Band, { id: string; ips: string[] }>;
}

export interface HistoryItem {
  id: string;
  owning_account_id: string;
  account_id: string;
  domain_id: string;
  domain_name: string;
  new_band: Band;
  prev_band: Band | '';
  reason: string;
  bounce_rate: number;
  complaint_rate: number;
  processed_count: number;
  timestamp: string;
}

export const isBand = (value: string): value is Band => (BANDS as readonly string[]).includes(value);
/** The account's bands, read consistently: what the routes show and change. */
export const getDynamicPools = (accountId: string) => getItem<DynamicPoolsItem>(dynamicPoolKeys.dynamicPools(accountId), { consistent: true });

/** The same, read eventually consistently: the send path's, on every message of an enrolled domain, as its DIPP is read. */
export const dynamicPoolsForSending = (accountId: string) => getItem<DynamicPoolsItem>(dynamicPoolKeys.dynamicPools(accountId));

export async function saveDynamicPools(accountId: string, ips: Record<Band, string[]>): Promise<DynamicPoolsItem> {
  const existing = await getDynamicPools(accountId);
  const bands = Object.fromEntries(BANDS.map((band) => [band, { id: existing?.bands[band].id ?? objectId(), ips: ips[band] }])) as DynamicPoolsItem['bands'];
  const item: DynamicPoolsItem = { accountId, bands };
  await putItem(dynamicPoolKeys.dynamicPools(accountId), item);
  return item;
}

/** The domains in the pools of `ownerId`: its own enrolled ones and its subaccounts' enrolled into them. */
export async function enrolledDomains(ownerId: string): Promise<DomainItem[]> {
  const accounts = [ownerId, ...(await listSubaccounts(ownerId)).filter((a) => a.status !== 'closed').map((a) => a.accountId)];
  const domains = (await Promise.all(accounts.map((id) => listDomainItems(id)))).flat();
  return domains.filter((domain) => domain.dynamicPool?.ownerId === ownerId);
}

/** A domain's record over the window, from the analytics counters (day buckets). */
export async function metricsOf(domain: Pick<DomainItem, 'accountId' | 'name'>, now = Date.now()): Promise<Metrics> {
  const rows = await getCounters(domain.accountId, ['domain'], 'day', bucketsBetween(now - BAND_WINDOW_DAYS * 86_400_000, now + 1, 'day'), [[domain.name]], now);
  const sum = (name: 'processed' | 'hard_bounces' | 'complained' | 'delivered_smtp') => rows.reduce((total, row) => total + (row.counts[name] ?? 0), 0);
  const processed = sum('processed');
  const delivered = sum('delivered_smtp');
  return {
    processed_count: processed,
    bounce_rate: processed ? sum('hard_bounces') / processed : 0,
    complaint_rate: delivered ? sum('complained') / delivered : 0,
  };
}

/** Each metric's own band, and the domain's: the worst, volume first. */
export function bandOf(metrics: Metrics): { band: Band; perMetric: Record<keyof Metrics, Band>; reason: string } {
  const perMetric: Record<keyof Metrics, Band> = {
    processed_count: metrics.processed_count < NEW_SENDER_VOLUME ? 'dynamic_new' : 'dynamic_good',
    bounce_rate: metrics.bounce_rate > POOR_BOUNCE_RATE ? 'dynamic_poor' : 'dynamic_good',
    complaint_rate: metrics.complaint_rate > POOR_COMPLAINT_RATE ? 'dynamic_poor' : 'dynamic_good',
  };
  if (perMetric.processed_count === 'dynamic_new') return { band: 'dynamic_new', perMetric, reason: `Fewer than ${NEW_SENDER_VOLUME} messages processed in ${BAND_WINDOW_DAYS} days` };
  const poor = (['bounce_rate', 'complaint_rate'] as const).filter((name) => perMetric[name] === 'dynamic_poor');
  if (poor.length) return { band: 'dynamic_poor', perMetric, reason: `${poor.map((name) => name.replace('_', ' ')).join(' and ')} in poor threshold` };
  return { band: 'dynamic_good', perMetric, reason: 'Multiple metrics in good threshold' };
}

async function recordMove(domain: DomainItem, ownerId: string, prev: Band | '', next: Band, reason: string, metrics: Metrics, now: number): Promise<void> {
  const at = new Date(now).toISOString();
  const item: HistoryItem = {
    id: objectId(now),
    owning_account_id: ownerId,
    account_id: domain.accountId,
    domain_id: domain.domainId,
    domain_name: domain.name,
    new_band: next,
    prev_band: prev,
    reason,
    ...metrics,
    timestamp: at,
  };
  await putItem(dynamicPoolKeys.dynamicPoolHistory(ownerId, at, domain.name), item);
}

/** Enrolls a domain into `ownerId`'s pools at the band its record earns now (or its override). */
export async function enroll(domain: DomainItem, ownerId: string, now = Date.now()): Promise<DomainItem> {
  if (!(await getDynamicPools(ownerId))) throw new BadRequest('Dynamic IP pools are not set up for this account: POST /v3/dynamic_pools/all first');
  const metrics = await metricsOf(domain, now);
  const { band, reason } = bandOf(metrics);
  const at = new Date(now).toISOString();
  const enrollment: DynamicEnrollment = { ownerId, band, enrolledAt: at, assessedAt: at, metrics };
  // The dynamic pools replace whatever the domain sent from.
  const updated = await patchDomain(domain, { ...assignmentChanges(domain, 'shared'), dynamicPool: enrollment });
  await recordMove(domain, ownerId, '', band, `Enrolled: ${reason}`, metrics, now);
  return updated;
}

export const effectiveBand = (enrollment: DynamicEnrollment) => enrollment.override ?? enrollment.band;

/** Reassesses every enrolled domain of an owner not assessed for a day; a change of band is a history record. */
export async function reassess(ownerId: string, now = Date.now()): Promise<number> {
  let moved = 0;
  for (const domain of await enrolledDomains(ownerId)) {
    const enrollment = domain.dynamicPool!;
    if (now - Date.parse(enrollment.assessedAt) < REASSESS_EVERY_MS) continue;
    const metrics = await metricsOf(domain, now);
    const { band, reason } = bandOf(metrics);
    await patchDomain(domain, { dynamicPool: { ...enrollment, band, metrics, assessedAt: new Date(now).toISOString() } });
    if (band !== enrollment.band) {
      moved++;
      await recordMove(domain, ownerId, enrollment.band, band, reason, metrics, now);
    }
  }
  if (moved) logger.info('dynamic IP pools reassessed', { ownerId, moved });
  return moved;
}

/** Accounts that have dynamic pools set up (the sweep's list). */
export const accountsWithDynamicPools = async () => (await queryAll<{ accountId: string }>(dynamicPoolKeys.dynamicPoolOwners(), '')).map((item) => item.accountId);
export const markDynamicPoolOwner = (accountId: string) => putItem(dynamicPoolKeys.dynamicPoolOwners(accountId), { accountId });

/** Removes an account's dynamic pools (none of its domains, nor its subaccounts', may still be enrolled). */
export async function deleteDynamicPools(accountId: string): Promise<void> {
  await deleteItem(dynamicPoolKeys.dynamicPools(accountId));
  await deleteItem(dynamicPoolKeys.dynamicPoolOwners(accountId));
}

/** Pins an enrolled domain to a band, or (undefined) lets its record decide again. */
export async function setBandOverride(domain: DomainItem & { dynamicPool: DynamicEnrollment }, band: Band | undefined): Promise<void> {
  await patchDomain(domain, { dynamicPool: { ...domain.dynamicPool, override: band } });
}

export async function historyOf(ownerId: string, options: { limit: number; after?: string; before?: string }): Promise<HistoryItem[]> {
  return queryPage<HistoryItem>(dynamicPoolKeys.dynamicPoolHistory(ownerId).pk, { prefix: '', ascending: false, after: options.after, before: options.before, limit: options.limit });
}
