import { z } from 'zod/v3';
import { NotFound } from '../platform/errors';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { RawReply } from '../platform/http/reply';
import type { ReferenceFiles } from './reference-files';
import { openApiRoutes } from './routes';

let computed: ReferenceFiles | undefined;

/** The document and the renderer's files: computed from source, or read from the value built beside the Lambda's bundle. */
function reference(): ReferenceFiles {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a side bundle: required on first use, literally
  return (computed ??= (require('./reference-files') as typeof import('./reference-files')).referenceFiles());
}

/** The renderer runs this host's scripts and nothing else; it fetches the document (and, trying a call, the API) from here only. */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mailplane API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<main id="reference"></main>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/reference.js"></script>
</body>
</html>
`;

const STATIC = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

export const handler = areaHandler(openApiRoutes, {
  getApiDocument: operation(() => z.object({}), async () => reference().document),

  getReferencePage: operation(() => z.object({}), async () => new RawReply(200, PAGE, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_POLICY, 'cache-control': 'no-cache', ...STATIC })),

  getReferenceFile: operation(() => z.object({ file: z.string() }), async (_req, input) => {
    const file = Object.hasOwn(reference().files, input.file) ? reference().files[input.file] : undefined;
    if (!file) throw new NotFound(`No file ${input.file} in the API reference`);
    return new RawReply(200, file.body, { 'content-type': file.contentType, 'cache-control': 'public, max-age=3600', ...STATIC });
  }),
}, { onBehalfOf });
