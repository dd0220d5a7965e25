import type { RouteSpec } from '../../platform/http/route';

const area = 'admin/sandbox';

/**
 * The sandbox domain's authorized recipients (contract 12.4). The confirmation page is public: the
 * token in its path, mailed to the address alone, is the credential.
 */
export const sandboxRoutes = [
  { method: 'GET', path: '/v5/sandbox/auth_recipients', area, operation: 'listSandboxRecipients', access: 'read' },
  { method: 'POST', path: '/v5/sandbox/auth_recipients', area, operation: 'addSandboxRecipient', access: 'admin' },
  { method: 'DELETE', path: '/v5/sandbox/auth_recipients/{email}', area, operation: 'deleteSandboxRecipient', access: 'admin' },
  { method: 'GET', path: '/v5/sandbox/auth_recipients/confirm/{token}', area, operation: 'confirmSandboxRecipient', access: 'public', replies: [{ status: 200, contentType: 'text/html', description: 'A page saying the address is now an authorized recipient.' }] },
] as const satisfies readonly RouteSpec[];
