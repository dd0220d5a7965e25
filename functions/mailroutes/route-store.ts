import { deleteIfPresent, getItem, putItem, queryAll, updateItem, type Key } from '../data/store';
import { defineEntity } from '../data/key-registry';

/**
 * Routes are account-wide (not per domain) and regional: each region's table holds its own.
 *
 * Every inbound message is routed against all of its account's routes, so they are read whole
 * (one Query) and ordered in memory; lists page the same ordering with skip/limit.
 */
const mailRouteKey = defineEntity(
  'mail routes',
  { route: { what: 'one route (API)', pk: 'ACCT#<account>#ROUTES', sk: '<route id>', key: (accountId: string, id = ''): Key => ({ pk: `ACCT#${accountId}#ROUTES`, sk: id }) } },
  [{ what: "all of an account's routes (list, match, inbound)", pk: 'ACCT#<account>#ROUTES' }],
).route;

export interface RouteItem {
  accountId: string;
  /** 24-hex ObjectId: its leading seconds, then `createdAt`, give creation order. */
  id: string;
  priority: number;
  description: string;
  expression: string;
  actions: string[];
  createdAt: string;
}

/** Lower priority first, then the older route (Mailgun's evaluation order). */
function byEvaluationOrder(a: RouteItem, b: RouteItem): number {
  return a.priority - b.priority || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

export async function routesOf(accountId: string): Promise<RouteItem[]> {
  return (await queryAll<RouteItem>(mailRouteKey(accountId), '')).sort(byEvaluationOrder);
}

export async function findRoute(accountId: string, id: string): Promise<RouteItem | undefined> {
  return getItem<RouteItem>(mailRouteKey(accountId, id), { consistent: true });
}

export async function insertRoute(route: RouteItem): Promise<void> {
  await putItem(mailRouteKey(route.accountId, route.id), route, { ifAbsent: true });
}

export async function patchRoute(route: RouteItem, changes: Partial<Pick<RouteItem, 'priority' | 'description' | 'expression' | 'actions'>>): Promise<RouteItem> {
  return updateItem<RouteItem>(mailRouteKey(route.accountId, route.id), changes);
}

export async function removeRoute(route: RouteItem): Promise<boolean> {
  return deleteIfPresent(mailRouteKey(route.accountId, route.id));
}
