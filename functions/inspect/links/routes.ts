import type { RouteSpec } from '../../platform/http/route';

const area = 'inspect/links';

/** Link validation (inspect contract §1): tests of an account's links; reading needs `read`, the rest `write`. */
export const linkRoutes = [
  { method: 'GET', path: '/v1/inspect/links', area, operation: 'listLinkTests', access: 'read' },
  { method: 'POST', path: '/v1/inspect/links', area, operation: 'createLinkTest', access: 'write' },
  { method: 'POST', path: '/v1/inspect/links/html-validate', area, operation: 'createLinkTestFromHtml', access: 'write' },
  { method: 'GET', path: '/v1/inspect/links/{id}', area, operation: 'getLinkTest', access: 'read' },
  { method: 'POST', path: '/v1/inspect/links/{id}', area, operation: 'reprocessLinkTest', access: 'write' },
  { method: 'DELETE', path: '/v1/inspect/links/{id}', area, operation: 'deleteLinkTest', access: 'write' },
  { method: 'POST', path: '/v1/inspect/links/{id}/csv', area, operation: 'compareLinkTestCsv', access: 'read' },
] as const satisfies readonly RouteSpec[];
