import { getItem, putItem, putItems, queryPage, type Key } from '../../data/store';
import type { PostmasterDay } from './metrics';
import { defineEntity } from '../../data/key-registry';

const postmasterKeys = defineEntity(
  'postmaster',
  {
  postmasterDay: { what: "a managed domain's Google Postmaster figures for one UTC day (`2026-11-24`), as the daily fetch stored them", pk: 'ACCT#<account>#GPT#<domain>', sk: '<day>', key: (accountId: string, domain: string, day = ''): Key => ({ pk: `ACCT#${accountId}#GPT#${domain}`, sk: day }) },
  postmasterDomain: { what: 'what Google answered for a managed domain at the last fetch (known, not found, denied) and its compliance status', pk: 'ACCT#<account>#GPTDOMAINS', sk: '<domain>', key: (accountId: string, domain = ''): Key => ({ pk: `ACCT#${accountId}#GPTDOMAINS`, sk: domain }) },
  },
  [{ what: "a domain's days (a time range)", pk: 'ACCT#<account>#GPT#<domain>' }],
);

/**
 * Google Postmaster figures in the single table.
 *
 * One item per (account, domain, day), overwritten by each fetch that sees the day again (Google
 * revises recent days), so a fetch run twice stores the same thing once.
 */
export interface PostmasterDayItem extends PostmasterDay {
  accountId: string;
  domain: string;
  /** Epoch seconds of the fetch that wrote it. */
  fetchedAt: number;
}

/**
 * What the last fetch learnt about a domain: `ok` (Google answered), `not_found` (Google does not
 * know it: HTTP 404), `denied` (the service account has no access: 403), `failed` (no usable answer).
 */
export type GoogleDomainState = 'ok' | 'not_found' | 'denied' | 'failed';

export interface ComplianceRecord {
  status: unknown;
  fetchedAt: number;
}

export interface PostmasterDomainItem {
  accountId: string;
  domain: string;
  state: GoogleDomainState;
  /** Google's message when the state is not `ok`. */
  detail?: string;
  checkedAt: number;
  /** Google's DomainComplianceStatus as last fetched (kept when a later fetch fails). */
  compliance?: ComplianceRecord;
}

export async function putDays(items: readonly PostmasterDayItem[]): Promise<void> {
  await putItems(items.map((item) => ({ key: postmasterKeys.postmasterDay(item.accountId, item.domain, item.day), item })));
}

/** A domain's days from `fromDay` to `toDay` (inclusive, `yyyy-mm-dd`), oldest first. */
export async function daysOf(accountId: string, domain: string, fromDay: string, toDay: string): Promise<PostmasterDayItem[]> {
  // The days are the sort keys: the range is read, not the domain's whole history. queryPage's
  // bounds are exclusive, so they are the day before and the day after.
  const shift = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  return queryPage<PostmasterDayItem>(postmasterKeys.postmasterDay(accountId, domain).pk, { prefix: '', ascending: true, after: shift(fromDay, -1), before: shift(toDay, 1), limit: MAX_DAYS_READ });
}

/** Days one read returns at most (27 years of daily figures). */
const MAX_DAYS_READ = 10_000;

export const getDomainState = (accountId: string, domain: string) => getItem<PostmasterDomainItem>(postmasterKeys.postmasterDomain(accountId, domain));

export async function putDomainState(item: PostmasterDomainItem): Promise<void> {
  await putItem(postmasterKeys.postmasterDomain(item.accountId, item.domain), item);
}
