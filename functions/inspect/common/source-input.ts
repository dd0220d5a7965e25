import { z } from 'zod/v3';
import { BadRequest } from '../../platform/errors';
import { boundedText, MAX_LENGTH } from '../../platform/http/params';
import { htmlOfInput, type HtmlSourceInput } from './inspect-input';

/** The body of every "from HTML" create (contract §1, §2, §4): one of html, url or mime. */
export const htmlSourceFields = () => ({
  html: z.string().optional(),
  url: boundedText(MAX_LENGTH.url).optional(),
  mime: z.string().optional(),
  transfer_encoding: boundedText(MAX_LENGTH.word).optional(),
  charset: boundedText(MAX_LENGTH.word).optional(),
});

/** What a test stores as its input: the decoded HTML, or the URL its worker fetches it from. */
export type StoredSource = { html: string } | { url: string };

const MAX_URL_LENGTH = MAX_LENGTH.url;

/** An absolute http(s) URL, or a 400 naming the field. */
export function checkHttpUrl(value: string, field = 'url'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BadRequest(`Invalid parameter '${field}': not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BadRequest(`Invalid parameter '${field}': only http and https URLs can be fetched`);
  if (value.length > MAX_URL_LENGTH) throw new BadRequest(`Invalid parameter '${field}': at most ${MAX_URL_LENGTH} characters`);
  return url.href;
}

/**
 * Decodes `html` or `mime` now, so a bad encoding or an oversized email is refused with a 4xx and
 * nothing is stored; a `url` is only checked here and fetched by the worker (a slow site must not
 * hold the request).
 */
export async function storedSourceOf(input: HtmlSourceInput): Promise<StoredSource> {
  const onlyUrl = input.url && !input.html && !input.mime;
  if (onlyUrl) return { url: checkHttpUrl(input.url!) };
  return { html: await htmlOfInput(input, () => Promise.reject(new BadRequest("Provide only one of 'html', 'url' or 'mime'"))) };
}
