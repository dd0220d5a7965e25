import { dkimRoutes } from './dkim/routes';
import { credentialRoutes } from './credentials/routes';
import { certificateRoutes } from './certificates/routes';
import { domainRoutes } from './domains/routes';
import { eventRoutes } from './events/routes';
import { keyRoutes } from './keys/routes';
import { listRoutes } from './lists/routes';
import { messageRoutes } from './messages/routes';
import type { RouteSpec } from './platform/http/route';
import { trackingRoutes } from './tracking/routes';
import { suppressionRoutes } from './suppressions/routes';
import { storageRoutes } from './storage/routes';
import { templateRoutes } from './templates/routes';
import { tagRoutes } from './tags/routes';
import { logRoutes } from './logs/routes';
import { analyticsRoutes } from './analytics/routes';
import { webhookRoutes } from './webhooks/routes';
import { mailRouteRoutes } from './mailroutes/routes';
import { linkRoutes } from './inspect/links/routes';
import { imageRoutes } from './inspect/images/routes';
import { accessibilityRoutes } from './inspect/accessibility/routes';
import { analyzeRoutes } from './inspect/analyze/routes';
import { previewRoutes } from './inspect/preview/routes';
import { subaccountRoutes } from './admin/subaccounts/routes';
import { limitRoutes } from './admin/limits/routes';
import { allowlistRoutes } from './admin/allowlist/routes';
import { userRoutes } from './admin/users/routes';
import { accountRoutes } from './admin/account/routes';
import { ipRoutes } from './admin/ips/routes';
import { sandboxRoutes } from './admin/sandbox/routes';
import { dynamicPoolRoutes } from './admin/dynamic-pools/routes';
import { managedDomainRoutes } from './optimize/domains/routes';
import { dmarcRoutes } from './optimize/dmarc/routes';
import { healthRoutes } from './optimize/health/routes';
import { spamtrapRoutes } from './optimize/spamtraps/routes';
import { blocklistRoutes } from './optimize/blocklists/routes';
import { postmasterRoutes } from './optimize/postmaster/routes';
import { alertRoutes } from './optimize/alerts/routes';
import { inboxRoutes } from './optimize/inbox/routes';
import { openApiRoutes } from './openapi/routes';

/**
 * The whole HTTP surface. CDK makes one API Gateway route per row, integrated with the area's
 * Lambda (`functions/<area>/handler.ts`); the local host routes with the same rows; the auth
 * matrix and malformed-input tests walk them.
 */
export const routes: readonly RouteSpec[] = [...keyRoutes, ...domainRoutes, ...dkimRoutes, ...credentialRoutes, ...messageRoutes, ...storageRoutes, ...eventRoutes, ...suppressionRoutes, ...templateRoutes, ...trackingRoutes, ...certificateRoutes, ...tagRoutes, ...logRoutes, ...analyticsRoutes, ...webhookRoutes, ...listRoutes, ...mailRouteRoutes, ...linkRoutes, ...imageRoutes, ...accessibilityRoutes, ...analyzeRoutes, ...previewRoutes, ...subaccountRoutes, ...limitRoutes, ...allowlistRoutes, ...userRoutes, ...accountRoutes, ...ipRoutes, ...sandboxRoutes, ...dynamicPoolRoutes, ...managedDomainRoutes, ...dmarcRoutes, ...healthRoutes, ...blocklistRoutes, ...postmasterRoutes, ...alertRoutes, ...spamtrapRoutes, ...inboxRoutes, ...openApiRoutes];

/** The API areas, each one Lambda whose entry is `functions/<area>/handler.ts`. */
export const areas: readonly string[] = [...new Set(routes.map((route) => route.area))];
