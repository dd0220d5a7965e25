import type { RouteSpec } from '../../platform/http/route';

const area = 'optimize/inbox';

/**
 * Inbox placement (optimize contract 1.3, mailgun-contract 14): seed lists, tests, results and
 * their sharing, providers. Additions of ours: the operator's seed mailboxes (`/v1/inbox/seed-mailboxes`,
 * primary account's admin keys only) and the public page of a shared result (`/inbox/share/{shareid}`:
 * the share id is the secret, as for `sharing/public/{shareid}`).
 */
export const inboxRoutes = [
  { method: 'GET', path: '/v4/inbox/seedlists', area, operation: 'listSeedLists', access: 'read' },
  { method: 'POST', path: '/v4/inbox/seedlists', area, operation: 'createSeedList', access: 'write' },
  { method: 'GET', path: '/v4/inbox/seedlists/a', area, operation: 'seedListAttributes', access: 'read' },
  { method: 'GET', path: '/v4/inbox/seedlists/a/{attribute}', area, operation: 'seedListAttribute', access: 'read' },
  { method: 'GET', path: '/v4/inbox/seedlists/_filters', area, operation: 'seedListFilters', access: 'read' },
  { method: 'GET', path: '/v4/inbox/seedlists/{address}', area, operation: 'getSeedList', access: 'read' },
  { method: 'PUT', path: '/v4/inbox/seedlists/{address}', area, operation: 'updateSeedList', access: 'write' },
  { method: 'DELETE', path: '/v4/inbox/seedlists/{address}', area, operation: 'deleteSeedList', access: 'write' },
  { method: 'POST', path: '/v4/inbox/tests', area, operation: 'runPlacementTest', access: 'send' },
  { method: 'GET', path: '/v4/inbox/results', area, operation: 'listResults', access: 'read' },
  { method: 'GET', path: '/v4/inbox/results/a', area, operation: 'resultAttributes', access: 'read' },
  { method: 'GET', path: '/v4/inbox/results/a/{attribute}', area, operation: 'resultAttribute', access: 'read' },
  { method: 'GET', path: '/v4/inbox/results/_filters', area, operation: 'resultFilters', access: 'read' },
  { method: 'GET', path: '/v4/inbox/results/{result}', area, operation: 'getResult', access: 'read' },
  { method: 'DELETE', path: '/v4/inbox/results/{result}', area, operation: 'deleteResult', access: 'write' },
  { method: 'GET', path: '/v4/inbox/sharing/{result}', area, operation: 'getSharing', access: 'read' },
  { method: 'PUT', path: '/v4/inbox/sharing/{result}', area, operation: 'updateSharing', access: 'write' },
  { method: 'GET', path: '/v4/inbox/sharing/public/{shareid}', area, operation: 'publicResult', access: 'public', head: true },
  { method: 'GET', path: '/inbox/share/{shareid}', area, operation: 'publicResultPage', access: 'public', head: true, replies: [{ status: 200, contentType: 'text/html', description: 'The shared result as a page: where each seed copy landed.' }] },
  { method: 'GET', path: '/v4/inbox/providers', area, operation: 'listProviders', access: 'read' },
  { method: 'GET', path: '/v1/inbox/seed-mailboxes', area, operation: 'listSeedMailboxes', access: 'admin' },
  { method: 'POST', path: '/v1/inbox/seed-mailboxes', area, operation: 'putSeedMailbox', access: 'admin', changesCredentials: true },
  { method: 'DELETE', path: '/v1/inbox/seed-mailboxes/{email}', area, operation: 'removeSeedMailbox', access: 'admin', changesCredentials: true },
] as const satisfies readonly RouteSpec[];
