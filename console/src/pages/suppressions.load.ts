import { call, p, type Query } from '../api';
import { credentials, currentDomain } from '../session';
import { listDomains } from '../ui/domain-picker';

export type List = 'bounces' | 'complaints' | 'unsubscribes' | 'whitelists';
export type Entry = Record<string, unknown> & { address?: string; value?: string };
export interface EntryPage {
  items: Entry[];
  paging: { next?: string; previous?: string };
}

export const PAGE_SIZE = 100;
/** The list the page opens on. */
export const FIRST_LIST: List = 'bounces';

/** A page of one suppression list of a domain . */
export function fetchEntries(domain: string, list: List, query: Query, signal?: AbortSignal): Promise<EntryPage> {
  return call<EntryPage>(credentials(), 'GET', p`/v3/${domain}/${list}`, { query, signal });
}

/** What the Suppressions page asks for as it opens: the domains, and the first list of the domain picked. */
export function loadSuppressions(): void {
  void listDomains();
  const domain = currentDomain();
  if (domain) void fetchEntries(domain, FIRST_LIST, { limit: PAGE_SIZE });
}
