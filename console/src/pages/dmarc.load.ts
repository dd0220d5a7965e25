import { call } from '../api';
import { credentials } from '../session';
import { listDomains } from '../ui/domain-picker';

/** The period the page opens on. */
export const FIRST_PERIOD = 'all';

/** The API's `from` for a period: epoch seconds, or none for all reports. */
export function rangeOf(period: string): { from?: number } {
  return period === 'all' ? {} : { from: Math.floor(Date.now() / 1000) - Number(period) * 86_400 };
}

/** The domains with reports over `period`, with their pfqr chart. */
export function fetchDmarcDomains<T>(period: string, signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', '/v1/dmarc/domains', { query: rangeOf(period), signal });
}

/** What the DMARC page asks for as it opens: its domains, and the sending domains for the record to publish. */
export function loadDmarc(): void {
  void fetchDmarcDomains(FIRST_PERIOD);
  void listDomains();
}
