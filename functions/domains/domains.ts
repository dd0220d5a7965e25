import { env } from '../platform/env';
import { BadRequest } from '../platform/errors';
import { lookup, sameHost } from '../platform/dns';
import { objectId } from '../platform/ids';
import { decryptSecret, encryptSecret } from '../platform/secrets';
import { generateDkimKey, pemBody } from './dkim';
import { checkRecords, expectedRecords } from './dns-records';
import {
  activeDkimKey,
  claimName,
  dkimKeysOf,
  listDomainItems,
  patchDomain,
  releaseName,
  removeDkimKey,
  removeDomainItem,
  removeRotationDue,
  saveDkimKey,
  saveNewDomain,
  type DkimKeyItem,
  type DomainItem,
  type TrackingCertificate,
} from './domain-store';
import { setPostmasterPassword } from '../credentials/credentials';
import { deleteIdentity, identityStatus, registerIdentity, setMailFrom, type DkimSigning } from './ses-identity';
import { servesHttps } from '../certificates/status';
import { logger } from '../platform/logger';
import { DEFAULT_DKIM_SELECTOR, DEFAULT_MAILFROM_PREFIX, DEFAULT_MESSAGE_TTL, DEFAULT_WEB_PREFIX } from './sandbox-domain';

export interface DomainSettings {
  spamAction?: 'disabled' | 'tag' | 'block';
  wildcard?: boolean;
  requireTls?: boolean;
  skipVerification?: boolean;
  useAutomaticSenderSecurity?: boolean;
  encryptIncomingMessage?: boolean;
  webPrefix?: string;
  webScheme?: 'http' | 'https';
  archiveTo?: string;
  messageTtl?: number;
  mailfromHost?: string;
  smtpPassword?: string;
}

export interface NewDomain extends DomainSettings {
  name: string;
  dkimKeySize?: number;
  dkimSelector?: string;
}

/** MAIL FROM may be given as a label (`bounce`) or a full host; SES needs a subdomain of the domain. */
function resolveMailfromHost(domain: string, value: string): string {
  const host = value.toLowerCase().replace(/\.$/, '');
  const full = host.endsWith(`.${domain}`) ? host : `${host}.${domain}`;
  if (full === domain || full.length > 253 || !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(full)) throw new BadRequest('mailfrom_host must be a subdomain of the domain');
  return full;
}

function checkMessageTtl(ttl: number | undefined): void {
  if (ttl === undefined) return;
  const max = env().MAX_MESSAGE_TTL;
  if (ttl < 1 || ttl > max) throw new BadRequest(`message_ttl must be between 1 and ${max} seconds`);
}

/**
 * Tracking over https needs an active certificate for the tracking host (POST /v2/x509/{host}):
 * a new domain has none yet, and a tracking host that moves leaves its certificate behind.
 */
function checkWebScheme(scheme: string | undefined, name: string, webPrefix: string, domain?: DomainItem): void {
  if (scheme !== 'https') return;
  if (domain && webPrefix === domain.webPrefix && servesHttps(domain)) return;
  throw new BadRequest(`web_scheme https needs an active tracking certificate for ${webPrefix}.${name}`);
}

function sesSigning(domainUsesSes: boolean, selector: string, privateKeyPem?: string): DkimSigning {
  return domainUsesSes || !privateKeyPem ? { kind: 'ses' } : { kind: 'byodkim', selector, privateKeyBase64: pemBody(privateKeyPem) };
}

async function createDkimKey(accountId: string, signingDomain: string, selector: string, bits: number): Promise<{ item: DkimKeyItem; pem: string }> {
  const pair = await generateDkimKey(bits);
  const item: DkimKeyItem = {
    accountId,
    signingDomain,
    selector,
    bits,
    publicKey: pair.publicKey,
    privateKeySealed: await encryptSecret(pair.privateKeyPem),
    active: true,
    activatedAt: new Date().toISOString(),
    createdAt: new Date().toISOString(),
  };
  await saveDkimKey(item);
  return { item, pem: pair.privateKeyPem };
}

/** Undo what a failed create did, newest first, without hiding the original failure. */
async function rollback(steps: Array<() => Promise<unknown>>): Promise<void> {
  for (const step of steps.reverse()) await step().catch(() => undefined);
}

function isPublicSuffix(name: string): boolean {
  // Loaded here, not with the module: only adding a domain needs the public suffix list (170 KB).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  const { getDomain } = require('tldts') as typeof import('tldts');
  return getDomain(name, { allowPrivateDomains: true }) === null;
}

export async function createDomain(accountId: string, spec: NewDomain): Promise<DomainItem> {
  const name = spec.name;
  const { SANDBOX_DOMAIN } = env();
  if (name === SANDBOX_DOMAIN || name.endsWith(`.${SANDBOX_DOMAIN}`)) throw new BadRequest(`Domains under ${SANDBOX_DOMAIN} are reserved for sandboxes`);
  // A public suffix (co.uk) is nobody's: holding it would bar every other account from sending
  // as any domain under it (functions/messages/sender-domains.ts).
  if (isPublicSuffix(name)) throw new BadRequest(`${name} is a public suffix, not a domain that can be registered`);
  checkMessageTtl(spec.messageTtl);
  const webPrefix = spec.webPrefix ?? DEFAULT_WEB_PREFIX;
  checkWebScheme(spec.webScheme, name, webPrefix);
  const mailfromHost = resolveMailfromHost(name, spec.mailfromHost ?? DEFAULT_MAILFROM_PREFIX);
  if (mailfromHost === `${webPrefix}.${name}`) throw new BadRequest('mailfrom_host and the tracking host (web_prefix) must differ');

  if (!(await claimName(name, accountId))) throw new BadRequest('This domain name is already taken');
  const undo: Array<() => Promise<unknown>> = [() => releaseName(name)];
  try {
    const automatic = spec.useAutomaticSenderSecurity ?? false;
    const selector = spec.dkimSelector ?? DEFAULT_DKIM_SELECTOR;
    let dkim: { item: DkimKeyItem; pem: string } | undefined;
    if (!automatic) {
      dkim = await createDkimKey(accountId, name, selector, spec.dkimKeySize ?? 2048);
      undo.push(() => removeDkimKey({ accountId, signingDomain: name, selector }));
    }
    const tokens = await registerIdentity(name, mailfromHost, sesSigning(automatic, selector, dkim?.pem));
    undo.push(() => deleteIdentity(name));
    if (spec.smtpPassword) await setPostmasterPassword(accountId, name, spec.smtpPassword);
    const domain: DomainItem = {
      accountId,
      name,
      domainId: objectId(),
      type: 'custom',
      state: 'unverified',
      createdAt: new Date().toISOString(),
      isDisabled: false,
      requireTls: spec.requireTls ?? false,
      skipVerification: spec.skipVerification ?? false,
      wildcard: spec.wildcard ?? false,
      spamAction: spec.spamAction ?? 'disabled',
      webPrefix,
      webScheme: spec.webScheme ?? 'http',
      useAutomaticSenderSecurity: automatic,
      encryptIncomingMessage: spec.encryptIncomingMessage ?? false,
      messageTtl: spec.messageTtl ?? DEFAULT_MESSAGE_TTL,
      archiveTo: spec.archiveTo,
      mailfromHost,
      dkimAuthority: name,
      dkimSelector: selector,
      dkimTokens: tokens,
      dkimPublicKey: dkim?.item.publicKey,
      dnsChecks: {},
    };
    await saveNewDomain(domain);
    return domain;
  } catch (error) {
    await rollback(undo);
    throw error;
  }
}

/**
 * Required on first use, not with the module: only deleting a domain that has a tracking
 * certificate, or moving its tracking host, starts the certificate workflow (certificate-release.ts).
 */
function releaseCertificate(cert: TrackingCertificate): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  return (require('./certificate-release') as typeof import('./certificate-release')).releaseCertificate(cert);
}

export async function updateDomain(domain: DomainItem, changes: DomainSettings): Promise<DomainItem> {
  const { name, accountId } = domain;
  checkMessageTtl(changes.messageTtl);
  const webPrefix = changes.webPrefix ?? domain.webPrefix;
  // A scheme that stays https must hold for a tracking host that moves, too.
  const scheme = changes.webScheme ?? (webPrefix !== domain.webPrefix ? domain.webScheme : undefined);
  checkWebScheme(scheme, name, webPrefix, domain);
  const set: Partial<DomainItem> = {};
  let dnsChanged = false;

  if (changes.webPrefix !== undefined && changes.webPrefix !== domain.webPrefix) {
    const host = `${changes.webPrefix}.${name}`;
    const target = env().TRACKING_CNAME_TARGET;
    const observed = await lookup('CNAME', host);
    if (!observed?.some((value) => sameHost(value, target))) throw new BadRequest(`The CNAME record ${host} must point to ${target} before web_prefix can change`);
    set.webPrefix = changes.webPrefix;
    dnsChanged = true;
    // The former tracking host's certificate is of no more use (released below, once all checks passed).
    if (domain.trackingCertificate) set.trackingCertificate = undefined;
  }
  if (changes.mailfromHost !== undefined) {
    const host = resolveMailfromHost(name, changes.mailfromHost);
    if (host === `${webPrefix}.${name}`) throw new BadRequest('mailfrom_host and the tracking host (web_prefix) must differ');
    if (host !== domain.mailfromHost && domain.type === 'custom') {
      await setMailFrom(name, host);
      set.mailfromHost = host;
      dnsChanged = true;
    }
  }
  if (changes.useAutomaticSenderSecurity !== undefined && changes.useAutomaticSenderSecurity !== domain.useAutomaticSenderSecurity) {
    if (domain.type === 'sandbox') throw new BadRequest('The sandbox domain is signed by the platform');
    const automatic = changes.useAutomaticSenderSecurity;
    let pem: string | undefined;
    if (!automatic) {
      const existing = await activeDkimKey(domain);
      const key = existing ? { item: existing, pem: await decryptSecret(existing.privateKeySealed) } : await createDkimKey(accountId, name, domain.dkimSelector, 2048);
      pem = key.pem;
      set.dkimPublicKey = key.item.publicKey;
    }
    const tokens = await registerIdentity(name, set.mailfromHost ?? domain.mailfromHost, sesSigning(automatic, domain.dkimSelector, pem));
    set.useAutomaticSenderSecurity = automatic;
    set.dkimTokens = tokens ?? [];
    dnsChanged = true;
  }
  if (changes.smtpPassword !== undefined) await setPostmasterPassword(accountId, name, changes.smtpPassword);
  if (changes.spamAction !== undefined) set.spamAction = changes.spamAction;
  if (changes.wildcard !== undefined) set.wildcard = changes.wildcard;
  if (changes.requireTls !== undefined) set.requireTls = changes.requireTls;
  if (changes.skipVerification !== undefined) set.skipVerification = changes.skipVerification;
  if (changes.encryptIncomingMessage !== undefined) set.encryptIncomingMessage = changes.encryptIncomingMessage;
  if (changes.webScheme !== undefined) set.webScheme = changes.webScheme;
  if (changes.archiveTo !== undefined) set.archiveTo = changes.archiveTo;
  if (changes.messageTtl !== undefined) set.messageTtl = changes.messageTtl;
  // Records that moved must be verified again before the domain counts as verified.
  if (dnsChanged && domain.type === 'custom') {
    set.state = 'unverified';
    set.dnsChecks = {};
  }
  if (Object.keys(set).length === 0) return domain;
  if ('trackingCertificate' in set && domain.trackingCertificate) await releaseCertificate(domain.trackingCertificate);
  return patchDomain(domain, set);
}

/** How SES should sign a domain's mail, from what the domain has stored. */
async function signingOf(domain: DomainItem): Promise<DkimSigning> {
  if (domain.useAutomaticSenderSecurity) return { kind: 'ses' };
  const key = await activeDkimKey(domain);
  if (!key) throw new Error(`DKIM key ${domain.dkimSelector} of ${domain.name} is missing`);
  return sesSigning(false, key.selector, await decryptSecret(key.privateKeySealed));
}

/**
 * Looks every record up, asks SES for its view (registering the identity again if SES lost it),
 * and stores both; the domain is active when every required record is valid and SES agrees.
 */
export async function verifyDomain(domain: DomainItem): Promise<DomainItem> {
  if (domain.type === 'sandbox') return domain;
  let current = domain;
  // DNS and SES are asked at once; the records are looked up again only if registering the
  // identity anew changed them (new SES-managed DKIM tokens).
  let records = expectedRecords(domain);
  let [ses, checks] = await Promise.all([identityStatus(domain.name), checkRecords(records)]);
  if (!ses) {
    const tokens = await registerIdentity(domain.name, domain.mailfromHost, await signingOf(domain));
    if (domain.useAutomaticSenderSecurity) current = { ...domain, dkimTokens: tokens ?? [] };
    ses = await identityStatus(domain.name);
    if (current !== domain) {
      records = expectedRecords(current);
      checks = await checkRecords(records);
    }
  }
  const dnsOk = records.filter((r) => r.required).every((r) => checks[r.id]?.valid === 'valid');
  const sesVerified = ses?.verifiedForSending ?? false;
  return patchDomain(domain, {
    dnsChecks: checks,
    sesVerified,
    state: dnsOk && sesVerified ? 'active' : 'unverified',
    verifiedAt: new Date().toISOString(),
    ...(current.dkimTokens !== domain.dkimTokens ? { dkimTokens: current.dkimTokens } : {}),
  });
}

/** What an area keeps of a domain, removed when the domain is deleted. */
export interface DomainCleanup {
  /** The area whose items these are. */
  name: string;
  clean(accountId: string, domain: string): Promise<unknown>;
}

/** Deletes a domain with what it owns: `cleanups` remove what other areas keep of it (DOMAIN_CLEANUPS, cleanups.ts). */
export async function deleteDomain(domain: DomainItem, cleanups: readonly DomainCleanup[]): Promise<void> {
  if (domain.type === 'sandbox') throw new BadRequest('The sandbox domain cannot be deleted');
  if (domain.isDisabled) throw new BadRequest('A disabled domain cannot be deleted');
  const dependants = (await listDomainItems(domain.accountId)).filter((d) => d.name !== domain.name && d.dkimAuthority === domain.name);
  if (dependants.length) throw new BadRequest(`Domain is the DKIM authority of ${dependants.map((d) => d.name).join(', ')}`);
  const { accountId, name } = domain;
  await deleteIdentity(name);
  // What the domain owns goes with it; its events expire on their own.
  for (const cleanup of cleanups) await cleanup.clean(accountId, name);
  for (const key of await dkimKeysOf(accountId, name)) await removeDkimKey(key);
  await removeRotationDue(accountId, name);
  await removeDomainItem(domain);
  await releaseName(name);
  // Its tracking certificate's custom domain name counts against a regional quota: take it down.
  if (domain.trackingCertificate) {
    await releaseCertificate(domain.trackingCertificate).catch((error: Error) => logger.error('could not release the tracking certificate of a deleted domain', { domain: name, host: domain.trackingCertificate!.host, error }));
  }
}

export interface DomainQuery {
  state?: 'active' | 'unverified' | 'disabled';
  authority?: string;
  search?: string;
  sort?: 'asc' | 'desc';
  skip: number;
  limit: number;
}

/** The domains of one account, or of several (a parent and its subaccounts, `include_subaccounts`), by name. */
export async function listDomains(accountIds: string | readonly string[], query: DomainQuery): Promise<{ total: number; items: DomainItem[] }> {
  const owners = typeof accountIds === 'string' ? [accountIds] : accountIds;
  const items = (await Promise.all(owners.map((id) => listDomainItems(id)))).flat();
  if (owners.length > 1) items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const all = items.filter(
    (d) =>
      (!query.state || (d.isDisabled ? 'disabled' : d.state) === query.state) &&
      (!query.authority || d.dkimAuthority === query.authority) &&
      (!query.search || d.name.includes(query.search)),
  );
  // The table returns names in ascending order already.
  if (query.sort === 'desc') all.reverse();
  return { total: all.length, items: all.slice(query.skip, query.skip + query.limit) };
}
