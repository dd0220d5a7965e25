import { keys, type DomainClaimItem } from '../../functions/data/db';
import { getItem } from '../../functions/data/store';
import { expectedRecords } from '../../functions/domains/dns-records';
import { findDkimKey, findDomain } from '../../functions/domains/domain-store';
import { dkimRecordValue } from '../../functions/domains/dkim';
import type { Zone, ZoneEntry } from './dns-server';

/**
 * Local mode's public DNS: every domain created in this region publishes exactly the records it
 * reports, so `PUT /v4/domains/{name}/verify` passes through the same lookups as on AWS and a new
 * user can send from their own domain at once.
 *
 * One record is held back: the tracking CNAME. Once it verifies, tracking links use the domain's
 * tracking host (`email.<domain>`), which no browser on this machine can resolve; without it they
 * use the API's own address, which works.
 */
export function domainZone(scope: <T>(fn: () => Promise<T>) => Promise<T>): Zone {
  return (name) => scope(() => entryFor(name));
}

/** The domain names a record name may belong to: itself and each parent with two labels or more. */
function owners(name: string): string[] {
  const labels = name.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

/**
 * Every DKIM key the domain holds is published too, as its owner would publish a key before
 * activating it (`POST /v1/dkim/keys`, then `.../activate`).
 */
async function keyRecord(accountId: string, owner: string, name: string): Promise<ZoneEntry | undefined> {
  const suffix = `._domainkey.${owner}`;
  if (!name.endsWith(suffix)) return undefined;
  const key = await findDkimKey(accountId, owner, name.slice(0, -suffix.length));
  return key ? { txt: [dkimRecordValue(key.publicKey)] } : undefined;
}

async function entryFor(name: string): Promise<ZoneEntry | undefined> {
  for (const owner of owners(name)) {
    const claim = await getItem<DomainClaimItem>(keys.domainClaim(owner));
    if (!claim) continue;
    const domain = await findDomain(claim.accountId, owner);
    if (!domain) continue;
    const records = expectedRecords(domain).filter((record) => record.name === name && record.id !== 'tracking');
    if (!records.length) return keyRecord(domain.accountId, owner, name);
    const entry: ZoneEntry = {};
    for (const record of records) {
      if (record.type === 'TXT') entry.txt = [...(entry.txt ?? []), record.value];
      if (record.type === 'MX') entry.mx = [...(entry.mx ?? []), { exchange: record.value, priority: Number(record.priority ?? 10) }];
      if (record.type === 'CNAME') entry.cname = record.value;
    }
    return entry;
  }
  return undefined;
}
