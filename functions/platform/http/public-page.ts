import { escapeHtml } from '../html-escape';
import { RawReply } from './reply';

/** A public page's parts: its title (text), its inline style sheet, and its body (HTML). */
export interface PublicPageContent {
  title: string;
  style: string;
  body: string;
}

/**
 * A page anyone with its link may open (a share, a confirmation): one document shape (kept out of
 * search engines), no script, nothing loaded but inline styles (and, when `images` says so, images
 * from itself and HTTPS), no referrer, no caching.
 */
export function publicPage({ title, style, body }: PublicPageContent, options: { images?: boolean } = {}): RawReply {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
${style}
</style>
</head>
<body>
${body}
</body>
</html>`;
  const images = options.images ? " img-src 'self' https:;" : '';
  return new RawReply(200, html, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none';${images} style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  });
}

/** A public page that says one thing: a heading and a sentence, both text. */
export function noticePage(title: string, text: string): RawReply {
  return publicPage({
    title,
    style: 'body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em;color:#1d2330}',
    body: `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`,
  });
}
