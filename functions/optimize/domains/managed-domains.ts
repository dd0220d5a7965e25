import { deleteIfPresent, getItem, putItem, queryAll, updateItem, type Key } from '../../data/store';
import { findDomain } from '../../domains/domain-store';
import { lookup } from '../../platform/dns';
import { randomHex } from '../../platform/ids';
import { defineEntity } from '../../data/key-registry';

const managedDomainKeys = defineEntity('managed domains', {
  managedDomain: { what: 'a domain the optimization product manages (`/v1/inboxready/domains`), by name', pk: 'ACCT#<account>#MANAGEDDOMAINS', sk: '<name>', key: (accountId: string, name = ''): Key => ({ pk: `ACCT#${accountId}#MANAGEDDOMAINS`, sk: name }) },
});

/**
 * Managed domains (`/v1/inboxready/domains`): the domains the optimization product watches (DMARC
 * reports, domain blocklist monitoring, spam-trap attribution). A domain is the account's once it
 * is verified: at once when it is one of the account's active sending domains (`sending`), else
 * when its apex publishes the TXT record named in `txt_record` (`inbox_ready`).
 */
export type VerificationStatus = 'pending' | 'inbox_ready' | 'sending';

export interface ManagedDomainItem {
  accountId: string;
  name: string;
  /** Epoch seconds, as Mailgun's Go client reads them. */
  createdAt: number;
  txtRecord: string;
  status: VerificationStatus;
  verifiedAt: number;
}

/**
 * The services a managed domain has once it is verified: blocklist monitoring
 * (functions/optimize/blocklists/domain-monitoring.ts) and spam-trap counts of its sends
 * (functions/optimize/spamtraps/, whose typo and recycled heuristics need no configuration).
 */
const servicesOf = (domain: ManagedDomainItem) => ({ domain_blocklist_monitoring: domain.status !== 'pending', spam_trap_monitoring: domain.status !== 'pending' });

export function managedDomainJson(domain: ManagedDomainItem) {
  return {
    name: domain.name,
    acid: domain.accountId,
    created_at: domain.createdAt,
    services: servicesOf(domain),
    txt_record: domain.txtRecord,
    verified: { status: domain.status, verified_at: domain.verifiedAt },
  };
}

export const listManagedDomains = (accountId: string) => queryAll<ManagedDomainItem>(managedDomainKeys.managedDomain(accountId), '');
export const findManagedDomain = (accountId: string, name: string) => getItem<ManagedDomainItem>(managedDomainKeys.managedDomain(accountId, name), { consistent: true });

/** A sending domain of the account that is active proves the name is the account's. */
async function isActiveSendingDomain(accountId: string, name: string): Promise<boolean> {
  return (await findDomain(accountId, name))?.state === 'active';
}

/** Adds a domain (undefined when the account has it already), verified at once if it is an active sending domain. */
export async function addManagedDomain(accountId: string, name: string, now = Date.now()): Promise<ManagedDomainItem | undefined> {
  const sending = await isActiveSendingDomain(accountId, name);
  const at = Math.floor(now / 1000);
  const domain: ManagedDomainItem = { accountId, name, createdAt: at, txtRecord: `mailplane-verification=${randomHex(16)}`, status: sending ? 'sending' : 'pending', verifiedAt: sending ? at : 0 };
  return (await putItem(managedDomainKeys.managedDomain(accountId, name), domain, { ifAbsent: true })) ? domain : undefined;
}

/**
 * Checks ownership again: an active sending domain, or the TXT record at the apex. A domain that
 * was verified stays verified; DNS that does not answer changes nothing.
 */
export async function verifyManagedDomain(domain: ManagedDomainItem, now = Date.now()): Promise<ManagedDomainItem> {
  if (domain.status !== 'pending') return domain;
  let status: VerificationStatus = 'pending';
  if (await isActiveSendingDomain(domain.accountId, domain.name)) status = 'sending';
  else if ((await lookup('TXT', domain.name))?.includes(domain.txtRecord)) status = 'inbox_ready';
  if (status === 'pending') return domain;
  return updateItem<ManagedDomainItem>(managedDomainKeys.managedDomain(domain.accountId, domain.name), { status, verifiedAt: Math.floor(now / 1000) });
}

export const removeManagedDomain = (accountId: string, name: string) => deleteIfPresent(managedDomainKeys.managedDomain(accountId, name));
