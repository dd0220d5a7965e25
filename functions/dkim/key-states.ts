import { dkimKeysOf, patchDkimKey, type DkimKeyItem, type DnsCheck } from '../domains/domain-store';
import { BadRequest } from '../platform/errors';
import { activeKeysNewestFirst, checkKeyRecord, keyRecord } from './keys';
import { signedBy, switchSigner } from './signing';

/**
 * inactive -> active, only once DNS publishes the key (spec: States and transitions). The newly
 * active key is the one SES signs with from then on, for its domain and the domains delegating to it.
 */
export async function activateKey(key: DkimKeyItem, check?: DnsCheck): Promise<DkimKeyItem> {
  const observed = check ?? (await checkKeyRecord(key));
  if (observed.valid !== 'valid') {
    const record = keyRecord(key);
    const why = observed.valid === 'unknown' ? 'could not be looked up' : 'does not publish this key';
    throw new BadRequest(`domain key DNS record is not valid: ${record.name} ${why}; publish TXT "${record.value}" there first`);
  }
  const active = await patchDkimKey(key, { active: true, activatedAt: new Date().toISOString(), dnsCheck: observed });
  await switchSigner(await signedBy(key.accountId, key.signingDomain), active, observed);
  return active;
}

/**
 * active -> inactive: the key no longer signs. Domains it signed for move to the authority's most
 * recently activated other key; with none left, SES stops signing their mail rather than use it.
 */
export async function deactivateKey(key: DkimKeyItem): Promise<DkimKeyItem> {
  if (!key.active) return key;
  const inactive = await patchDkimKey(key, { active: false });
  const domains = (await signedBy(key.accountId, key.signingDomain)).filter((d) => d.dkimSelector === key.selector);
  if (domains.length) {
    const next = activeKeysNewestFirst((await dkimKeysOf(key.accountId, key.signingDomain)).filter((k) => k.selector !== key.selector))[0];
    await switchSigner(domains, next, next?.dnsCheck);
  }
  return inactive;
}
