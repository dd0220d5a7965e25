import { randomUUID } from 'node:crypto';
import { deleteIfPresent, getItem, putItem, queryAll, updateItemIf, type Key } from '../../data/store';
import { env } from '../../platform/env';
import { BadRequest, NotFound } from '../../platform/errors';
import { seedMailboxes, type SeedMailboxItem } from './seed-mailboxes';
import { defineEntity } from '../../data/key-registry';

const seedListKeys = defineEntity(
  'seed lists',
  {
    seedList: { what: "an account's seed lists, by target address (`/v4/inbox/seedlists/{address}`)", pk: 'ACCT#<account>#SEEDLISTS', sk: '<target*>', key: (accountId: string, target = ''): Key => ({ pk: `ACCT#${accountId}#SEEDLISTS`, sk: target }) },
    seedTarget: { what: "which account a seed list's target address belongs to: what the inbound path looks up", pk: 'SEEDTARGET#<target*>', sk: 'OWNER', key: (target: string): Key => ({ pk: `SEEDTARGET#${target}`, sk: 'OWNER' }) },
  },
  [{ what: "an account's seed lists", pk: 'ACCT#<account>#SEEDLISTS' }],
);

/**
 * Seed lists (optimize contract 1.3, 2.3): a choice of the operator's seed mailboxes plus a target
 * address of the list's own on SEED_INBOX_DOMAIN. A message reaching the target starts a result;
 * the list's `mailing_list` is the target and the seeds, for users who send the test themselves.
 */
export interface SeedListItem {
  accountId: string;
  id: string;
  name: string;
  /** A regular expression the seeds' addresses must match; empty: all. */
  seedFilter: string;
  /** Provider domains to draw seeds from; empty: all. */
  providerFilter: string[];
  /** Seeds per provider at most; 0: no limit. */
  maxSeedsPerProvider: number;
  remoteId: string;
  /** The chosen seeds' addresses, in the order they were drawn. */
  seeds: string[];
  targetEmail: string;
  previousMailingList: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  lastResultAt?: string;
}

export interface SeedChoice {
  seedFilter: string;
  providerFilter: string[];
  maxSeedsPerProvider: number;
}

/** A seed filter as given: refused when it is not a regular expression JavaScript can compile. */
export function seedFilterRegex(filter: string): RegExp | undefined {
  if (!filter) return undefined;
  try {
    return new RegExp(filter, 'i');
  } catch (error) {
    throw new BadRequest(`seed_filter is not a valid regular expression: ${(error as Error).message}`);
  }
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Seeds per list at most: a result keeps every seed's outcome in one item (DynamoDB's 400 KB),
 * and a poll round signs in to each.
 */
const MAX_SEEDS_PER_LIST = 200;

/** The configured seeds a choice takes, at most `maxSeedsPerProvider` of each provider and MAX_SEEDS_PER_LIST in all. */
export function chooseSeeds(all: readonly SeedMailboxItem[], choice: SeedChoice, shuffle: boolean): SeedMailboxItem[] {
  const pattern = seedFilterRegex(choice.seedFilter);
  const providers = new Set(choice.providerFilter.map((p) => p.toLowerCase()));
  const eligible = all.filter((seed) => (!providers.size || providers.has(seed.provider)) && (!pattern || pattern.test(seed.email)));
  const perProvider = new Map<string, number>();
  return (shuffle ? shuffled(eligible) : eligible).filter((seed) => {
    const taken = perProvider.get(seed.provider) ?? 0;
    if (choice.maxSeedsPerProvider > 0 && taken >= choice.maxSeedsPerProvider) return false;
    perProvider.set(seed.provider, taken + 1);
    return true;
  }).slice(0, MAX_SEEDS_PER_LIST);
}

/** The seeds a test can use at all: refused, never faked, when the operator has configured none. */
export async function configuredSeeds(): Promise<SeedMailboxItem[]> {
  const seeds = await seedMailboxes();
  if (!seeds.length) throw new BadRequest('no seed mailboxes are configured');
  return seeds;
}

function newTarget(): string {
  const domain = env().SEED_INBOX_DOMAIN;
  if (!domain) throw new BadRequest('inbox placement is not configured on this platform (SEED_INBOX_DOMAIN)');
  return `ibp-${randomUUID()}@${domain}`;
}

export const mailingList = (list: Pick<SeedListItem, 'targetEmail' | 'seeds'>) => [list.targetEmail, ...list.seeds].join(',');

export async function seedLists(accountId: string): Promise<SeedListItem[]> {
  return queryAll<SeedListItem>(seedListKeys.seedList(accountId), '');
}

export async function findSeedList(accountId: string, target: string): Promise<SeedListItem | undefined> {
  return getItem<SeedListItem>(seedListKeys.seedList(accountId, target.toLowerCase()), { consistent: true });
}

export async function requireSeedList(accountId: string, target: string): Promise<SeedListItem> {
  const list = await findSeedList(accountId, target);
  if (!list) throw new NotFound('seed list not found');
  return list;
}

async function storeList(list: SeedListItem): Promise<void> {
  // The owner first: the inbound path must know whose a target is before a copy can reach it.
  await putItem(seedListKeys.seedTarget(list.targetEmail), { accountId: list.accountId });
  await putItem(seedListKeys.seedList(list.accountId, list.targetEmail), list);
}

export async function createSeedList(accountId: string, fields: { name: string; remoteId: string } & SeedChoice): Promise<SeedListItem> {
  const seeds = chooseSeeds(await configuredSeeds(), fields, false);
  if (!seeds.length) throw new BadRequest('no configured seed mailbox matches seed_filter and provider_filter');
  const now = new Date().toISOString();
  const list: SeedListItem = { accountId, id: randomUUID().replace(/-/g, ''), ...fields, seeds: seeds.map((s) => s.email), targetEmail: newTarget(), previousMailingList: '', version: 1, createdAt: now, updatedAt: now };
  await storeList(list);
  return list;
}

/**
 * Changes a list: its name, its provider filter (which draws its seeds again), `regen` (a new
 * target address, so mail to the old mailing list no longer counts) and `shuffle` (seeds drawn
 * in a new random order, which matters with a per-provider limit).
 */
export async function updateSeedList(list: SeedListItem, changes: { name?: string; providerFilter?: string[]; regen: boolean; shuffle: boolean }): Promise<SeedListItem> {
  const choice: SeedChoice = { seedFilter: list.seedFilter, providerFilter: changes.providerFilter ?? list.providerFilter, maxSeedsPerProvider: list.maxSeedsPerProvider };
  const redraw = changes.providerFilter !== undefined || changes.shuffle || changes.regen;
  const seeds = redraw ? chooseSeeds(await configuredSeeds(), choice, changes.shuffle).map((s) => s.email) : list.seeds;
  if (!seeds.length) throw new BadRequest('no configured seed mailbox matches seed_filter and provider_filter');
  const updated: SeedListItem = {
    ...list,
    name: changes.name ?? list.name,
    providerFilter: choice.providerFilter,
    seeds,
    targetEmail: changes.regen ? newTarget() : list.targetEmail,
    previousMailingList: changes.regen ? mailingList(list) : list.previousMailingList,
    version: list.version + 1,
    updatedAt: new Date().toISOString(),
  };
  await storeList(updated);
  if (changes.regen) {
    await deleteIfPresent(seedListKeys.seedList(list.accountId, list.targetEmail));
    await deleteIfPresent(seedListKeys.seedTarget(list.targetEmail));
  }
  return updated;
}

export async function deleteSeedList(list: SeedListItem): Promise<void> {
  await deleteIfPresent(seedListKeys.seedList(list.accountId, list.targetEmail));
  await deleteIfPresent(seedListKeys.seedTarget(list.targetEmail));
}

export async function seedListOwner(target: string): Promise<string | undefined> {
  return (await getItem<{ accountId: string }>(seedListKeys.seedTarget(target.toLowerCase())))?.accountId;
}

export async function markListResult(list: SeedListItem, at: string): Promise<void> {
  // Only this field, and only while the list is there: a rename or regen since is not undone.
  await updateItemIf(seedListKeys.seedList(list.accountId, list.targetEmail), { targetEmail: list.targetEmail }, { lastResultAt: at });
}
