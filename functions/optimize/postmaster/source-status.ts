import { credentialsConfigured, NOT_CONFIGURED_REASON } from './credentials';
import type { PostmasterDomainItem } from './postmaster-store';

/**
 * Beside every reply, where its figures come from: `source_status` is `ok` when they are what
 * Google gave, otherwise a short state with `source_reason` saying why the data is empty or old.
 */
export type SourceStatus =
  | { source_status: 'ok' }
  | { source_status: 'not_configured' | 'not_fetched' | 'domain_not_found' | 'access_denied' | 'fetch_failed' | 'not_available'; source_reason: string };

const at = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/** For replies over all of an account's domains: the source is either configured or not. */
export function accountSource(): SourceStatus {
  return credentialsConfigured() ? { source_status: 'ok' } : { source_status: 'not_configured', source_reason: NOT_CONFIGURED_REASON };
}

/** For one domain: what the last fetch learnt about it from Google. */
export function domainSource(state: PostmasterDomainItem | undefined): SourceStatus {
  if (!credentialsConfigured()) return { source_status: 'not_configured', source_reason: NOT_CONFIGURED_REASON };
  if (!state) return { source_status: 'not_fetched', source_reason: 'the daily Postmaster fetch has not reached this domain yet' };
  switch (state.state) {
    case 'ok':
      return { source_status: 'ok' };
    case 'not_found':
      return { source_status: 'domain_not_found', source_reason: `Google Postmaster Tools did not know this domain at the last fetch (${at(state.checkedAt)}): add and verify it in Postmaster Tools` };
    case 'denied':
      return { source_status: 'access_denied', source_reason: `the service account may not read this domain in Postmaster Tools (last fetch ${at(state.checkedAt)}): give it access to the domain` };
    case 'failed':
      return { source_status: 'fetch_failed', source_reason: `the last fetch (${at(state.checkedAt)}) got no usable answer from Google: ${state.detail ?? 'no detail'}` };
  }
}

/** The address (IP) routes: v2 has no IP data at all, so they are empty even when Google answers. */
export function addressSource(): SourceStatus {
  if (!credentialsConfigured()) return { source_status: 'not_configured', source_reason: NOT_CONFIGURED_REASON };
  return { source_status: 'not_available', source_reason: 'Postmaster Tools API v2 gives no IP data (Google removed IP reputation with v1): address lists are empty' };
}
