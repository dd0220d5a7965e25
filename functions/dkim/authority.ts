import { dkimKeysOf, findDomain, patchDkimKey, patchDomain, removeDkimKey, saveDkimKey, type DkimKeyItem, type DomainItem } from '../domains/domain-store';
import { BadRequest } from '../platform/errors';
import { activeKeysNewestFirst, addDkimKey } from './keys';
import { signedBy, switchSigner } from './signing';

const DEFAULT_KEY_BITS = 2048;

function checkOwnKeys(domain: DomainItem): void {
  if (domain.type !== 'custom') throw new BadRequest('The sandbox domain is signed by the platform');
  if (domain.useAutomaticSenderSecurity) throw new BadRequest('This domain is signed with Amazon SES managed keys (automatic sender security)');
}

/** The key an authority signs with now: its current selector's if active, else its newest active one. */
async function signingKeyOf(authority: DomainItem): Promise<DkimKeyItem | undefined> {
  const active = activeKeysNewestFirst(await dkimKeysOf(authority.accountId, authority.name));
  return active.find((k) => k.selector === authority.dkimSelector) ?? active[0];
}

/** The records moved: the domain verifies again before it counts as verified. */
async function markMoved(domain: DomainItem, changes: Partial<DomainItem>): Promise<DomainItem> {
  const dnsChecks = { ...domain.dnsChecks };
  delete dnsChecks['dkim'];
  return patchDomain(domain, { ...changes, dnsChecks, state: 'unverified' });
}

/**
 * `self=true`: the domain signs with its own key (made now if it has no active one); `self=false`:
 * with its parent's, which must be a domain of the account signing with its own keys.
 */
export async function setDkimAuthority(domain: DomainItem, self: boolean): Promise<{ domain: DomainItem; changed: boolean }> {
  checkOwnKeys(domain);
  const target = self ? domain.name : domain.name.slice(domain.name.indexOf('.') + 1);
  if (target === domain.dkimAuthority) return { domain, changed: false };
  let key: DkimKeyItem | undefined;
  if (self) {
    const own = await dkimKeysOf(domain.accountId, domain.name);
    key = activeKeysNewestFirst(own)[0];
    if (!key) {
      const selector = own.some((k) => k.selector === domain.dkimSelector) ? `s${Date.now().toString(36)}` : domain.dkimSelector;
      const made = await addDkimKey(domain.accountId, domain.name, selector, { bits: DEFAULT_KEY_BITS });
      key = await patchDkimKey(made, { active: true, activatedAt: new Date().toISOString() });
    }
  } else {
    if (!target.includes('.')) throw new BadRequest(`${domain.name} has no parent domain to delegate to`);
    const parent = await findDomain(domain.accountId, target);
    if (!parent || parent.type !== 'custom') throw new BadRequest(`The DKIM authority ${target} must be a domain of this account`);
    if (parent.useAutomaticSenderSecurity || parent.dkimAuthority !== parent.name) throw new BadRequest(`The DKIM authority ${target} must sign with its own keys`);
    if ((await signedBy(domain.accountId, domain.name)).some((d) => d.name !== domain.name)) {
      throw new BadRequest(`${domain.name} is the DKIM authority of other domains and cannot delegate its own`);
    }
    key = await signingKeyOf(parent);
    if (!key) throw new BadRequest(`The DKIM authority ${target} has no active domain key`);
  }
  const moved = await markMoved(domain, { dkimAuthority: target });
  await switchSigner([moved], key);
  return { domain: (await findDomain(domain.accountId, domain.name)) ?? moved, changed: true };
}

/**
 * Renames the domain's signing key to a new selector (the same key pair, published under the new
 * name), and signs with it there. A delegated domain's selector is its authority's.
 */
export async function setDkimSelector(domain: DomainItem, selector: string): Promise<void> {
  checkOwnKeys(domain);
  if (domain.dkimAuthority !== domain.name) throw new BadRequest(`The DKIM selector of ${domain.name} is its authority's (${domain.dkimAuthority}): change it there`);
  if (selector === domain.dkimSelector) return;
  const keys = await dkimKeysOf(domain.accountId, domain.name);
  if (keys.some((k) => k.selector === selector)) throw new BadRequest("dkim_selector must differ from other keys' selectors");
  const current = keys.find((k) => k.selector === domain.dkimSelector);
  if (!current) throw new BadRequest(`${domain.name} has no key with selector ${domain.dkimSelector} to rename`);
  const renamed: DkimKeyItem = { ...current, selector, dnsCheck: undefined };
  if (!(await saveDkimKey(renamed, { ifAbsent: true }))) throw new BadRequest("dkim_selector must differ from other keys' selectors");
  const moved: DomainItem[] = [];
  for (const d of await signedBy(domain.accountId, domain.name)) moved.push(await markMoved(d, {}));
  // An inactive key signs nothing: the domains just name it, ready for its activation.
  if (renamed.active) await switchSigner(moved, renamed);
  else for (const d of moved) await patchDomain(d, { dkimSelector: selector });
  await removeDkimKey(current);
}
