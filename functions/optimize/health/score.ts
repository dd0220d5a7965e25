import type { Counts } from '../../analytics/counts';
import { TRAP_TYPES, trapCount } from '../spamtraps/trap-types';

/**
 * The email health score (optimize contract 2.5), a transparent formula over the platform's own
 * counters: five impacts, each capped, subtracted from 100. docs/optimization.md writes it out so anyone can
 * recompute a score from the counts it shows.
 */
export const SCORE_WINDOW_DAYS = 30;

export interface ScoreInputs {
  /** Messages that reached a delivery attempt (processed). */
  base: number;
  delivered: number;
  hardBounces: number;
  complaints: number;
  /** Suspected spam-trap hits from the declared sources (functions/optimize/spamtraps): the operator's list and the typo and recycled heuristics. */
  trapHits: number;
  mailboxFull: number;
  /** Refusals for content or reputation (SES ContentRejected / AttachmentRejected, ESP blocks). */
  badFailures: number;
}

export function inputsOf(counts: Counts): ScoreInputs {
  const n = (name: keyof Counts) => counts[name] ?? 0;
  return {
    base: n('processed'),
    delivered: n('delivered_smtp'),
    hardBounces: n('hard_bounces'),
    complaints: n('complained'),
    trapHits: TRAP_TYPES.reduce((sum, type) => sum + n(trapCount(type)), 0),
    mailboxFull: n('mailbox_full'),
    badFailures: n('content_rejected') + n('permanent_failed_esp_block') + n('temporary_failed_esp_block'),
  };
}

const impact = (cap: number, part: number, whole: number, full: number) => (whole > 0 ? Math.round(Math.min(cap, (cap * (part / whole)) / full)) : 0);

export function scoreOf(inputs: ScoreInputs) {
  const rates = {
    bounce_rate: impact(30, inputs.hardBounces, inputs.base, 0.05),
    complaint_rate: impact(35, inputs.complaints, inputs.delivered, 0.003),
    trap_rate: impact(15, inputs.trapHits, inputs.base, 0.001),
    full_mailbox_rate: impact(5, inputs.mailboxFull, inputs.base, 0.02),
    bad_failure_rate: impact(25, inputs.badFailures, inputs.base, 0.02),
  };
  const score = Math.max(0, 100 - Object.values(rates).reduce((sum, n) => sum + n, 0));
  return { score, rates, counters: { delivered: inputs.delivered } };
}

/** Where each input came from, returned beside the score so it can be checked. */
export const SOURCES = {
  base: 'processed messages (analytics counters)',
  hard_bounces: 'hard bounces (SES Permanent bounces)',
  complaints: 'complaints (SES complaint notifications)',
  trap_hits: 'suspected spam-trap hits from declared sources only: the operator trap list (SPAM_TRAP_LIST) when configured, typo domains without MX, recycled addresses (GET /v2/spamtraps names them)',
  mailbox_full: 'SES Transient/MailboxFull bounces',
  bad_failures: 'SES ContentRejected and AttachmentRejected bounces, and ESP blocks',
} as const;
