import type juiceType from 'juice';
import { BadRequest } from '../../platform/errors';
import { textFromHtml } from '../../templates/text-part';

/** GET /v1/preview/tests/{id}/content/{content} (contract §5.8): the kinds a test's HTML can be shown as. */
const CONTENT_KINDS = ['inlinecss', 'textonly'] as const;

let juice: typeof juiceType | undefined;

/** The test's HTML as `kind`: stylesheets inlined into style attributes (juice), or its plain-text reading. */
export function contentAs(html: string, kind: string): string {
  if (kind === 'inlinecss') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a side bundle, loaded when asked for
    juice ??= (require('./css-inliner') as { juice: typeof juiceType }).juice;
    // Media queries and font faces cannot be inlined and stay in a <style> block. Synchronous juice fetches nothing.
    return juice(html, { preserveMediaQueries: true, preserveFontFaces: true, removeStyleTags: true });
  }
  if (kind === 'textonly') return textFromHtml(html);
  throw new BadRequest(`Unknown content '${kind}': use one of ${CONTENT_KINDS.join(', ')}`);
}
