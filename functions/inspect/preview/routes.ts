import type { RouteSpec } from '../../platform/http/route';

const area = 'inspect/preview';
const errorField = 'Reason';
/** A stored file: its bytes in local mode, a redirect to a short-lived presigned S3 URL on AWS (functions/inspect/preview/object-delivery.ts). */
const storedFile = (contentType: string, what: string) => [
  { status: 200, contentType, description: `${what} (local mode).` },
  { status: 302, description: `On AWS: a redirect to a presigned S3 URL of ${what.toLowerCase()}, valid 15 minutes.` },
];

/**
 * Email previews (spec "Inspection: email preview", inspect contract §5): tests rendered per client,
 * their results and screenshots, exports and shares. The v1 test routes are Mailgun's deprecated
 * ones and answer as v2 does. Additions of ours: the screenshot and export zip paths a result's
 * URLs point at (authenticated), and the share page with its images (public: the share's uuid is
 * the secret, as it is for `sharing/public/{id}`).
 */
export const previewRoutes = [
  { method: 'GET', path: '/v1/preview/tests/clients', area, operation: 'listPreviewClients', access: 'read', errorField },
  { method: 'POST', path: '/v2/preview/tests', area, operation: 'createPreviewTest', access: 'write', errorField },
  { method: 'POST', path: '/v1/preview/tests', area, operation: 'createPreviewTestV1', access: 'write', errorField },
  { method: 'GET', path: '/v2/preview/tests', area, operation: 'listPreviewTests', access: 'read', errorField },
  { method: 'GET', path: '/v1/preview/tests', area, operation: 'listPreviewTestsV1', access: 'read', errorField },
  { method: 'GET', path: '/v2/preview/tests/{test_id}', area, operation: 'getPreviewTest', access: 'read', errorField },
  { method: 'GET', path: '/v1/preview/tests/{test_id}', area, operation: 'getPreviewTestV1', access: 'read', errorField },
  { method: 'DELETE', path: '/v2/preview/tests/{test_id}', area, operation: 'deletePreviewTest', access: 'write', errorField },
  { method: 'DELETE', path: '/v1/preview/tests/{test_id}', area, operation: 'deletePreviewTestV1', access: 'write', errorField },
  { method: 'GET', path: '/v1/preview/tests/{test_id}/results', area, operation: 'getPreviewResults', access: 'read', errorField },
  { method: 'GET', path: '/v2/preview/tests/{test_id}/results/{client_id}', area, operation: 'getPreviewClientResult', access: 'read', errorField },
  { method: 'PUT', path: '/v1/preview/tests/{test_id}/results/reprocess', area, operation: 'reprocessPreviewClients', access: 'write', errorField },
  { method: 'GET', path: '/v1/preview/tests/{test_id}/screenshots/{client_id}/{file}', area, operation: 'getPreviewScreenshot', access: 'read', errorField, replies: storedFile('image/png', 'The screenshot') },
  { method: 'GET', path: '/v1/preview/tests/{test_id}/content', area, operation: 'getPreviewContent', access: 'read', errorField },
  { method: 'GET', path: '/v1/preview/tests/{test_id}/content/{content}', area, operation: 'getPreviewContentAs', access: 'read', errorField },
  { method: 'POST', path: '/v1/preview/address', area, operation: 'previewAddressV1', access: 'write', errorField },
  { method: 'POST', path: '/v2/preview/address', area, operation: 'previewAddress', access: 'write', errorField },
  { method: 'POST', path: '/v2/preview/tests/{test_id}/exports', area, operation: 'startPreviewExport', access: 'write', errorField },
  { method: 'GET', path: '/v2/preview/tests/{test_id}/exports', area, operation: 'getLatestPreviewExport', access: 'read', errorField },
  { method: 'GET', path: '/v2/preview/tests/{test_id}/exports/{job_id}', area, operation: 'getPreviewExport', access: 'read', errorField },
  { method: 'GET', path: '/v2/preview/tests/{test_id}/exports/{job_id}/zip', area, operation: 'downloadPreviewExport', access: 'read', errorField, replies: storedFile('application/zip', 'The zip of the screenshots') },
  { method: 'POST', path: '/v1/preview/sharing', area, operation: 'createPreviewShare', access: 'write', errorField },
  { method: 'GET', path: '/v1/preview/sharing/{test_id}', area, operation: 'getPreviewShare', access: 'read', errorField },
  { method: 'PUT', path: '/v1/preview/sharing/{test_id}', area, operation: 'updatePreviewShare', access: 'write', errorField },
  { method: 'DELETE', path: '/v1/preview/sharing/{test_id}', area, operation: 'deletePreviewShare', access: 'write', errorField },
  { method: 'POST', path: '/v1/preview/sharing/{test_id}/rotate', area, operation: 'rotatePreviewShare', access: 'write', errorField },
  { method: 'GET', path: '/v1/preview/sharing/public/{id}', area, operation: 'getPublicPreviewShare', access: 'public', head: true, errorField },
  { method: 'GET', path: '/preview/share/{uuid}', area, operation: 'previewSharePage', access: 'public', head: true, errorField, replies: [{ status: 200, contentType: 'text/html', description: "The share page: the subject and every client's screenshot." }] },
  { method: 'GET', path: '/preview/share/{uuid}/{client_id}/{file}', area, operation: 'previewShareScreenshot', access: 'public', head: true, errorField, replies: storedFile('image/png', 'The screenshot') },
] as const satisfies readonly RouteSpec[];
