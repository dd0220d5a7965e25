import { accountsCovered } from '../../accounts/subaccount-list';
import { primaryAccountId } from '../../accounts/account-store';
import { chunksOf, mapLimit } from '../../platform/concurrency';
import { env } from '../../platform/env';
import { logger } from '../../platform/logger';
import { listManagedDomains } from '../domains/managed-domains';
import { credentialsConfigured, loadServiceAccountKey } from './credentials';
import { addFeedbackLoopRates, collectDays, DAILY_METRICS, feedbackLoopMetrics, googleDate } from './metrics';
import { PostmasterApiError, postmasterApi, type PostmasterApi } from './postmaster-api';
import { getDomainState, putDays, putDomainState, type GoogleDomainState, type PostmasterDomainItem } from './postmaster-store';

/** Domains fetched at once: a few keeps a large account's run short without pressing Google's per-user quota. */
const DOMAINS_AT_ONCE = 4;

export interface FetchSummary {
  configured: boolean;
  domains: number;
  days: number;
  /** Domains Google does not know, or the service account may not read. */
  unavailable: number;
  failed: number;
}

const DAY_MS = 86_400_000;
/** Feedback-loop ids asked in one query (one metric definition each). */
const FEEDBACK_LOOPS_PER_QUERY = 20;

const dayString = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The region's accounts: the primary one and its subaccounts not closed (a subaccount has none of its own). */
async function accounts(): Promise<string[]> {
  const primary = await primaryAccountId();
  return primary ? accountsCovered(primary, true) : [];
}

/** A refusal Google gives for a domain it does not share with this identity is a fact about the domain, not a failure. */
function stateOf(error: unknown): { state: GoogleDomainState; detail: string } {
  if (error instanceof PostmasterApiError) {
    if (error.status === 404) return { state: 'not_found', detail: error.message };
    if (error.status === 403) return { state: 'denied', detail: error.message };
    return { state: 'failed', detail: error.message };
  }
  return { state: 'failed', detail: (error as Error).message };
}

async function fetchDomain(api: PostmasterApi, accountId: string, domain: string, fromDay: string, toDay: string, now: number): Promise<{ state: GoogleDomainState; days: number }> {
  const checkedAt = Math.floor(now / 1000);
  const previous = await getDomainState(accountId, domain);
  const timeQuery = { dateRanges: { dateRanges: [{ start: googleDate(fromDay), end: googleDate(toDay) }] } };
  let state: PostmasterDomainItem;
  let stored = 0;
  try {
    const { days, feedbackLoopIds } = collectDays(await api.queryDomainStats(domain, { metricDefinitions: [...DAILY_METRICS], timeQuery, aggregationGranularity: 'DAILY' }));
    const ids = [...new Set([...feedbackLoopIds.values()].flat())];
    // The loops' rates in queries of FEEDBACK_LOOPS_PER_QUERY ids: a refused one costs its loops' rates, not the days.
    for (const chunk of chunksOf(ids, FEEDBACK_LOOPS_PER_QUERY)) {
      try {
        addFeedbackLoopRates(days, chunk, await api.queryDomainStats(domain, { metricDefinitions: feedbackLoopMetrics(chunk), timeQuery, aggregationGranularity: 'DAILY' }));
      } catch (error) {
        if (!(error instanceof PostmasterApiError)) throw error;
        logger.warn('Postmaster: feedback-loop rates not read; the days are stored without them', { domain, error: error.message });
      }
    }
    await putDays([...days.values()].map((day) => ({ ...day, accountId, domain, fetchedAt: checkedAt })));
    stored = days.size;
    state = { accountId, domain, state: 'ok', checkedAt, compliance: previous?.compliance };
    try {
      state.compliance = { status: await api.complianceStatus(domain), fetchedAt: checkedAt };
    } catch (error) {
      // The stats were read: a compliance refusal leaves the last known status in place.
      if (!(error instanceof PostmasterApiError)) throw error;
    }
  } catch (error) {
    // Nothing is invented: the days already stored stay as Google last gave them.
    state = { accountId, domain, ...stateOf(error), checkedAt, compliance: previous?.compliance };
  }
  await putDomainState(state);
  return { state: state.state, days: stored };
}

/**
 * The daily Postmaster fetch: for every account's verified managed domains, the last
 * POSTMASTER_FETCH_DAYS days up to yesterday (UTC; Google has nothing for today) and the
 * compliance status, stored one item per (account, domain, day). Without a configured service
 * account it does nothing.
 */
export async function fetchPostmasterData(now = Date.now()): Promise<FetchSummary> {
  const summary: FetchSummary = { configured: credentialsConfigured(), domains: 0, days: 0, unavailable: 0, failed: 0 };
  if (!summary.configured) return summary;
  const settings = env();
  const api = postmasterApi(await loadServiceAccountKey(), { apiUrl: settings.POSTMASTER_API_URL, tokenUrl: settings.POSTMASTER_TOKEN_URL, subject: settings.POSTMASTER_IMPERSONATE });
  const toDay = dayString(now - DAY_MS);
  const fromDay = dayString(now - settings.POSTMASTER_FETCH_DAYS * DAY_MS);
  const work: Array<{ accountId: string; domain: string }> = [];
  for (const accountId of await accounts()) {
    for (const domain of await listManagedDomains(accountId)) if (domain.status !== 'pending') work.push({ accountId, domain: domain.name });
  }
  const results = await mapLimit(work, DOMAINS_AT_ONCE, ({ accountId, domain }) => fetchDomain(api, accountId, domain, fromDay, toDay, now));
  for (const result of results) {
    summary.domains++;
    summary.days += result.days;
    if (result.state === 'not_found' || result.state === 'denied') summary.unavailable++;
    if (result.state === 'failed') summary.failed++;
  }
  return summary;
}
