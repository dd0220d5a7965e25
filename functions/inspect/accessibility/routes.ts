import type { RouteSpec } from '../../platform/http/route';

const area = 'inspect/accessibility';

/** Accessibility (inspect contract §3). */
export const accessibilityRoutes = [
  { method: 'GET', path: '/v1/inspect/accessibility', area, operation: 'listAccessibilityTests', access: 'read' },
  { method: 'POST', path: '/v1/inspect/accessibility', area, operation: 'createAccessibilityTest', access: 'write' },
  { method: 'GET', path: '/v1/inspect/accessibility/{id}', area, operation: 'getAccessibilityTest', access: 'read' },
  { method: 'DELETE', path: '/v1/inspect/accessibility/{id}', area, operation: 'deleteAccessibilityTest', access: 'write' },
] as const satisfies readonly RouteSpec[];
