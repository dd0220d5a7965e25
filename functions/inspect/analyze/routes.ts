import type { RouteSpec } from '../../platform/http/route';

const area = 'inspect/analyze';

/** Code analysis (inspect contract §4): versioned tests; DELETE's 404 says `Description`, as Mailgun's does. */
export const analyzeRoutes = [
  { method: 'GET', path: '/v1/inspect/analyze/dictionary', area, operation: 'dictionary', access: 'read' },
  { method: 'GET', path: '/v1/inspect/analyze', area, operation: 'listAnalyses', access: 'read' },
  { method: 'POST', path: '/v1/inspect/analyze', area, operation: 'createAnalysis', access: 'write' },
  { method: 'GET', path: '/v1/inspect/analyze/{test_id}', area, operation: 'getAnalysis', access: 'read' },
  { method: 'POST', path: '/v1/inspect/analyze/{test_id}', area, operation: 'createAnalysisVersion', access: 'write' },
  { method: 'DELETE', path: '/v1/inspect/analyze/{test_id}', area, operation: 'deleteAnalysis', access: 'write', errorField: 'Description' },
  { method: 'GET', path: '/v1/inspect/analyze/{test_id}/versions', area, operation: 'listAnalysisVersions', access: 'read' },
  { method: 'GET', path: '/v1/inspect/analyze/{test_id}/versions/{version_id}', area, operation: 'getAnalysisVersion', access: 'read' },
  { method: 'POST', path: '/v1/inspect/analyze/{test_id}/resolve/{id}', area, operation: 'resolveInstance', access: 'write' },
] as const satisfies readonly RouteSpec[];
