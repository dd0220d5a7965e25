import type { RouteSpec } from '../../platform/http/route';

const area = 'inspect/images';

/** Image validation and optimisation (inspect contract §2), plus the download of an optimised image. */
export const imageRoutes = [
  { method: 'GET', path: '/v1/inspect/images', area, operation: 'listImageTests', access: 'read' },
  { method: 'POST', path: '/v1/inspect/images', area, operation: 'createImageTest', access: 'write' },
  { method: 'POST', path: '/v1/inspect/images/html-validate', area, operation: 'createImageTestFromHtml', access: 'write' },
  { method: 'POST', path: '/v1/inspect/images/upload', area, operation: 'uploadImage', access: 'write' },
  { method: 'GET', path: '/v1/inspect/images/{id}', area, operation: 'getImageTest', access: 'read' },
  { method: 'DELETE', path: '/v1/inspect/images/{id}', area, operation: 'deleteImageTest', access: 'write' },
  { method: 'POST', path: '/v1/inspect/images/{id}/reprocess', area, operation: 'reprocessImageTest', access: 'write' },
  { method: 'POST', path: '/v1/inspect/images/{id}/optimize', area, operation: 'optimizeImages', access: 'write' },
  { method: 'POST', path: '/v1/inspect/images/{id}/optimize/{image_id}', area, operation: 'optimizeImage', access: 'write' },
  { method: 'GET', path: '/v1/inspect/images/{id}/optimized/{image_id}', area, operation: 'downloadOptimizedImage', access: 'read', replies: [{ status: 200, contentType: 'image/*', description: 'The optimized image, in its own format, as an attachment.' }] },
] as const satisfies readonly RouteSpec[];
