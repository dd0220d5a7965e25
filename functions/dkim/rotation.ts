import { dkimKeyRecord } from '../domains/dns-records';
import { dkimKeysOf, findDkimKey, findDomain, patchDomain, removeRotationDue, rotationsDue, saveRotationDue, type DkimRotation, type DkimRotationDueItem, type DomainItem } from '../domains/domain-store';
import { BadRequest } from '../platform/errors';
import { logger } from '../platform/logger';
import { activateKey, deactivateKey } from './key-states';
import { addDkimKey, checkKeyRecord } from './keys';

/** Spec limit: rotation at most every 5 days. */
export const MIN_ROTATION_SECONDS = 5 * 86_400;
const DEFAULT_ROTATION_SECONDS = 30 * 86_400;
const ROTATED_KEY_BITS = 2048;
const UNITS: Record<string, number> = { d: 86_400, h: 3600, m: 60, s: 1 };

/** `5d`, `120h`, `7d12h` or Go's `120h0m0s`: a whole number of seconds, or undefined if unreadable. */
export function parseInterval(text: string): number | undefined {
  const value = text.trim().toLowerCase();
  if (!/^(\d+[dhms])+$/.test(value)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)([dhms])/g)) seconds += Number(amount) * UNITS[unit!]!;
  return seconds;
}

/** As Mailgun prints it (`24h`): whole hours. */
function formatInterval(seconds: number): string {
  return `${Math.round(seconds / 3600)}h`;
}

/** Rotation makes platform keys, so it applies to a domain that signs with its own. */
function checkRotatable(domain: DomainItem): void {
  if (domain.type !== 'custom') throw new BadRequest('The sandbox domain is signed by the platform').as('Reason');
  if (domain.useAutomaticSenderSecurity) {
    throw new BadRequest('This domain is signed with Amazon SES managed keys (automatic sender security); SES holds and renews them').as('Reason');
  }
  if (domain.dkimAuthority !== domain.name) throw new BadRequest(`The keys of ${domain.name} are those of its DKIM authority ${domain.dkimAuthority}: rotate them there`).as('Reason');
}

async function scheduleNext(domain: DomainItem, rotation: DkimRotation): Promise<void> {
  if (!rotation.enabled && !rotation.pendingSelector) return removeRotationDue(domain.accountId, domain.name);
  const from = rotation.lastRotatedAt ? Date.parse(rotation.lastRotatedAt) : Date.now();
  const item: DkimRotationDueItem = {
    accountId: domain.accountId,
    domain: domain.name,
    pending: rotation.pendingSelector !== undefined,
    ...(rotation.enabled && !rotation.pendingSelector ? { dueAt: new Date(from + rotation.intervalSeconds * 1000).toISOString() } : {}),
  };
  await saveRotationDue(item);
}

export async function setRotation(domain: DomainItem, enabled: boolean, intervalSeconds: number | undefined): Promise<DomainItem> {
  checkRotatable(domain);
  const current = domain.dkimRotation;
  const rotation: DkimRotation = { ...current, enabled, intervalSeconds: intervalSeconds ?? current?.intervalSeconds ?? DEFAULT_ROTATION_SECONDS };
  const updated = await patchDomain(domain, { dkimRotation: rotation });
  await scheduleNext(updated, rotation);
  return updated;
}

/** The next unused `pdkN` selector of the domain. */
async function nextSelector(domain: DomainItem): Promise<string> {
  const taken = new Set((await dkimKeysOf(domain.accountId, domain.name)).map((k) => k.selector));
  let n = 1;
  while (taken.has(`pdk${n}`)) n += 1;
  return `pdk${n}`;
}

/**
 * Starts a rotation: a new key, published in the domain's records, that takes over signing once
 * its record verifies (now, if it already does). A rotation under way is left to finish.
 */
export async function rotateNow(domain: DomainItem): Promise<DomainItem> {
  checkRotatable(domain);
  if (domain.dkimRotation?.pendingSelector) return (await completeRotation(domain)) ?? domain;
  const key = await addDkimKey(domain.accountId, domain.name, await nextSelector(domain), { bits: ROTATED_KEY_BITS });
  const rotation: DkimRotation = { enabled: false, intervalSeconds: DEFAULT_ROTATION_SECONDS, ...domain.dkimRotation, pendingSelector: key.selector, pendingPublicKey: key.publicKey };
  const updated = await patchDomain(domain, { dkimRotation: rotation });
  await scheduleNext(updated, rotation);
  return (await completeRotation(updated)) ?? updated;
}

/**
 * Switches to the pending key if its record verifies: it becomes the signer and the key it
 * replaces is deactivated (kept, so mail in flight still verifies). Undefined while it waits.
 */
async function completeRotation(domain: DomainItem): Promise<DomainItem | undefined> {
  const rotation = domain.dkimRotation;
  if (!rotation?.pendingSelector) return undefined;
  const pending = await findDkimKey(domain.accountId, domain.name, rotation.pendingSelector);
  const previous = await findDkimKey(domain.accountId, domain.name, domain.dkimSelector);
  if (pending) {
    const check = await checkKeyRecord(pending);
    if (check.valid !== 'valid') return undefined;
    await activateKey(pending, check);
    if (previous && previous.selector !== pending.selector) await deactivateKey(previous);
  }
  const done: DkimRotation = { enabled: rotation.enabled, intervalSeconds: rotation.intervalSeconds, lastRotatedAt: new Date().toISOString() };
  const updated = await patchDomain(domain, { dkimRotation: done });
  await scheduleNext(updated, done);
  return updated;
}

/** The rotation reply of contract 3.4: the signing key's record, and the next one while pending. */
export function rotationJson(domain: DomainItem) {
  const rotation = domain.dkimRotation;
  const record = (selector: string, publicKey: string, comment: string) => {
    const { name, type, value } = dkimKeyRecord('dkim', domain.name, selector, publicKey, true);
    return { name, type, identifier: 'DKIM', value, comment };
  };
  const records = [record(domain.dkimSelector, domain.dkimPublicKey ?? '', 'The key that signs now')];
  if (rotation?.pendingSelector && rotation.pendingPublicKey) {
    records.push(record(rotation.pendingSelector, rotation.pendingPublicKey, 'The next key: publish it; it signs once this record verifies'));
  }
  return {
    domain: {
      id: domain.domainId,
      account_id: domain.accountId,
      sid: domain.domainId,
      name: domain.name,
      state: rotation?.enabled ? 'enabled' : 'disabled',
      active_selector: domain.dkimSelector,
      rotation_enabled: String(rotation?.enabled ?? false),
      rotation_interval: formatInterval(rotation?.intervalSeconds ?? DEFAULT_ROTATION_SECONDS),
      records,
    },
  };
}

/**
 * The periodic sweep (an EventBridge rule on AWS, a timer in local mode): starts rotations that
 * are due and completes those whose new record now verifies. One domain's failure is logged and
 * retried at the next sweep; it does not hold up the others.
 */
export async function sweepRotations(now = new Date()): Promise<{ started: number; completed: number; failed: number }> {
  const due = await rotationsDue();
  const counts = { started: 0, completed: 0, failed: 0 };
  for (const item of due) {
    try {
      const domain = await findDomain(item.accountId, item.domain);
      if (!domain) {
        await removeRotationDue(item.accountId, item.domain);
        continue;
      }
      if (domain.dkimRotation?.pendingSelector) {
        if (await completeRotation(domain)) counts.completed += 1;
      } else if (item.dueAt && Date.parse(item.dueAt) <= now.getTime() && domain.dkimRotation?.enabled) {
        await rotateNow(domain);
        counts.started += 1;
      }
    } catch (error) {
      counts.failed += 1;
      logger.error('dkim rotation failed', { domain: item.domain, error: error as Error });
    }
  }
  return counts;
}
