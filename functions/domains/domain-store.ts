import { byteLength, MAX_DOMAIN_NAME_BYTES } from '../data/key-limits';
import { defineEntity } from '../data/key-registry';
import { deleteItem, getItem, getItems, putItem, queryAll, updateItem, updateItemWhere, type Key } from '../data/store';
import { NotFound } from '../platform/errors';
import type { DynamicEnrollment } from '../sending-ips/enrollment';

/**
 * Domains, their region-wide name claims and their DKIM keys (a domain's signing keys, under its
 * signing domain), and the rotation sweep's list of domains with work ahead.
 */
export const domainKeys = defineEntity(
  'domains',
  {
    domain: { what: 'a domain of an account', pk: 'ACCT#<account>', sk: 'DOMAIN#<name>', key: (accountId: string, name = ''): Key => ({ pk: `ACCT#${accountId}`, sk: `DOMAIN#${name}` }) },
    domainClaim: { what: 'which account holds a domain name, region-wide', pk: 'DOMAINNAME#<name>', sk: 'CLAIM', key: (name: string): Key => ({ pk: `DOMAINNAME#${name}`, sk: 'CLAIM' }) },
    dkimKey: {
      what: 'a DKIM key of a signing domain',
      pk: 'ACCT#<account>',
      sk: 'DKIMKEY#<signing domain>#<selector>',
      key: (accountId: string, signingDomain: string, selector = ''): Key => ({
        pk: `ACCT#${accountId}`,
        sk: `DKIMKEY#${signingDomain}#${selector}`,
      }),
    },
    dkimRotationDue: {
      what: 'a domain with key rotation work ahead: region-wide and few, so one partition the sweep reads whole',
      pk: 'SYSTEM#dkim-rotation',
      sk: '<account>#<domain>',
      key: (accountId = '', domain = ''): Key => ({ pk: 'SYSTEM#dkim-rotation', sk: accountId ? `${accountId}#${domain}` : '' }),
    },
  },
  [
    { what: "an account's domains, in name order", pk: 'ACCT#<account>', skPrefix: 'DOMAIN#', reads: ['domain'] },
    { what: "DKIM keys of an account (or of one signing domain: DKIMKEY#<domain>#)", pk: 'ACCT#<account>', skPrefix: 'DKIMKEY#', reads: ['dkimKey'] },
    { what: 'domains with rotation work ahead (the sweep)', pk: 'SYSTEM#dkim-rotation' },
  ],
);

export type DomainState = 'active' | 'unverified' | 'disabled';

export interface DnsCheck {
  cached: string[];
  valid: 'valid' | 'invalid' | 'unknown';
}

export interface DomainItem {
  accountId: string;
  name: string;
  domainId: string;
  type: 'custom' | 'sandbox';
  state: DomainState;
  createdAt: string;
  isDisabled: boolean;
  disabled?: Record<string, unknown>;
  requireTls: boolean;
  skipVerification: boolean;
  wildcard: boolean;
  spamAction: 'disabled' | 'tag' | 'block';
  webPrefix: string;
  webScheme: 'http' | 'https';
  useAutomaticSenderSecurity: boolean;
  encryptIncomingMessage: boolean;
  messageTtl: number;
  archiveTo?: string;
  mailfromHost: string;
  /** The signing domain whose key signs this domain's mail (itself, or a parent). */
  dkimAuthority: string;
  dkimSelector: string;
  /** The signing key's public half, kept here so reading a domain and its records is one GetItem. */
  dkimPublicKey?: string;
  /** SES Easy DKIM tokens, when SES manages the keys (automatic sender security). */
  dkimTokens?: string[];
  /** Last DNS observation per record id. */
  dnsChecks: Record<string, DnsCheck>;
  /** Automatic key rotation (PUT /v1/dkim_management/domains/{name}/rotation). */
  dkimRotation?: DkimRotation;
  sesVerified?: boolean;
  verifiedAt?: string;
  /** Open, click and unsubscribe tracking, as set with /v3/domains/{name}/tracking/*. */
  tracking?: {
    open?: { active: boolean; placeAtTheTop: boolean };
    click?: { active: boolean | 'htmlonly' };
    unsubscribe?: { active: boolean; htmlFooter: string; textFooter: string };
  };
  /** DELETE /v3/{domain}/envelopes: mail accepted up to this instant and not yet sent is cancelled. */
  queueClearedAt?: string;
  /** The DIPP the domain sends from (POST /v3/domains/{name}/ips with pool_id); then `ips` is unused. */
  ipPoolId?: string;
  /** When it was linked to that pool (a DIPP's `metadata.assignments`). */
  ipPoolLinkedAt?: string;
  /** The pool's account when the pool is the parent's, delegated to this subaccount. */
  ipPoolOwnerId?: string;
  /** Dedicated IPs assigned to the domain itself; none and no pool: SES's shared addresses. */
  ips?: string[];
  /** Enrolled in dynamic IP pools (functions/sending-ips/dynamic-pools.ts): its band's IPs send its mail. */
  dynamicPool?: DynamicEnrollment;
  /**
   * The tracking host's TLS certificate (POST /v2/x509/{host}), kept on the domain so that its
   * records, its web_scheme rule and its tracking links read it with the domain in one GetItem.
   */
  trackingCertificate?: TrackingCertificate;
}

/** One certificate job and what it produced (functions/certificates). */
export interface TrackingCertificate {
  /** The tracking host it was requested for (web_prefix.domain at the time). */
  host: string;
  /** The workflow execution that owns it; its steps write only while this is still theirs. */
  jobId: string;
  /** `expired` is not stored: it follows from notAfter. */
  status: 'processing' | 'active' | 'error';
  error?: string;
  requestedAt: string;
  /** When the job stops waiting for ACM to issue. */
  deadline: string;
  certificateArn?: string;
  /** The CNAME ACM validates the host with; it must stay published for ACM to renew. */
  validation?: { name: string; value: string };
  certificatePem?: string;
  notAfter?: string;
  /** Where the tracking host must point to be served over HTTPS (the custom domain's regional name). */
  target?: string;
  /** The certificate a regeneration replaces, retired once the new one serves the host. */
  previousArn?: string;
  issuedAt?: string;
  /** ACM renewed the certificate in place (managed renewal) at this time. */
  renewedAt?: string;
}

export interface DkimRotation {
  enabled: boolean;
  intervalSeconds: number;
  /** The next key, published and waiting for its record to verify before it signs. */
  pendingSelector?: string;
  pendingPublicKey?: string;
  lastRotatedAt?: string;
}

/** A domain whose keys the rotation sweep looks at: due for a new key, or waiting on one. */
export interface DkimRotationDueItem {
  accountId: string;
  domain: string;
  /** When the next key is to be made (absent while one is pending). */
  dueAt?: string;
  pending: boolean;
}

export interface DomainClaimItem {
  name: string;
  accountId: string;
}

export interface DkimKeyItem {
  accountId: string;
  signingDomain: string;
  selector: string;
  bits: number;
  /** Base64 SubjectPublicKeyInfo DER: the `p=` of the DNS record. */
  publicKey: string;
  /** The private key, sealed with the platform encryption key; never returned. */
  privateKeySealed: string;
  active: boolean;
  /** When it last became active: the fallback signer is the most recently activated key. */
  activatedAt?: string;
  /** The last lookup of its TXT record. */
  dnsCheck?: DnsCheck;
  createdAt: string;
}


export async function findDomain(accountId: string, name: string): Promise<DomainItem | undefined> {
  // Longer than a domain name can be, so not one: and too long for a key DynamoDB would accept.
  if (byteLength(name) > MAX_DOMAIN_NAME_BYTES) return undefined;
  return getItem<DomainItem>(domainKeys.domain(accountId, name.toLowerCase()), { consistent: true });
}

/** The account's domain of that name, or a 404 as Mailgun answers for an unknown domain. */
export async function requireDomain(accountId: string, name: string): Promise<DomainItem> {
  const domain = await findDomain(accountId, name);
  if (!domain) throw new NotFound('Domain not found');
  return domain;
}

export async function listDomainItems(accountId: string): Promise<DomainItem[]> {
  return queryAll<DomainItem>(domainKeys.domain(accountId), domainKeys.domain(accountId).sk);
}

export async function saveNewDomain(domain: DomainItem): Promise<void> {
  if (!(await putItem(domainKeys.domain(domain.accountId, domain.name), domain, { ifAbsent: true }))) throw new Error(`domain ${domain.name} exists`);
}

export async function patchDomain(domain: Pick<DomainItem, 'accountId' | 'name'>, changes: Partial<DomainItem>): Promise<DomainItem> {
  return updateItem<DomainItem>(domainKeys.domain(domain.accountId, domain.name), changes);
}

/** Changes a domain only while the attribute at `path` is still `expected` (undefined: absent); false when it is not, or the domain is gone. */
export function patchDomainWhere(domain: Pick<DomainItem, 'accountId' | 'name'>, path: readonly string[], expected: string | undefined, changes: Partial<DomainItem>): Promise<boolean> {
  return updateItemWhere(domainKeys.domain(domain.accountId, domain.name), path, expected, changes);
}

export async function removeDomainItem(domain: Pick<DomainItem, 'accountId' | 'name'>): Promise<void> {
  await deleteItem(domainKeys.domain(domain.accountId, domain.name));
}

/** Reserves a name region-wide; false when another domain (in any account) holds it. */
export async function claimName(name: string, accountId: string): Promise<boolean> {
  const claim: DomainClaimItem = { name, accountId };
  return putItem(domainKeys.domainClaim(name), claim, { ifAbsent: true });
}

/** Which account holds each of these names region-wide, for those any account holds. */
export async function nameHolders(names: readonly string[]): Promise<Map<string, string>> {
  const usable = names.filter((name) => byteLength(name) <= MAX_DOMAIN_NAME_BYTES);
  if (!usable.length) return new Map();
  const claims = await getItems<DomainClaimItem>(usable.map((name) => domainKeys.domainClaim(name)), { consistent: true });
  return new Map(claims.map((claim) => [claim.name, claim.accountId]));
}

/** Which account holds a name region-wide (read eventually consistent), if any. */
export async function nameHolder(name: string): Promise<string | undefined> {
  return (await getItem<DomainClaimItem>(domainKeys.domainClaim(name)))?.accountId;
}

export async function releaseName(name: string): Promise<void> {
  await deleteItem(domainKeys.domainClaim(name));
}

/** Puts a domain on the rotation sweep's list (or updates its entry). */
export async function saveRotationDue(item: DkimRotationDueItem): Promise<void> {
  await putItem(domainKeys.dkimRotationDue(item.accountId, item.domain), item);
}

export async function removeRotationDue(accountId: string, domain: string): Promise<void> {
  await deleteItem(domainKeys.dkimRotationDue(accountId, domain));
}

/** The domains with rotation work ahead, region-wide (few: one partition). */
export function rotationsDue(): Promise<DkimRotationDueItem[]> {
  return queryAll<DkimRotationDueItem>(domainKeys.dkimRotationDue(), '');
}

/** Saves a key; with `ifAbsent`, only if no key has that selector yet (false when one has). */
export async function saveDkimKey(key: DkimKeyItem, options: { ifAbsent?: boolean } = {}): Promise<boolean> {
  return putItem(domainKeys.dkimKey(key.accountId, key.signingDomain, key.selector), key, options);
}

export async function findDkimKey(accountId: string, signingDomain: string, selector: string): Promise<DkimKeyItem | undefined> {
  return getItem<DkimKeyItem>(domainKeys.dkimKey(accountId, signingDomain, selector), { consistent: true });
}

export async function patchDkimKey(key: Pick<DkimKeyItem, 'accountId' | 'signingDomain' | 'selector'>, changes: Partial<DkimKeyItem>): Promise<DkimKeyItem> {
  return updateItem<DkimKeyItem>(domainKeys.dkimKey(key.accountId, key.signingDomain, key.selector), changes);
}

export async function removeDkimKey(key: Pick<DkimKeyItem, 'accountId' | 'signingDomain' | 'selector'>): Promise<void> {
  await deleteItem(domainKeys.dkimKey(key.accountId, key.signingDomain, key.selector));
}

export async function activeDkimKey(domain: DomainItem): Promise<DkimKeyItem | undefined> {
  return getItem<DkimKeyItem>(domainKeys.dkimKey(domain.accountId, domain.dkimAuthority, domain.dkimSelector));
}

/** The keys of one signing domain, or of the whole account without one, in (domain, selector) order. */
export async function dkimKeysOf(accountId: string, signingDomain?: string): Promise<DkimKeyItem[]> {
  const prefix = signingDomain === undefined ? domainKeys.dkimKey(accountId, '').sk.replace(/#$/, '') : domainKeys.dkimKey(accountId, signingDomain).sk;
  return queryAll<DkimKeyItem>(domainKeys.dkimKey(accountId, ''), prefix);
}
