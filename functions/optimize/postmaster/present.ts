import type { DomainComplianceData, DomainComplianceStatus } from './google-types';
import type { ComplianceRecord, PostmasterDayItem } from './postmaster-store';

/**
 * The GPT wire shapes (optimize contract 1.8); nothing else writes this area's JSON. Fields
 * Postmaster Tools v2 no longer provides get the neutral values of contract 2.6: `reputation` 0
 * (unknown) and `ip_counts` []. A ratio Google gave no value for that day is null, never 0.
 */
export const UNKNOWN_REPUTATION = 0;

/** RFC 3339 at midnight UTC: the day a record is for. */
export const dayDate = (day: string) => `${day}T00:00:00Z`;

export function domainDayJson(item: PostmasterDayItem) {
  return {
    account_id: item.accountId,
    name: item.domain,
    user_reported_spam_ratio: item.spamRate ?? null,
    spf_success_ratio: item.spfRate ?? null,
    dkim_success_ratio: item.dkimRate ?? null,
    dmarc_success_ratio: item.dmarcRate ?? null,
    inbound_encryption_ratio: item.inboundTlsRate ?? null,
    delivery_error_ratio: item.deliveryErrorRate ?? null,
    delivery_errors: item.deliveryErrors.map((e) => ({ error_class: e.errorClass, error_type: e.errorType, error_ratio: e.ratio })),
    reputation: UNKNOWN_REPUTATION,
    date: dayDate(item.day),
    ip_counts: [] as Array<{ reputation: number; total: number }>,
    feedback_loops: item.feedbackLoops.map((f) => ({ id: f.id, spam_ratio: f.spamRatio })),
  };
}

/** The mean of the days that have the figure; null when none has it (nothing to average is not 0). */
export function meanOf(items: readonly PostmasterDayItem[], pick: (item: PostmasterDayItem) => number | undefined): number | null {
  const values = items.map(pick).filter((n): n is number => n !== undefined);
  return values.length ? values.reduce((sum, n) => sum + n, 0) / values.length : null;
}

export function ratiosSummary(items: readonly PostmasterDayItem[]) {
  return {
    user_reported_spam_ratio: meanOf(items, (i) => i.spamRate),
    spf_success_ratio: meanOf(items, (i) => i.spfRate),
    dkim_success_ratio: meanOf(items, (i) => i.dkimRate),
    dmarc_success_ratio: meanOf(items, (i) => i.dmarcRate),
    inbound_encryption_ratio: meanOf(items, (i) => i.inboundTlsRate),
  };
}

function complianceDataJson(data: DomainComplianceData | undefined) {
  if (!data) return undefined;
  const verdict = (v: { status?: { status?: string }; reason?: string } | undefined) => (v ? { status: v.status?.status ?? null, reason: v.reason ?? '' } : null);
  return {
    domain: data.domainId ?? null,
    requirements: (data.rowData ?? []).map((row) => ({ requirement: row.requirement ?? null, status: row.status?.status ?? null })),
    one_click_unsubscribe: verdict(data.oneClickUnsubscribeVerdict),
    honor_unsubscribe: verdict(data.honorUnsubscribeVerdict),
  };
}

/** Google's DomainComplianceStatus in this API's snake case; the subdomain's part only when Google gave one. */
export function complianceJson(record: ComplianceRecord) {
  const status = record.status as DomainComplianceStatus;
  const subdomain = complianceDataJson(status.subdomainComplianceData);
  return {
    compliance: { ...complianceDataJson(status.complianceData ?? {})!, ...(subdomain ? { subdomain } : {}) },
    fetched_at: new Date(record.fetchedAt * 1000).toISOString().replace('.000Z', 'Z'),
  };
}
