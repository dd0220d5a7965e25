import { pemBody } from '../domains/dkim';
import { listDomainItems, patchDomain, type DkimKeyItem, type DnsCheck, type DomainItem } from '../domains/domain-store';
import { setSigningKey } from '../domains/ses-identity';
import { decryptSecret } from '../platform/secrets';

/**
 * The domains an authority's signing key signs for: itself and every domain that delegated its
 * DKIM authority to it. Domains under automatic sender security are signed by SES's own keys.
 */
export async function signedBy(accountId: string, authority: string): Promise<DomainItem[]> {
  return (await listDomainItems(accountId)).filter((d) => d.type === 'custom' && d.dkimAuthority === authority && !d.useAutomaticSenderSecurity);
}

/**
 * Makes `key` the one SES signs these domains' mail with (or, with no key, stops SES signing for
 * them). The authority's DKIM observation moves with the key when it was just verified; a
 * delegated domain's CNAME names the new selector and is looked up again at its next verify.
 */
export async function switchSigner(domains: readonly DomainItem[], key: DkimKeyItem | undefined, keyCheck?: DnsCheck): Promise<void> {
  const signing = key ? { selector: key.selector, privateKeyBase64: pemBody(await decryptSecret(key.privateKeySealed)) } : undefined;
  for (const domain of domains) {
    await setSigningKey(domain.name, signing);
    if (!key) continue;
    const selfSigned = domain.dkimAuthority === domain.name;
    const dnsChecks = { ...domain.dnsChecks };
    if (selfSigned && keyCheck) dnsChecks['dkim'] = keyCheck;
    else if (domain.dkimSelector !== key.selector) delete dnsChecks['dkim'];
    await patchDomain(domain, { dkimSelector: key.selector, dkimPublicKey: key.publicKey, dnsChecks });
  }
}
