import { createHash } from 'node:crypto';
import { absoluteUrl } from '../../platform/http/paging';
import { deliveryStats, type ResultItem, type SeedOutcome } from './results';
import { mailingList, type SeedListItem } from './seed-lists';
import type { SeedMailboxItem } from './seed-mailboxes';

/**
 * The wire shapes of inbox placement (mailgun-contract 14, optimize contract 1.3); nothing else
 * writes them. Times are RFC 3339; an unset time is the zero time Go's strict types parse. Seed
 * secrets never appear: `password` and `totp` are always empty. Counters Mailgun keeps for its
 * managed seed pool (message counts, account quality) are left out rather than shown as zero.
 */
const ZERO_TIME = '0001-01-01T00:00:00Z';

const seedId = (email: string) => createHash('sha256').update(email).digest('hex').slice(0, 24);

function seedJson(email: string, seed: SeedMailboxItem | undefined) {
  return {
    AccountID: '',
    id: seedId(email),
    token: '',
    email,
    provider: seed?.provider ?? '',
    created_at: seed?.createdAt ?? ZERO_TIME,
    updated_at: seed?.updatedAt ?? ZERO_TIME,
    max_email_count_hit_at: ZERO_TIME,
    last_sent_to_at: ZERO_TIME,
    last_delivered_at: ZERO_TIME,
    password: '',
    phone_number: '',
    attributes: null,
    totp: { secret: '' },
  };
}

export function seedListJson(list: SeedListItem, configured: ReadonlyMap<string, SeedMailboxItem>) {
  return {
    kid: list.id,
    Id: list.id,
    AccountID: list.accountId,
    created_at: list.createdAt,
    updated_at: list.updatedAt,
    last_result_at: list.lastResultAt ?? ZERO_TIME,
    Seeds: list.seeds.map((email) => seedJson(email, configured.get(email))),
    target_email: list.targetEmail,
    sending_domains: [],
    has_results: Boolean(list.lastResultAt),
    name: list.name,
    seed_filter: list.seedFilter,
    provider_filter: list.providerFilter,
    max_seeds_per_provider: list.maxSeedsPerProvider,
    remote_id: list.remoteId,
    mailing_list: mailingList(list),
    previous_mailing_list: list.previousMailingList,
    CreatedTS: Date.parse(list.createdAt),
    tags: {},
    is_auto_generated: list.name.startsWith('Placement test '),
    regen_needed: false,
    regen_at: ZERO_TIME,
    version: list.version,
  };
}

function seedResultJson(seed: SeedOutcome, originatingIp: string) {
  return {
    email: seed.email,
    provider: seed.provider,
    destination: seed.destination,
    state: seed.state,
    originating_ip: seed.state === 'delivered' ? originatingIp : '',
    tags: seed.folder ? [seed.folder.toLowerCase()] : [],
    spf: seed.spf,
    dkim: seed.dkim,
    dmarc: seed.dmarc,
    headers: seed.headers,
    extensions: {
      category: seed.category ?? '',
      ...(seed.msSpam ? { ms_spam: { bcl: seed.msSpam.bcl ?? null, scl: seed.msSpam.scl ?? null, forefront_report: { category: seed.msSpam.category ?? '' } } } : {}),
    },
    received_at: seed.receivedAt ?? null,
    delivered_at: seed.receivedAt ?? null,
    ...(seed.lastError ? { last_error: seed.lastError } : {}),
  };
}

const range = (values: number[]) => (values.length ? { min: Math.min(...values), max: Math.max(...values), mean: values.reduce((a, b) => a + b, 0) / values.length } : null);

/** Microsoft's verdicts over the seeds that carry them; null when none does. */
function msSpamSummary(seeds: readonly SeedOutcome[]) {
  const withVerdicts = seeds.filter((s) => s.msSpam);
  if (!withVerdicts.length) return null;
  const categories: Record<string, number> = {};
  for (const s of withVerdicts) if (s.msSpam?.category) categories[s.msSpam.category] = (categories[s.msSpam.category] ?? 0) + 1;
  const numbers = (pick: (s: SeedOutcome) => number | undefined) => withVerdicts.map(pick).filter((n): n is number => n !== undefined);
  return { bcl: range(numbers((s) => s.msSpam?.bcl)), scl: range(numbers((s) => s.msSpam?.scl)), forefront: { category_counts: categories }, count: withVerdicts.length };
}

export function sharingJson(baseUrl: string, result: ResultItem) {
  const sharing = result.sharing;
  const id = sharing?.enabled ? sharing.id : '';
  return {
    result_id: result.id,
    expires_at: sharing?.expiresAt ?? ZERO_TIME,
    enabled: Boolean(sharing?.enabled),
    url_id: id,
    url: id ? absoluteUrl(baseUrl, `/inbox/share/${id}`) : '',
    api_url: id ? absoluteUrl(baseUrl, `/v4/inbox/sharing/public/${id}`) : '',
  };
}

/**
 * A result. `body` only when asked (GET of one result); `shared` strips what a public link must
 * not show: the body and the sharing settings.
 */
export function resultJson(result: ResultItem, options: { body?: boolean; provider?: string; shared?: boolean } = {}) {
  const seeds = options.provider ? result.seeds.filter((s) => s.provider === options.provider) : result.seeds;
  const sharing = result.sharing;
  return {
    Id: result.id,
    rid: result.id,
    result_id: result.id,
    AccountID: options.shared ? '' : result.accountId,
    KeyBoxID: result.seedlistId,
    keybox_email: result.targetEmail,
    subject: result.subject,
    sender: result.sender,
    seedlist_name: result.seedlistName,
    message_id: result.messageId,
    created_at: result.createdAt,
    updated_at: result.updatedAt,
    status: result.status,
    CreatedTS: Date.parse(result.createdAt),
    attributes: {},
    campaign_id: '',
    sharing_enabled: options.shared ? true : Boolean(sharing?.enabled),
    sharing_id: options.shared ? '' : sharing?.enabled ? sharing.id : '',
    sharing_expires_at: sharing?.expiresAt ?? ZERO_TIME,
    Box: { target_email: result.targetEmail, name: result.seedlistName, kid: result.seedlistId, created_at: result.createdAt, updated_at: result.updatedAt, last_result_at: result.createdAt },
    seed_results: seeds.map((s) => seedResultJson(s, result.originatingIp)),
    spamassassin: result.spamassassin,
    delivery_stats: deliveryStats(seeds),
    ms_spam: msSpamSummary(seeds),
    is_spoofing: null,
    deadline: result.deadline,
    ...(options.body && !options.shared ? { body: result.body } : {}),
  };
}

export function providersJson(seeds: readonly SeedMailboxItem[]) {
  const byDomain = new Map<string, SeedMailboxItem[]>();
  for (const seed of seeds) byDomain.set(seed.provider, [...(byDomain.get(seed.provider) ?? []), seed]);
  return {
    items: [...byDomain].sort(([a], [b]) => a.localeCompare(b)).map(([domain, of]) => ({
      domain,
      display_name: domain,
      region: '',
      created_at: of.map((s) => s.createdAt).sort()[0]!,
      updated_at: of.map((s) => s.updatedAt).sort().at(-1)!,
    })),
  };
}

/** An operator's seed mailbox as the admin routes show it: everything but the secret. */
export function seedMailboxJson(seed: SeedMailboxItem) {
  return {
    email: seed.email,
    provider: seed.provider,
    imap_host: seed.imapHost,
    imap_port: seed.imapPort,
    imap_tls: seed.imapTls,
    imap_user: seed.imapUser,
    auth: seed.auth,
    password: '',
    first_name: seed.firstName,
    last_name: seed.lastName,
    created_at: seed.createdAt,
    updated_at: seed.updatedAt,
  };
}
