import { createPrivateKey, createPublicKey } from 'node:crypto';
import { BadRequest, Conflict, NotFound } from '../platform/errors';
import { encryptSecret } from '../platform/secrets';
import { generateDkimKey, type DkimKeyPair } from '../domains/dkim';
import { checkRecord, dkimKeyRecord, type ExpectedRecord } from '../domains/dns-records';
import { dkimKeysOf, findDkimKey, removeDkimKey, saveDkimKey, type DkimKeyItem, type DnsCheck, type DomainItem } from '../domains/domain-store';

/** SES takes BYODKIM keys of 1024 to 2048 bits. */
const MIN_IMPORT_BITS = 1024;
const MAX_IMPORT_BITS = 2048;

/** An imported PEM (PKCS#1, or PKCS#8 holding RSA) as the pair SES and DNS need. */
function importDkimKey(pem: string): DkimKeyPair & { bits: number } {
  let key;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new BadRequest('pem must be an RSA private key in PEM form (PKCS #1)');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new BadRequest('pem must be an RSA private key in PEM form (PKCS #1)');
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_IMPORT_BITS || bits > MAX_IMPORT_BITS) throw new BadRequest(`pem must be an RSA key of ${MIN_IMPORT_BITS} to ${MAX_IMPORT_BITS} bits`);
  const publicKey = createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64');
  return { publicKey, privateKeyPem: key.export({ type: 'pkcs1', format: 'pem' }).toString(), bits };
}

/** A new key for a signing domain, inactive until its record verifies and it is activated. */
export async function addDkimKey(accountId: string, signingDomain: string, selector: string, source: { bits: number } | { pem: string }): Promise<DkimKeyItem> {
  if (await findDkimKey(accountId, signingDomain, selector)) throw new Conflict(`A domain key with selector ${selector} already exists for ${signingDomain}`);
  const pair = 'pem' in source ? importDkimKey(source.pem) : { ...(await generateDkimKey(source.bits)), bits: source.bits };
  const item: DkimKeyItem = {
    accountId,
    signingDomain,
    selector,
    bits: pair.bits,
    publicKey: pair.publicKey,
    privateKeySealed: await encryptSecret(pair.privateKeyPem),
    active: false,
    createdAt: new Date().toISOString(),
  };
  if (!(await saveDkimKey(item, { ifAbsent: true }))) throw new Conflict(`A domain key with selector ${selector} already exists for ${signingDomain}`);
  return item;
}

export async function requireDkimKey(accountId: string, signingDomain: string, selector: string): Promise<DkimKeyItem> {
  const key = await findDkimKey(accountId, signingDomain, selector);
  if (!key) throw new NotFound('domain key not found');
  return key;
}

/** The TXT record a key is published in. */
export function keyRecord(key: DkimKeyItem): ExpectedRecord {
  return dkimKeyRecord('dkim', key.signingDomain, key.selector, key.publicKey, true);
}

/** Looks the key's TXT record up: valid when it publishes this key's public half. */
export async function checkKeyRecord(key: DkimKeyItem): Promise<DnsCheck> {
  return checkRecord(keyRecord(key));
}

/** Every key of the account, optionally of one signing domain and selector, in key order. */
export async function accountKeys(accountId: string, filter: { signingDomain?: string; selector?: string }): Promise<DkimKeyItem[]> {
  const keys = await dkimKeysOf(accountId, filter.signingDomain);
  return filter.selector ? keys.filter((key) => key.selector === filter.selector) : keys;
}

/** The active keys of an authority, most recently activated first: the order signers are chosen in. */
export function activeKeysNewestFirst(keys: readonly DkimKeyItem[]): DkimKeyItem[] {
  return keys.filter((key) => key.active).sort((a, b) => (b.activatedAt ?? b.createdAt).localeCompare(a.activatedAt ?? a.createdAt));
}

export async function deleteKey(key: DkimKeyItem, authority: DomainItem | undefined): Promise<void> {
  if (authority && !authority.useAutomaticSenderSecurity) {
    const active = activeKeysNewestFirst(await dkimKeysOf(key.accountId, key.signingDomain));
    if (key.active && active.length === 1) throw new BadRequest('cannot delete domain key: must have at least one active domain key');
    if (authority.dkimSelector === key.selector) throw new BadRequest(`cannot delete domain key: it signs mail for ${authority.name}; activate another key first`);
  }
  await removeDkimKey(key);
}
