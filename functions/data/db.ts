import type { KeyKind, Role } from '../platform/access';
import type { IndexKey, Key } from './store';
import type { DynamicEnrollment } from '../sending-ips/dynamic-pools';

/**
 * The entities of the single table and their keys. Key builders live here, next to the access
 * patterns they serve (see table.ts); nothing else spells a key.
 */
export const keys = {
  /** Region-wide settings, such as which account is primary. */
  system: (name: string): Key => ({ pk: `SYSTEM#${name}`, sk: 'SYSTEM' }),
  /** Which account is the region's primary one (functions/accounts/bootstrap.ts). */
  primaryAccount: (): Key => ({ pk: 'SYSTEM#primary-account', sk: 'SYSTEM' }),
  /** The region's dedicated IPs as SES leases them, one item each in one partition (they are few). */
  dedicatedIp: (ip = ''): Key => ({ pk: 'SYSTEM#dedicated-ips', sk: ip }),
  /** A dedicated IP's warm-up plan (functions/sending-ips/warmup.ts), region-wide like the IPs. */
  ipWarmup: (ip = ''): Key => ({ pk: 'SYSTEM#ip-warmups', sk: ip }),
  /** How many recipients a warming IP was given in one hour (`2026-11-26T09:00:00.000Z`). */
  ipHourlySends: (ip: string, hour: string): Key => ({ pk: `SYSTEM#ip-sends#${ip}`, sk: hour }),
  /** An account's dynamic IP pools: the IPs of each reputation band, in one item. */
  dynamicPools: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'DYNAMICPOOLS' }),
  /** Which accounts have dynamic pools (few): the daily reassessment walks them. */
  dynamicPoolOwners: (accountId = ''): Key => ({ pk: 'SYSTEM#dynamic-pool-owners', sk: accountId }),
  /** Moves of domains between bands, per owning account, by `<ISO time>#<domain>`. */
  dynamicPoolHistory: (ownerId: string, sk = ''): Key => ({ pk: `ACCT#${ownerId}#DYNPOOLHISTORY`, sk }),
  /** A dedicated IP pool (DIPP) of an account; ids are objectIds, so the partition is in creation order. */
  ipPool: (accountId: string, poolId = ''): Key => ({ pk: `ACCT#${accountId}#IPPOOLS`, sk: poolId }),
  /** What a parent delegated to a subaccount: `POOL#<poolId>` (a DIPP it may link domains to) or `IP#<ip>`. */
  ipDelegation: (subaccountId: string, what = ''): Key => ({ pk: `ACCT#${subaccountId}#IPDELEGATIONS`, sk: what }),
  /** The sandbox domain's authorized recipients (`/v5/sandbox/auth_recipients`), at most five. */
  sandboxRecipient: (accountId: string, email = ''): Key => ({ pk: `ACCT#${accountId}#SANDBOXRCPT`, sk: email }),
  /** How many the account has, against the five allowed. */
  sandboxRecipientCount: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'SANDBOXRCPTCOUNT' }),
  /** A confirmation link's token, by its hash: all a recipient's click carries. */
  sandboxActivation: (tokenHash: string): Key => ({ pk: `SANDBOXACTIVATION#${tokenHash}`, sk: 'TOKEN' }),
  /** A DMARC report ingested, by `<org>#<report id>` (its duplicate guard). */
  dmarcReport: (accountId: string, reportKey = ''): Key => ({ pk: `ACCT#${accountId}#DMARCREPORTS`, sk: reportKey }),
  /** A DMARC report file refused (unreadable, not a report), kept with its reason. */
  dmarcFailure: (accountId: string, sk = ''): Key => ({ pk: `ACCT#${accountId}#DMARCFAILED`, sk }),
  /** A domain DMARC reports were received for: its policy and latest report. */
  dmarcDomain: (accountId: string, domain = ''): Key => ({ pk: `ACCT#${accountId}#DMARCDOMAINS`, sk: domain }),
  /** A domain's DMARC counts per `<UTC day>#<source IP>`. */
  dmarcRow: (accountId: string, domain: string, sk = ''): Key => ({ pk: `ACCT#${accountId}#DMARC#${domain}`, sk }),
  /** The account's DMARC setup: its report-routing token (the rua local part). */
  dmarcSetup: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'DMARCSETUP' }),
  /** Whose a report-routing token is, for reports mailed to the rua address. */
  dmarcInstance: (instanceId: string): Key => ({ pk: `DMARCINSTANCE#${instanceId}`, sk: 'OWNER' }),
  /** A managed domain's Google Postmaster figures for one UTC day (`2026-11-24`), as the daily fetch stored them. */
  postmasterDay: (accountId: string, domain: string, day = ''): Key => ({ pk: `ACCT#${accountId}#GPT#${domain}`, sk: day }),
  /** What Google answered for a managed domain at the last fetch (known, not found, denied) and its compliance status. */
  postmasterDomain: (accountId: string, domain = ''): Key => ({ pk: `ACCT#${accountId}#GPTDOMAINS`, sk: domain }),
  /** An alert setting (event type, channel) of the account (`/v1/alerts/settings/events`), by its UUID. */
  alertSetting: (accountId: string, id = ''): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: `SETTING#${id}` }),
  /** Which setting holds an (event type, channel) pair: the pair's uniqueness, claimed by conditional put. */
  alertPair: (accountId: string, eventType: string, channel: string): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: `PAIR#${eventType}#${channel}` }),
  /** The account's alerts webhook signing key, sealed (apart from the send webhooks' key). */
  alertSigningKey: (accountId: string): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: 'SIGNINGKEY' }),
  /** The account's Slack connection: team, scope and its bot token, sealed. */
  alertSlack: (accountId: string): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: 'SLACK' }),
  /** The last alert delivered for a subject on a list (by their hash): the dedupe window's claim. */
  alertWindow: (accountId: string, pairHash: string): Key => ({ pk: `ACCT#${accountId}#ALERTWINDOW`, sk: pairHash }),
  /** Test alert emails an account sent in one UTC hour (`2026-11-26T12`), against their hourly quota. */
  alertTestMails: (accountId: string, hour: string): Key => ({ pk: `ACCT#${accountId}#ALERTS`, sk: `TESTMAILS#${hour}` }),
  /** An alert raised, by the hash of its transition (the at-most-once guard), with what it said. */
  alertRaised: (accountId: string, transitionHash: string): Key => ({ pk: `ACCT#${accountId}#ALERTSRAISED`, sk: transitionHash }),
  /** The claim of one delivery attempt of an alert to one setting, by the queue message that holds it. */
  alertDelivery: (accountId: string, alertId: string, settingId: string, attempt: number): Key => ({ pk: `ACCT#${accountId}#ALERTDELIVERY#${alertId}`, sk: `${settingId}#${attempt}` }),
  /** A domain the optimization product manages (`/v1/inboxready/domains`), by name. */
  managedDomain: (accountId: string, name = ''): Key => ({ pk: `ACCT#${accountId}#MANAGEDDOMAINS`, sk: name }),
  /**
   * An IP or domain under blocklist monitoring, with its state per list: region-wide in one
   * partition, as the check sweep reads all of them, keyed so one account's are one prefix.
   */
  blocklistSubject: (accountId = '', kind = '', subject = ''): Key => ({ pk: 'SYSTEM#blocklist-subjects', sk: accountId ? `${accountId}#${kind}${kind ? '#' : ''}${subject}` : '' }),
  /**
   * A check task's word that it found these subjects of an account as they were, by
   * `<account>#<kind>#<time>#<id>` (functions/optimize/blocklists/confirmations.ts): region-wide in
   * one partition, as the sweep reads all of them.
   */
  blocklistConfirmation: (accountId = '', kind = '', suffix = ''): Key => ({ pk: 'SYSTEM#blocklist-confirmations', sk: accountId ? `${accountId}#${kind}#${suffix}` : '' }),
  /** A blocklist transition (listed, delisted) of one of the account's subjects, by `<time>#<kind>#<subject>#<list>`. */
  blocklistEvent: (accountId: string, sk = ''): Key => ({ pk: `ACCT#${accountId}#BLOCKLISTEVENTS`, sk }),
  /** An address a receiver said does not exist (a hard "user unknown" bounce): one that later accepts mail may be a recycled trap. */
  unknownUser: (accountId: string, address: string): Key => ({ pk: `ACCT#${accountId}#UNKNOWNUSERS`, sk: address }),
  account: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'ACCOUNT' }),
  /** A user of an account (`/v5/users`), in a partition per account. */
  user: (accountId: string, userId = ''): Key => ({ pk: `ACCT#${accountId}#USERS`, sk: userId }),
  /** The addresses and CIDRs an account's keys and SMTP logins may be used from (`/v2/ip_whitelist`). */
  ipAllowlist: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'IPALLOWLIST' }),
  /** An account's custom monthly message limit (`/v5/accounts/limit/custom/monthly`). */
  monthlyLimit: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'LIMIT#MONTHLY' }),
  /** Recipients accepted in one calendar month (UTC, `2026-11`) while a monthly limit is set: its shard 0. */
  monthlyCount: (accountId: string, month: string): Key => ({ pk: `ACCT#${accountId}`, sk: `LIMIT#MONTHLY#${month}` }),
  /**
   * The month's other shards (1 to MONTHLY_LIMIT_SHARDS - 1, functions/accounts/monthly-limit.ts),
   * each a partition of its own: one item takes about 1,000 writes a second.
   */
  monthlyCountShard: (accountId: string, month: string, shard: number): Key => ({ pk: `ACCT#${accountId}#MONTHLYCOUNT#${month}#${shard}`, sk: 'COUNT' }),
  /** What the reputation guard last found of an account (functions/reputation): its state, since when, and the figures. */
  reputationState: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'REPUTATION' }),
  /** A parent's subaccounts, one item each (its AccountItem stays the record of truth), in creation order. */
  subaccount: (parentId: string, subaccountId = ''): Key => ({ pk: `ACCT#${parentId}#SUBACCOUNTS`, sk: subaccountId }),
  /** Found by the hash of its secret (authentication); listed per account on gsi1. */
  apiKey: (secretHash: string): Key => ({ pk: `APIKEY#${secretHash}`, sk: 'APIKEY' }),
  apiKeyIndex: (accountId: string, keyId = ''): IndexKey => ({ gsi1pk: `ACCT#${accountId}#APIKEYS`, gsi1sk: keyId }),
  /**
   * Recent failed sign-ins of one subject (an SMTP login, an API key id, a source address: `scope`
   * says which), by the hash of its name: region-wide, as the caller is not known yet.
   */
  authFailures: (scope: string, subjectHash: string): Key => ({ pk: `AUTHFAIL#${scope}#${subjectHash}`, sk: 'FAILURES' }),
  domain: (accountId: string, name = ''): Key => ({ pk: `ACCT#${accountId}`, sk: `DOMAIN#${name}` }),
  /** Which account holds a domain name, region-wide. */
  domainClaim: (name: string): Key => ({ pk: `DOMAINNAME#${name}`, sk: 'CLAIM' }),
  dkimKey: (accountId: string, signingDomain: string, selector = ''): Key => ({
    pk: `ACCT#${accountId}`,
    sk: `DKIMKEY#${signingDomain}#${selector}`,
  }),
  /** Region-wide list of domains with rotation work ahead; few, so one partition the sweep reads whole. */
  dkimRotationDue: (accountId = '', domain = ''): Key => ({ pk: 'SYSTEM#dkim-rotation', sk: accountId ? `${accountId}#${domain}` : '' }),
  credential: (accountId: string, domain: string, login = ''): Key => ({ pk: `ACCT#${accountId}`, sk: `CREDENTIAL#${domain}#${login}` }),
  /** An event-stream consumer has finished a batch (functions/event-stream): read before, written after. */
  streamProgress: (consumer: string, batchId: string): Key => ({ pk: `SYSTEM#stream-progress#${consumer}`, sk: batchId }),
  /** An account's tags by name (lower case: tags are case-insensitive); their own partition, as they are many. */
  accountTag: (accountId: string, tagKey = ''): Key => ({ pk: `ACCT#${accountId}#TAG`, sk: tagKey }),
  /** The same tags by last sighting, for `sort: lastseen`; the item's index key moves as it is seen again. */
  accountTagSeen: (accountId: string, lastSeenMs: number, tagKey: string): IndexKey => ({
    gsi1pk: `ACCT#${accountId}#TAGSEEN`,
    gsi1sk: `${String(lastSeenMs).padStart(13, '0')}#${tagKey}`,
  }),
  /** A domain's tags by name (the legacy /v3/{domain}/tags). */
  domainTag: (accountId: string, domain: string, tagKey = ''): Key => ({ pk: `ACCT#${accountId}#DTAG#${domain}`, sk: tagKey }),
  /** How many distinct tags the account (no domain) or a domain holds, against its limit. */
  tagCount: (accountId: string, domain?: string): Key => ({ pk: `ACCT#${accountId}`, sk: domain === undefined ? 'TAGCOUNT' : `TAGCOUNT#${domain}` }),
  /** A domain's v3/v4 webhooks, every type in one item (functions/webhooks/webhook-store.ts). */
  domainWebhooks: (accountId: string, domain: string): Key => ({ pk: `ACCT#${accountId}`, sk: `WEBHOOKS#${domain}` }),
  /** An account's /v1/webhooks, all in one item: the 3-URLs-per-type limit is checked in one write. */
  accountWebhooks: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'ACCOUNTWEBHOOKS' }),
  /** The account's webhook signing key, sealed with the platform key. */
  httpSigningKey: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'HTTPSIGNINGKEY' }),
  /**
   * Which queue message owns each delivery (one per URL) of one attempt at an event's webhooks, one
   * attribute per delivery: a retried stream batch enqueues them twice.
   */
  webhookDeliveries: (accountId: string, eventId: string, attempt: number): Key => ({ pk: `ACCT#${accountId}#WHDELIVERY#${eventId}#${attempt}`, sk: 'CLAIMS' }),
  /**
   * An inspection test (links, images, accessibility, code analysis) of an account, in a partition
   * per kind; ids start with their creation second (objectId), so the partition is in creation order.
   */
  inspectTest: (accountId: string, kind: string, id = ''): Key => ({ pk: `ACCT#${accountId}#INSPECT#${kind}`, sk: id }),
  /** An email preview test of an account (ids are random, so the partition is listed and sorted by creation time). */
  previewTest: (accountId: string, id = ''): Key => ({ pk: `ACCT#${accountId}#PREVIEW`, sk: id }),
  /** One client of a preview test: its status, attempts and screenshots, updated on its own. */
  previewClient: (accountId: string, testId: string, clientId = ''): Key => ({ pk: `ACCT#${accountId}#PREVIEW#${testId}`, sk: clientId }),
  /** A preview test's export jobs; job ids start with their creation second, so the last is the latest. */
  previewExport: (accountId: string, testId: string, jobId = ''): Key => ({ pk: `ACCT#${accountId}#PREVIEWEXPORT#${testId}`, sk: jobId }),
  /** A preview test's share (one per test). */
  previewShare: (accountId: string, testId: string): Key => ({ pk: `ACCT#${accountId}#PREVIEWSHARE`, sk: testId }),
  /** The account's preview address (POST /v2/preview/address): mail to it becomes a preview test. */
  previewAddress: (accountId: string): Key => ({ pk: `ACCT#${accountId}`, sk: 'PREVIEWADDRESS' }),
  /** Whose a preview address is, by its local part, for the inbound path. */
  previewAddressOwner: (localPart: string): Key => ({ pk: `PREVIEWADDRESS#${localPart}`, sk: 'OWNER' }),
  /** A share by its public uuid, which is all a visitor of the share page has. */
  previewShareUuid: (uuid: string): Key => ({ pk: `PREVIEWSHARE#${uuid}`, sk: 'SHARE' }),
  /** Deliveries given up (retries exhausted, or 406), per account and UTC day, newest last. */
  webhookFailure: (accountId: string, day: string, sk = ''): Key => ({ pk: `ACCT#${accountId}#WHFAILED#${day}`, sk }),
  /** The operator's seed mailboxes for inbox placement (region-wide, few): one item each, by address. */
  seedMailbox: (email = ''): Key => ({ pk: 'SYSTEM#seed-mailboxes', sk: email }),
  /** An account's seed lists, by target address (`/v4/inbox/seedlists/{address}`). */
  seedList: (accountId: string, target = ''): Key => ({ pk: `ACCT#${accountId}#SEEDLISTS`, sk: target }),
  /** Which account a seed list's target address belongs to: what the inbound path looks up. */
  seedTarget: (target: string): Key => ({ pk: `SEEDTARGET#${target}`, sk: 'OWNER' }),
  /** An account's placement results, by id (objectIds: creation order). */
  placementResult: (accountId: string, id = ''): Key => ({ pk: `ACCT#${accountId}#PLACEMENT`, sk: id }),
  /** A placement test sent by POST /v4/inbox/tests, by its Message-ID, until its copy reaches the target. */
  placementSend: (messageId: string): Key => ({ pk: `PLACEMENTSEND#${messageId}`, sk: 'SEND' }),
  /** A shared result, by its share id (the unguessable part of the public link). */
  placementShare: (shareId: string): Key => ({ pk: `PLACEMENTSHARE#${shareId}`, sk: 'SHARE' }),
};

export interface AccountItem {
  accountId: string;
  name: string;
  parentId?: string;
  status: 'open' | 'disabled' | 'closed';
  createdAt: string;
  updatedAt?: string;
  /** Why a subaccount was disabled (POST …/disable `reason` and `note`). */
  disabledReason?: string;
  disabledNote?: string;
  /** A subaccount's features (PUT …/features): `{ sending: { enabled: true }, … }`. */
  features?: Record<string, { enabled: boolean }>;
  /** Why its sending is off, when the reputation guard turned it off (functions/accounts/sending.ts). */
  sendingPause?: { reason: string; by: 'reputation-guard'; at: string };
  /** When its sending was last turned back on: the reputation guard judges only what was sent after. */
  sendingResumedAt?: string;
  /** What its counters held in the hour it was turned back on, at that moment (functions/reputation/figures.ts). */
  sendingResumedBaseline?: { hour: number; counts: Record<string, number> };
  /** Dashboard session settings (PUT /v5/accounts): kept for a dashboard; this platform has no sessions of its own. */
  session?: { inactiveTimeout?: number; absoluteTimeout?: number; logoutRedirectUrl?: string };
}

export interface ApiKeyItem {
  secretHash: string;
  keyId: string;
  accountId: string;
  kind: KeyKind;
  role: Role;
  description: string;
  domainName?: string;
  userId?: string;
  userName?: string;
  requestor?: string;
  createdAt: string;
  updatedAt: string;
  expiresAt?: string;
  isDisabled: boolean;
  disabledReason?: string;
  /** Disabled because its subaccount was: enabling the subaccount enables it again (and no other). */
  disabledWithAccount?: boolean;
  /** Expired keys are refused at once; TTL only tidies them away later. */
  ttl?: number;
}

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

export interface CredentialItem {
  accountId: string;
  domain: string;
  login: string;
  mailbox: string;
  /** scrypt; the password itself is never stored. */
  passwordHash: string;
  system: boolean;
  createdAt: string;
  /** When the password last changed. */
  updatedAt?: string;
}

/** A subject's recent failed sign-ins (functions/platform/auth-throttle.ts). */
export interface AuthFailuresItem {
  /** One member per failure counted: an attempt's nonce, or a fingerprint of the secret tried. */
  failures?: Set<string>;
  /** Epoch seconds: the window of the latest failure ends here, and the count with it. */
  ttl: number;
}
