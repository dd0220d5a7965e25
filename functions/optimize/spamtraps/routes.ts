import type { RouteSpec } from '../../platform/http/route';

const area = 'optimize/spamtraps';

/** Spam-trap hits (optimize contract 1.4): v2, and v1 which Mailgun deprecates but its clients still call. */
export const spamtrapRoutes = [
  { method: 'GET', path: '/v2/spamtraps', area, operation: 'spamtrapsV2', access: 'read' },
  { method: 'GET', path: '/v1/spamtraps', area, operation: 'spamtrapsV1', access: 'read' },
] as const satisfies readonly RouteSpec[];
