import { deleteIfPresent, getItem, putItem, queryAll, type Key } from '../../data/store';
import { BadRequest } from '../../platform/errors';
import { decryptSecret, encryptSecret } from '../../platform/secrets';
import { hostRefusal, webhookAddressPolicy } from '../../webhooks/url-policy';
import { defineEntity } from '../../data/key-registry';

const seedMailboxKeys = defineEntity(
  'seed mailboxes',
  {
    seedMailbox: { what: "the operator's seed mailboxes for inbox placement (region-wide, few): one item each, by address", pk: 'SYSTEM#seed-mailboxes', sk: '<email*>', key: (email = ''): Key => ({ pk: 'SYSTEM#seed-mailboxes', sk: email }) },
  },
  [{ what: "the operator's seed mailboxes", pk: 'SYSTEM#seed-mailboxes' }],
);

/**
 * The operator's seed mailboxes: real mailboxes at mailbox providers that placement tests send
 * to and then read over IMAP. They are region-wide (every account's seed lists draw on them) and
 * their secret (a password, an app password or an OAuth2 access token) is sealed with the
 * platform key before it is stored: no route returns it and nothing logs it.
 */
export type SeedAuth = 'password' | 'oauth2';

export interface SeedMailboxItem {
  email: string;
  /** The mailbox provider's domain (gmail.com, outlook.com, ...): the key of `delivery_stats`. */
  provider: string;
  imapHost: string;
  imapPort: number;
  /** Implicit TLS (993); false is plain IMAP, for a local test server. */
  imapTls: boolean;
  imapUser: string;
  auth: SeedAuth;
  secretSealed: string;
  firstName: string;
  lastName: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * A seed mailbox as given: its secret in the clear, sealed before it is stored. Without one (an
 * edit of a mailbox the operator saved before) the stored secret and its kind stay.
 */
export type SeedMailboxInput = Omit<SeedMailboxItem, 'secretSealed' | 'createdAt' | 'updatedAt' | 'auth'> & { credential?: { auth: SeedAuth; secret: string } };

/** How a poll signs in to a seed: its IMAP settings with the secret unsealed, held only in memory. */
export interface SeedLogin {
  email: string;
  provider: string;
  host: string;
  port: number;
  secure: boolean;
  user: string;
  auth: SeedAuth;
  secret: string;
}

export async function seedMailboxes(): Promise<SeedMailboxItem[]> {
  return queryAll<SeedMailboxItem>(seedMailboxKeys.seedMailbox(), '');
}

export async function findSeedMailbox(email: string): Promise<SeedMailboxItem | undefined> {
  return getItem<SeedMailboxItem>(seedMailboxKeys.seedMailbox(email.toLowerCase()), { consistent: true });
}

/** Seed mailboxes are reached over IMAP under the policy every user-given address follows. */
export const SEED_REACH = 'seed mailboxes';

/**
 * Refuses an IMAP host the platform may not reach (its own network, the cloud's metadata service;
 * loopback unless the operator allows it), as a webhook URL is refused: a seed must not make the
 * poll a probe into the platform's network. Connecting checks again (imap-search.ts).
 */
export async function checkImapHost(host: string): Promise<void> {
  const refusal = await hostRefusal(host, webhookAddressPolicy());
  if (refusal === 'host not found') throw new BadRequest(`Invalid parameter 'imap_host': ${host}: host not found`);
  if (refusal) throw new BadRequest(`Invalid parameter 'imap_host': ${host} resolves to a ${refusal} address, which ${SEED_REACH} may not reach`);
}

/** Adds or replaces a seed mailbox (its address is its identity). */
export async function putSeedMailbox(input: SeedMailboxInput): Promise<SeedMailboxItem> {
  const email = input.email.toLowerCase();
  const existing = await findSeedMailbox(email);
  const now = new Date().toISOString();
  const { credential, ...fields } = input;
  const secret = credential ? { auth: credential.auth, secretSealed: await encryptSecret(credential.secret) } : existing && { auth: existing.auth, secretSealed: existing.secretSealed };
  if (!secret) throw new BadRequest("Missing parameter 'password': a new seed mailbox needs password (or an app password) or oauth2_token");
  const item: SeedMailboxItem = { ...fields, ...secret, email, provider: input.provider.toLowerCase(), createdAt: existing?.createdAt ?? now, updatedAt: now };
  await putItem(seedMailboxKeys.seedMailbox(email), item);
  return item;
}

export async function removeSeedMailbox(email: string): Promise<boolean> {
  return deleteIfPresent(seedMailboxKeys.seedMailbox(email.toLowerCase()));
}

export async function seedLogin(seed: SeedMailboxItem): Promise<SeedLogin> {
  return { email: seed.email, provider: seed.provider, host: seed.imapHost, port: seed.imapPort, secure: seed.imapTls, user: seed.imapUser, auth: seed.auth, secret: await decryptSecret(seed.secretSealed) };
}
