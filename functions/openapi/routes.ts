import type { RouteSpec } from '../platform/http/route';

const area = 'openapi';

/**
 * The API reference: the OpenAPI document of the route table and a page rendering it, with the
 * renderer's files. Public, as documentation is: nothing here belongs to an account.
 */
export const openApiRoutes = [
  { method: 'GET', path: '/openapi.json', area, operation: 'getApiDocument', access: 'public', head: true, replies: [{ status: 200, contentType: 'application/json', description: 'This document.' }] },
  { method: 'GET', path: '/docs', area, operation: 'getReferencePage', access: 'public', head: true, replies: [{ status: 200, contentType: 'text/html', description: 'The reference page, rendering this document.' }] },
  { method: 'GET', path: '/docs/{file}', area, operation: 'getReferenceFile', access: 'public', head: true, replies: [{ status: 200, description: "A file of the reference page's renderer (a script or a style sheet)." }] },
] as const satisfies readonly RouteSpec[];
