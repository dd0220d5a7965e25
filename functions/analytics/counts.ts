import { isPlatformMailEvent, type EventData } from '../events/event-store';

/**
 * The counts kept per counter item, named as Mailgun's metrics without `_count` (contract §7.2).
 * Only counts an event can add to are stored; sums (accepted, delivered, failed) are derived when
 * read, so each event adds to as few attributes as possible.
 */
export const STORED_COUNTS = [
  'accepted_outgoing',
  'processed',
  'delivered_smtp',
  'delivered_first_attempt',
  'delivered_subsequent',
  'sent',
  'opened',
  'unique_opened',
  'clicked',
  'unique_clicked',
  'unsubscribed',
  'complained',
  'stored',
  'temporary_failed',
  'temporary_failed_esp_block',
  'delayed_first_attempt',
  'permanent_failed',
  'permanent_failed_esp_block',
  'permanent_failed_old',
  'suppressed_bounces',
  'suppressed_unsubscribed',
  'suppressed_complaints',
  'hard_bounces',
  'soft_bounces',
  'delayed_bounce',
  // Failures by SES's bounce sub-type (the health score's mailbox-full and bad-failure impacts).
  'mailbox_full',
  'content_rejected',
  // Inspection tests run (functions/inspect/common/usage.ts), usage metrics only.
  'link_validation',
  'link_validation_failed',
  'image_validation',
  'image_validation_failed',
  'accessibility',
  'accessibility_failed',
  'email_preview',
  'email_preview_failed',
  // Blocklist checks run, one per monitored IP or domain per run (functions/optimize/blocklists).
  'ip_blocklist_monitoring',
  'domain_blocklist_monitoring',
  // Suspected spam-trap hits by kind, from declared sources only (functions/optimize/spamtraps).
  'trap_pristine',
  'trap_recycled',
  'trap_typo',
  'trap_harvested',
  // Inbox placement tests, one per result (functions/optimize/inbox/target-mail.ts).
  'seed_test',
] as const;
export type StoredCount = (typeof STORED_COUNTS)[number];

export type Counts = Partial<Record<StoredCount, number>>;

/** Whether this event is the first open or click of its message by its recipient (see unique-marks.ts). */
export interface Firsts {
  opened?: boolean;
  clicked?: boolean;
}

const SUPPRESSED: Record<string, StoredCount> = {
  'suppress-bounce': 'suppressed_bounces',
  'suppress-unsubscribe': 'suppressed_unsubscribed',
  'suppress-complaint': 'suppressed_complaints',
};

function attemptOf(data: EventData): number {
  const status = data['delivery-status'] as { 'attempt-no'?: unknown } | undefined;
  const n = Number(status?.['attempt-no']);
  return Number.isFinite(n) ? n : 0;
}

/** SES's bounce sub-type, which the notifications worker keeps as the delivery status's description. */
function bounceKind(data: EventData): StoredCount[] {
  const description = (data['delivery-status'] as { description?: unknown } | undefined)?.description;
  if (description === 'MailboxFull') return ['mailbox_full'];
  if (description === 'ContentRejected' || description === 'AttachmentRejected') return ['content_rejected'];
  return [];
}

function failureCounts(data: EventData): StoredCount[] {
  const reason = typeof data['reason'] === 'string' ? data['reason'] : '';
  const attempt = attemptOf(data);
  if (data['severity'] === 'temporary') {
    const out: StoredCount[] = ['temporary_failed', ...bounceKind(data)];
    if (reason === 'espblock') out.push('temporary_failed_esp_block');
    if (attempt === 1) out.push('delayed_first_attempt');
    return out;
  }
  const out: StoredCount[] = ['permanent_failed'];
  const suppressed = SUPPRESSED[reason];
  // A suppressed message was never handed to a mail server: not sent, not bounced.
  if (suppressed) return [...out, suppressed];
  out.push('sent');
  // Mailgun's hard bounce is the recipient server refusing the address; every other permanent
  // failure that was not a suppression is a soft one (bounced = hard + soft).
  out.push(reason === 'bounce' ? 'hard_bounces' : 'soft_bounces', ...bounceKind(data));
  if (reason === 'espblock') out.push('permanent_failed_esp_block');
  if (reason === 'old') out.push('permanent_failed_old');
  const flags = data['flags'] as { 'is-delayed-bounce'?: unknown } | undefined;
  if (flags?.['is-delayed-bounce'] === true) out.push('delayed_bounce');
  return out;
}

/** The counts one event adds to: none for the platform's own mail (is-system-test), which is not the account's usage. */
export function countsOfEvent(data: EventData, firsts: Firsts = {}): StoredCount[] {
  if (isPlatformMailEvent(data)) return [];
  switch (data.event) {
    case 'accepted':
      // Every accepted event of this platform is an outgoing message to one recipient (there are
      // no inbound routes or forwards yet), and each is processed: it goes on to the send queue.
      return ['accepted_outgoing', 'processed'];
    case 'delivered': {
      const attempt = attemptOf(data);
      return ['delivered_smtp', 'sent', attempt > 1 ? 'delivered_subsequent' : 'delivered_first_attempt'];
    }
    case 'failed':
      return failureCounts(data);
    case 'opened':
      return firsts.opened ? ['opened', 'unique_opened'] : ['opened'];
    case 'clicked':
      return firsts.clicked ? ['clicked', 'unique_clicked'] : ['clicked'];
    case 'unsubscribed':
      return ['unsubscribed'];
    case 'complained':
      return ['complained'];
    case 'stored':
      return ['stored'];
    default:
      // rejected: Mailgun's metrics have no count for it.
      return [];
  }
}

/** The value of every metric count (`<name>_count` without the suffix) from stored counts. */
export function derivedCounts(c: Counts): Record<string, number> {
  const n = (name: StoredCount) => c[name] ?? 0;
  const delivered = n('delivered_smtp');
  const accepted = n('accepted_outgoing');
  return {
    // Inbound routes, forwards, HTTP delivery, send-time optimisation, rate limiting and webhook
    // failure events do not exist on this platform: these counts are truly zero, not unknown.
    accepted_incoming: 0,
    accepted_outgoing: accepted,
    accepted,
    delivered_smtp: delivered,
    delivered_http: 0,
    delivered_optimized: 0,
    delivered,
    stored: n('stored'),
    processed: n('processed'),
    sent: n('sent'),
    opened: n('opened'),
    clicked: n('clicked'),
    unique_opened: n('unique_opened'),
    unique_clicked: n('unique_clicked'),
    unsubscribed: n('unsubscribed'),
    complained: n('complained'),
    failed: n('temporary_failed') + n('permanent_failed'),
    temporary_failed: n('temporary_failed'),
    permanent_failed: n('permanent_failed'),
    temporary_failed_esp_block: n('temporary_failed_esp_block'),
    permanent_failed_esp_block: n('permanent_failed_esp_block'),
    rate_limit: 0,
    webhook: 0,
    permanent_failed_optimized: 0,
    permanent_failed_old: n('permanent_failed_old'),
    bounced: n('hard_bounces') + n('soft_bounces'),
    hard_bounces: n('hard_bounces'),
    soft_bounces: n('soft_bounces'),
    delayed_bounce: n('delayed_bounce'),
    suppressed_bounces: n('suppressed_bounces'),
    suppressed_unsubscribed: n('suppressed_unsubscribed'),
    suppressed_complaints: n('suppressed_complaints'),
    delivered_first_attempt: n('delivered_first_attempt'),
    delayed_first_attempt: n('delayed_first_attempt'),
    delivered_subsequent: n('delivered_subsequent'),
    delivered_two_plus_attempts: n('delivered_subsequent'),
  };
}

export const COUNT_METRICS = Object.keys(derivedCounts({})).map((name) => `${name}_count`);

export function addCounts(into: Counts, from: Counts): Counts {
  for (const name of STORED_COUNTS) {
    const v = from[name];
    if (v) into[name] = (into[name] ?? 0) + v;
  }
  return into;
}
