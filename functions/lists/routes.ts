import type { RouteSpec } from '../platform/http/route';

/**
 * Mailing lists and their members (contract §10). Lists belong to the account, not to a domain:
 * no route names a domain, so domain-bound keys reach none of them.
 */
const area = 'lists';
export const listRoutes = [
  { method: 'GET', path: '/v3/lists/pages', area, operation: 'listPages', access: 'read' },
  { method: 'GET', path: '/v3/lists', area, operation: 'listLists', access: 'read' },
  { method: 'POST', path: '/v3/lists', area, operation: 'createList', access: 'write' },
  { method: 'GET', path: '/v3/lists/{list}', area, operation: 'getList', access: 'read' },
  { method: 'PUT', path: '/v3/lists/{list}', area, operation: 'updateList', access: 'write' },
  { method: 'DELETE', path: '/v3/lists/{list}', area, operation: 'deleteList', access: 'write' },
  { method: 'GET', path: '/v3/lists/{list}/members/pages', area, operation: 'memberPages', access: 'read' },
  { method: 'GET', path: '/v3/lists/{list}/members', area, operation: 'listMembers', access: 'read' },
  { method: 'POST', path: '/v3/lists/{list}/members', area, operation: 'createMember', access: 'write' },
  { method: 'GET', path: '/v3/lists/{list}/members/{member}', area, operation: 'getMember', access: 'read' },
  { method: 'PUT', path: '/v3/lists/{list}/members/{member}', area, operation: 'updateMember', access: 'write' },
  { method: 'DELETE', path: '/v3/lists/{list}/members/{member}', area, operation: 'deleteMember', access: 'write' },
  { method: 'POST', path: '/v3/lists/{list}/members.json', area, operation: 'uploadJson', access: 'write' },
  { method: 'POST', path: '/v3/lists/{list}/members.csv', area, operation: 'uploadCsv', access: 'write' },
] as const satisfies readonly RouteSpec[];
