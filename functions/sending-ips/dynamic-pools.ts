import { bucketsBetween } from '../analytics/buckets';
import { getCounters } from '../analytics/counter-store';
import { keys, type DomainItem } from '../data/db';
import { getItem, putItem, queryAll, queryPage, updateItem } from '../data/store';
import { listDomainItems, patchDomain } from '../domains/domain-store';
import { listSubaccounts } from '../accounts/subaccount-list';
import { BadRequest } from '../platform/errors';
import { objectId } from '../platform/ids';
import { logger } from '../platform/logger';
import { assignmentChanges } from './ip-pools';

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
export const BANDS = ['dynamic_good', 'dynamic_poor', 'dynamic_new'] as const;
export type Band = (typeof BANDS)[number];
/** The form fields of POST /v3/dynamic_pools/all, one per band. */
export const BAND_FIELDS: Readonly<Record<Band, string>> = { dynamic_good: 'good_reputation', dynamic_poor: 'poor_reputation', dynamic_new: 'new_senders' };

export const BAND_WINDOW_DAYS = 30;
export const NEW_SENDER_VOLUME = 1000;
export const POOR_BOUNCE_RATE = 0.05;
export const POOR_COMPLAINT_RATE = 0.001;
const REASSESS_EVERY_MS = 24 * 3600_000;

export interface DynamicPoolsItem {
  accountId: string;
  bands: Record<Band, { id: string; ips: string[] }>;
}

/** An enrolled domain's place in the pools (on its DomainItem). */
export interface DynamicEnrollment {
  /** The account whose pools it uses: its own, or its parent's (enrolled with include_subaccounts). */
  ownerId: string;
  band: Band;
  override?: Band;
  enrolledAt: string;
  assessedAt: string;
  metrics: Metrics;
}

// The domain item carries its enrollment; the type is this module's, added to the item here so that
// the data layer imports no area.
declare module '../data/db' {
  interface DomainItem {
    /** Enrolled in dynamic IP pools: its band's IPs send its mail (sending-route.ts). */
    dynamicPool?: DynamicEnrollment;
  }
}

export interface Metrics {
  bounce_rate: number;
  complaint_rate: number;
  processed_count: number;
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
export const getDynamicPools = (accountId: string) => getItem<DynamicPoolsItem>(keys.dynamicPools(accountId), { consistent: true });

/** The same, read eventually consistently: the send path's, on every message of an enrolled domain, as its DIPP is read. */
export const dynamicPoolsForSending = (accountId: string) => getItem<DynamicPoolsItem>(keys.dynamicPools(accountId));

export async function saveDynamicPools(accountId: string, ips: Record<Band, string[]>): Promise<DynamicPoolsItem> {
  const existing = await getDynamicPools(accountId);
  const bands = Object.fromEntries(BANDS.map((band) => [band, { id: existing?.bands[band].id ?? objectId(), ips: ips[band] }])) as DynamicPoolsItem['bands'];
  const item: DynamicPoolsItem = { accountId, bands };
  await putItem(keys.dynamicPools(accountId), item);
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
  await putItem(keys.dynamicPoolHistory(ownerId, `${at}#${domain.name}`), item);
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
    await updateItem(keys.domain(domain.accountId, domain.name), { dynamicPool: { ...enrollment, band, metrics, assessedAt: new Date(now).toISOString() } });
    if (band !== enrollment.band) {
      moved++;
      await recordMove(domain, ownerId, enrollment.band, band, reason, metrics, now);
    }
  }
  if (moved) logger.info('dynamic IP pools reassessed', { ownerId, moved });
  return moved;
}

/** Accounts that have dynamic pools set up (the sweep's list). */
export const accountsWithDynamicPools = async () => (await queryAll<{ accountId: string }>(keys.dynamicPoolOwners(), '')).map((item) => item.accountId);
export const markDynamicPoolOwner = (accountId: string) => putItem(keys.dynamicPoolOwners(accountId), { accountId });

export async function historyOf(ownerId: string, options: { limit: number; after?: string; before?: string }): Promise<HistoryItem[]> {
  return queryPage<HistoryItem>(keys.dynamicPoolHistory(ownerId).pk, { prefix: '', ascending: false, after: options.after, before: options.before, limit: options.limit });
}
