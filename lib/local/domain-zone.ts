import { getItem } from '../../functions/data/store';
import { expectedRecords } from '../../functions/domains/dns-records';
import { findDkimKey, findDomain, domainKeys, type DomainClaimItem } from '../../functions/domains/domain-store';
import { dkimRecordValue } from '../../functions/domains/dkim';
import type { Zone, ZoneEntry } from './dns-server';
import type { PublishedRecords } from './published-records';

/**
 * Records a domain reports that the zone leaves to the user to publish (in `published`):
 * - the tracking CNAME: once it verifies, tracking links use the domain's tracking host
 *   (`email.<domain>`), which no browser on this machine resolves unless told to; without it they
 *   use the API's own address, which works;
 * - a tracking certificate's ACM validation CNAME: publishing it is the user's proof of control,
 *   the step the certificate waits for.
 */
const LEFT_TO_THE_USER = new Set(['tracking', 'x509-validation']);

/**
 * Local mode's public DNS: every domain created in this region publishes exactly the records it
 * reports (but those LEFT_TO_THE_USER), so `PUT /v4/domains/{name}/verify` passes through the
 * same lookups as on AWS and a new user can send from their own domain at once. Names in
 * `published` (the region's `dns-zone.txt`, or what a test adds) answer from there instead.
 */
export function domainZone(scope: <T>(fn: () => Promise<T>) => Promise<T>, published?: PublishedRecords): Zone {
  return (name) => published?.entry(name) ?? scope(() => entryFor(name));
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
    const claim = await getItem<DomainClaimItem>(domainKeys.domainClaim(owner));
    if (!claim) continue;
    const domain = await findDomain(claim.accountId, owner);
    if (!domain) continue;
    const records = expectedRecords(domain).filter((record) => record.name === name && !LEFT_TO_THE_USER.has(record.id));
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
