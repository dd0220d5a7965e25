import { BadRequest } from '../../platform/errors';
import { flag, instant, integer, oneOfValues, text } from '../../platform/http/params';
import { offsetOfToken, offsetPageToken } from '../../platform/http/offset-pages';
import { absoluteUrl } from '../../platform/http/paging';
import type { ApiRequest } from '../../platform/http/pipeline';

/**
 * Paging of seed lists and results (optimize contract 1.3): `offset`, or an opaque `cursor` (the
 * page links' own), never both; `limit` (default 25); `sort` and `ascending`; `total` counts every
 * match. An account's lists and results are read whole and paged in memory: they are one
 * partition each, and tests are a few a day, not millions.
 */
export const pageInput = () => ({
  cursor: text().optional(),
  offset: integer().refine((n) => n >= 0, { message: 'must not be negative' }).optional(),
  limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }).default(25),
  ascending: flag().optional(),
});

export const timeBound = () => instant('must be an RFC 3339 or RFC 2822 time');

export const sortInput = <const T extends readonly [string, ...string[]]>(fields: T) => oneOfValues(fields).optional();

function offsetOf(input: { cursor?: string; offset?: number }): number {
  if (input.cursor !== undefined && input.offset !== undefined) throw new BadRequest('cursor and offset cannot be combined');
  if (input.cursor === undefined) return input.offset ?? 0;
  return offsetOfToken(input.cursor, 'cursor');
}

/** One page of `items` (already filtered and sorted), with absolute page links that keep the filters. */
export function offsetPage<T>(req: ApiRequest, items: readonly T[], input: { cursor?: string; offset?: number; limit: number }, filters: Record<string, string | undefined>) {
  const offset = offsetOf(input);
  const path = req.route.path;
  const link = (at: number) => absoluteUrl(req.baseUrl, path, { ...filters, limit: input.limit, cursor: offsetPageToken(Math.max(0, at)) });
  const lastStart = Math.max(0, Math.floor((items.length - 1) / input.limit) * input.limit);
  return {
    items: items.slice(offset, offset + input.limit),
    paging: {
      first: link(0),
      last: link(lastStart),
      next: link(offset + input.limit < items.length ? offset + input.limit : offset),
      previous: link(offset - input.limit),
    },
    total: items.length,
  };
}

export const byTime = <T>(items: T[], at: (item: T) => string, ascending: boolean) => items.sort((a, b) => (ascending ? 1 : -1) * at(a).localeCompare(at(b)));
