import { absoluteUrl } from '../../platform/http/paging';
import type { InspectTest } from './inspect-store';

/**
 * The inspect family's envelope (contract §0): `{meta, items, paging?}`, the job state in
 * `meta.status`, ids as 24-hex strings, links relative to the API root as Mailgun's samples show.
 */
export const selfLink = (base: string, id: string) => ({ self: `${base}/${id}` });

/** What create and reprocess answer: the id and where to poll it, while the work runs. */
export function processingReply(base: string, test: Pick<InspectTest, 'id' | 'status'>, meta: Record<string, unknown> = {}) {
  return { meta: { ...meta, status: test.status }, items: { id: test.id, links: selfLink(base, test.id) } };
}

/** limit/skip paging (images, accessibility, code analysis): absolute URLs back to the same list. */
export function skipLimitPaging(baseUrl: string, path: string, skip: number, limit: number, count: number, query: Record<string, string | undefined> = {}) {
  const at = (s: number) => absoluteUrl(baseUrl, path, { ...query, limit, skip: s });
  const lastSkip = count > 0 ? Math.floor((count - 1) / limit) * limit : 0;
  return {
    first: at(0),
    last: at(lastSkip),
    next: at(skip + limit),
    previous: at(Math.max(0, skip - limit)),
  };
}
