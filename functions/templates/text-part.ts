import type { convert as Convert, HtmlToTextOptions } from 'html-to-text';
import { htmlToText } from '../platform/lazy/lazy-modules';

/**
 * The text/plain part Mailgun adds for `t:text=yes`: "a plain text version of the template
 * alongside the HTML version", made from the rendered HTML. Links keep their address in brackets,
 * images are dropped (a text reader cannot see them), headings keep their case, and lines are not
 * re-wrapped: the MIME encoder folds long lines, and re-wrapping would break long URLs.
 */
const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
};

let convert: typeof Convert | undefined;

export function textFromHtml(html: string): string {
  // Loaded on first use: most sends convert nothing.
  convert ??= htmlToText().convert;
  return convert(html, OPTIONS);
}
