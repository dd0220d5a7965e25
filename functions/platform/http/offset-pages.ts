import { BadRequest } from '../errors';

/** Page tokens are opaque to clients: an offset into the filtered list. */
export function offsetPageToken(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

/** The offset in a token from offsetPageToken, given as the parameter `name`; anything else is a 400. */
export function offsetOfToken(token: string, name: string): number {
  try {
    const offset = (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown }).o;
    if (typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0) return offset;
  } catch {
    // fall through
  }
  throw new BadRequest(`Invalid parameter '${name}': not a page token from this API`);
}

/** The offset a `page` parameter names: a token from offsetPageToken, `first`, or `last` (of `total` items in pages of `limit`). */
export function offsetOfPage(page: string | undefined, total: number, limit: number): number {
  if (!page || page === 'first') return 0;
  if (page === 'last') return Math.max(0, total - limit);
  return offsetOfToken(page, 'page');
}

/** The four page links of an offset listing; `link` makes the URL for a `page` value. */
export function offsetPaging(link: (page: string) => string, offset: number, limit: number) {
  return { first: link('first'), last: link('last'), next: link(offsetPageToken(offset + limit)), previous: link(offsetPageToken(Math.max(0, offset - limit))) };
}
