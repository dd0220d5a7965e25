import type { RouteSpec } from '../../platform/http/route';

const area = 'optimize/health';

/** The email health score (optimize contract 1.5, 2.5); its errors are `{"Reason"}`, as Mailgun's are. */
export const healthRoutes = [
  { method: 'GET', path: '/v1/maverick-score/total', area, operation: 'healthScoreTotal', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: '/v1/maverick-score/grouped', area, operation: 'healthScoreGrouped', access: 'read', errorField: 'Reason' },
] as const satisfies readonly RouteSpec[];
