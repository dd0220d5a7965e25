import type { RouteSpec } from '../../platform/http/route';

const area = 'admin/users';

/** Users (contract 12.4): who an account's keys are issued to. `me` is the calling key's user. */
export const userRoutes = [
  { method: 'GET', path: '/v5/users', area, operation: 'listUsers', access: 'read' },
  { method: 'GET', path: '/v5/users/me', area, operation: 'getCurrentUser', access: 'read' },
  { method: 'GET', path: '/v5/users/{user_id}', area, operation: 'getUser', access: 'read' },
] as const satisfies readonly RouteSpec[];
