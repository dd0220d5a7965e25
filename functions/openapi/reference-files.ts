/* eslint-disable @typescript-eslint/no-require-imports -- each area's handler is loaded by its path, as Lambda loads it */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openApiDocument, type DescribedRoute, type OpenApiDocument } from '../platform/http/openapi';
import type { AreaHandler } from '../platform/http/pipeline';
import { routes } from '../routes';

export interface ReferenceFile {
  contentType: string;
  body: string;
}

/** What the reference routes serve: the OpenAPI document, and the files of the page that renders it. */
export interface ReferenceFiles {
  document: OpenApiDocument;
  files: Record<string, ReferenceFile>;
}

/** Starts Swagger UI on the page: no validator badge (it would call validator.swagger.io), nothing loaded but this host's files. */
const START_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** Swagger UI's own files, from its npm package: the page loads nothing from anywhere else. */
function rendererFiles(): Record<string, ReferenceFile> {
  const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
  const read = (name: string) => readFileSync(join(dist, name), 'utf8');
  return {
    'swagger-ui-bundle.js': { contentType: 'text/javascript; charset=utf-8', body: read('swagger-ui-bundle.js') },
    'swagger-ui.css': { contentType: 'text/css; charset=utf-8', body: read('swagger-ui.css') },
    'reference.js': { contentType: 'text/javascript; charset=utf-8', body: START_SCRIPT },
  };
}

/** Every row of the route table with the input schema its operation validates, read from the area's handler. */
function describedRoutes(): DescribedRoute[] {
  const handlers = new Map<string, AreaHandler>();
  const handlerOf = (area: string): AreaHandler => {
    let handler = handlers.get(area);
    if (!handler) handlers.set(area, (handler = (require(`../${area}/handler`) as { handler: AreaHandler }).handler));
    return handler;
  };
  return routes.map((route) => ({ route, input: handlerOf(route.area).inputOf(route) }));
}

/**
 * The reference, computed from the route table and the handlers' schemas. From source (local mode,
 * tests) it is computed on first use; the reference Lambda carries it computed when the function was
 * built (a value side bundle, lib/side-bundles.ts), so it holds no other area's code.
 */
export function referenceFiles(): ReferenceFiles {
  const { version, license } = require('../../package.json') as { version: string; license: string };
  const document = openApiDocument(describedRoutes(), {
    title: 'Mailplane API',
    version,
    description:
      "A Mailgun-compatible email API: point Mailgun's SDKs at this host. Generated from the route table (functions/routes.ts) and the schemas each operation validates. " +
      'Guides: docs/ in the repository.',
    license: { name: license, url: 'https://www.apache.org/licenses/LICENSE-2.0' },
  });
  return { document, files: rendererFiles() };
}
