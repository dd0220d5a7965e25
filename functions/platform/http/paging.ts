import { z } from 'zod/v3';
import { byteLength, MAX_KEY_PART_BYTES } from '../../data/key-limits';
import { integer, oneOfValues, text } from './params';

/**
 * Mailgun's paging styles (contract §1.6), shared by the areas that list things. URLs are absolute
 * and point back at the host the client used: mailgun-go follows them verbatim.
 */

export function absoluteUrl(baseUrl: string, path: string, query: Record<string, string | number | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
  const qs = search.toString();
  return `${baseUrl}${path}${qs ? `?${qs}` : ''}`;
}

/** Style C: `?skip=N&limit=N` answered with `total_count` (or `total`) and `items`. */
export const skipLimitInput = (defaultLimit: number, maxLimit: number) => ({
  skip: integer()
    .refine((n) => n >= 0, { message: 'must not be negative' })
    .default(0),
  limit: integer()
    .refine((n) => n >= 1, { message: 'must be at least 1' })
    .refine((n) => n <= maxLimit, { message: `can't be larger than ${maxLimit}` })
    .default(defaultLimit),
});

/** A value a key range is bounded by (a pivot, a name prefix): no longer than a key part can be. */
export const keyPart = () => text().refine((v) => byteLength(v) <= MAX_KEY_PART_BYTES, { message: `must be at most ${MAX_KEY_PART_BYTES} bytes` });

/** Style A: `?page=first|last|next|prev&<pivot>=<key>&limit=N`, keys in ascending order. */
export type PivotPage = { page: 'first' | 'last' | 'next' | 'prev'; pivot?: string; limit: number };

export const pivotPageInput = (pivotName: string, defaultLimit: number, maxLimit: number) =>
  z
    .object({
      page: text()
        .transform((v) => v.toLowerCase())
        .pipe(oneOfValues(['first', 'last', 'next', 'prev', 'previous'], 'must be one of first, last, next, prev'))
        .optional(),
      limit: skipLimitInput(defaultLimit, maxLimit).limit,
    })
    // The pivot is a bound of a key range, and DynamoDB refuses a bound longer than a key can be.
    .and(z.object({ [pivotName]: keyPart().optional() }))
    .transform((input): PivotPage => {
      const page = input.page === 'previous' ? 'prev' : (input.page ?? 'first');
      const pivot = (input as Record<string, unknown>)[pivotName] as string | undefined;
      // Without a pivot, next and prev have nothing to be relative to: they mean the ends.
      if ((page === 'next' || page === 'prev') && pivot === undefined) return { page: page === 'next' ? 'first' : 'last', limit: input.limit };
      return { page, pivot, limit: input.limit };
    });

/** How to read one page: direction, and the exclusive bound to start from. */
export function pivotQuery(request: PivotPage): { ascending: boolean; after?: string; before?: string } {
  switch (request.page) {
    case 'first':
      return { ascending: true };
    case 'last':
      return { ascending: false };
    case 'next':
      return { ascending: true, after: request.pivot };
    case 'prev':
      return { ascending: false, before: request.pivot };
  }
}

/**
 * The exclusive key bounds of a page of keys that start with their time, within a time range
 * (`from` inclusive, `to` exclusive, ISO): the tighter of the page's pivot and the range on each side.
 */
export function boundsWithin(page: { after?: string; before?: string }, from?: string, to?: string): { after?: string; before?: string } {
  const after = page.after === undefined ? from : from === undefined || page.after > from ? page.after : from;
  const before = page.before === undefined ? to : to === undefined || page.before < to ? page.before : to;
  return { after, before };
}

/**
 * The `paging` object for a page whose items have `keys` (in the order returned to the client).
 * At either end, next/previous repeat the request's pivot, so following them yields an empty page.
 */
export function pivotPaging(
  baseUrl: string,
  path: string,
  pivotName: string,
  request: PivotPage,
  keys: string[],
  extraQuery: Record<string, string | undefined> = {},
) {
  const url = (page: string, pivot?: string) => absoluteUrl(baseUrl, path, { ...extraQuery, page, [pivotName]: pivot, limit: request.limit });
  return {
    first: url('first'),
    last: url('last'),
    next: url('next', keys.at(-1) ?? request.pivot ?? ''),
    previous: url('prev', keys[0] ?? request.pivot ?? ''),
  };
}
