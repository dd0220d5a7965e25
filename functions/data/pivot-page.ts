import { pivotQuery, type PivotPage } from '../platform/http/paging';
import { queryPage } from './store';

/**
 * Where an exclusive pivot (`after` or `before`, a whole name) falls against the names that start
 * with `prefix`: as a bound relative to the prefix (what queryPage takes), no bound when it lies
 * beyond the range on the side the page walks away from, or 'empty' when the page would start
 * past the range's end.
 */
export function boundsWithin(prefix: string, plan: { after?: string; before?: string }): { after?: string; before?: string } | 'empty' {
  const { after, before } = plan;
  if (after !== undefined && !after.startsWith(prefix)) return after < prefix ? {} : 'empty';
  if (before !== undefined && !before.startsWith(prefix)) return before > prefix ? {} : 'empty';
  return {
    ...(after !== undefined ? { after: after.slice(prefix.length) } : {}),
    ...(before !== undefined ? { before: before.slice(prefix.length) } : {}),
  };
}

/**
 * One page of Mailgun's style-A paging (`page`, a pivot, `limit`) over the items of `pk` whose sort
 * keys are `keyPrefix` + a lower-case name, restricted to names starting with `namePrefix`: a key
 * range, so a page costs its own size. Items come in name order whichever way the page walked.
 * `keep` filters items without counting them against the page (a page then reads past them).
 */
export async function readPivotPage<T>(pk: string, keyPrefix: string, page: PivotPage, namePrefix = '', keep?: (item: Record<string, unknown>) => boolean): Promise<T[]> {
  // Names are stored lower-case; a pivot typed by hand may not be.
  const plan = pivotQuery({ ...page, pivot: page.pivot?.toLowerCase() });
  const bounds = boundsWithin(namePrefix, plan);
  if (bounds === 'empty') return [];
  const items = await queryPage<T>(pk, { prefix: keyPrefix + namePrefix, ascending: plan.ascending, ...bounds, limit: page.limit, keep });
  // Backward pages come nearest-first.
  return plan.ascending ? items : items.reverse();
}
