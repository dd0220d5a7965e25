import { RawReply } from './reply';

/**
 * A page anyone with its link may open (a share, a confirmation): no script, nothing loaded but
 * inline styles (and, when `images` says so, images from itself and HTTPS), no referrer, no caching.
 */
export function publicPage(html: string, options: { images?: boolean } = {}): RawReply {
  const images = options.images ? " img-src 'self' https:;" : '';
  return new RawReply(200, html, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none';${images} style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  });
}
