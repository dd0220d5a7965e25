import type { ManagedDomainItem } from '../domains/managed-domains';
import { checkSoon } from './start-checks';
import { findSubject, removeSubject, addSubject } from './subjects';

/**
 * Domain blocklist monitoring follows the managed domains (optimize contract 1.7): a domain is
 * monitored from the moment it is verified, checked at once, and no longer once it is removed.
 */
export async function monitorManagedDomain(domain: ManagedDomainItem, now = Date.now()): Promise<void> {
  if (domain.status === 'pending') return;
  const added = await addSubject({ accountId: domain.accountId, kind: 'domain', subject: domain.name, source: 'managed-domain', addedAt: new Date(now).toISOString() });
  if (added) await checkSoon({ accountId: domain.accountId, kind: 'domain', subject: domain.name });
}

export async function stopMonitoringDomain(accountId: string, name: string): Promise<void> {
  const subject = await findSubject(accountId, 'domain', name);
  if (subject) await removeSubject(subject);
}
