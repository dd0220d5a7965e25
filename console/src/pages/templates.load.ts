import { call, p } from '../api';
import { credentials, currentDomain } from '../session';
import { listDomains } from '../ui/domain-picker';

/** A domain's templates (the first hundred). */
export function fetchTemplates<T>(domain: string, signal?: AbortSignal): Promise<T> {
  return call<T>(credentials(), 'GET', p`/v3/${domain}/templates`, { query: { limit: 100 }, signal });
}

/** What the Templates page asks for as it opens: the domains, and the templates of the domain picked. */
export function loadTemplates(): void {
  void listDomains();
  const domain = currentDomain();
  if (domain) void fetchTemplates(domain);
}
