import { BadRequest, NotFound } from '../platform/errors';
import { objectId } from '../platform/ids';
import { checkWebhookUrl } from '../webhooks/url-policy';
import { matchFilter, parseAction, parseFilter, withCaptures, type Action, type MatchInput } from './expressions';
import { findRoute, insertRoute, patchRoute, removeRoute, routesOf, type RouteItem } from './route-store';

/** The rules of routes: what may be saved, and which routes a message meets. No HTTP here. */

/**
 * Checks a route's expression and actions before anything is stored: a bad regex, an unknown
 * action or a URL the webhook policy refuses is a 400 and changes nothing. URLs are checked as
 * webhook URLs are (the same SSRF policy), unless they hold captures (`\g<name>`), which are only
 * known when a message is routed; delivery checks the address it connects to in every case.
 */
async function checkRoute(expression: string, actions: readonly string[]): Promise<void> {
  parseFilter(expression);
  if (!actions.length) throw new BadRequest("Missing parameter 'action'.");
  for (const action of actions.map(parseAction)) {
    const url = action.kind === 'forward' && /^https?:/i.test(action.destination) ? action.destination : action.kind === 'store' ? action.notify : undefined;
    if (url && !/\\g</.test(url)) await checkWebhookUrl(url);
  }
}

export async function createRoute(accountId: string, input: { priority: number; description: string; expression: string; actions: string[] }): Promise<RouteItem> {
  const expression = input.expression.trim();
  const actions = input.actions.map((a) => a.trim());
  await checkRoute(expression, actions);
  const now = Date.now();
  const route: RouteItem = { accountId, id: objectId(now), priority: input.priority, description: input.description, expression, actions, createdAt: new Date(now).toISOString() };
  await insertRoute(route);
  return route;
}

export async function requireRoute(accountId: string, id: string): Promise<RouteItem> {
  const route = /^[0-9a-f]{24}$/i.test(id) ? await findRoute(accountId, id.toLowerCase()) : undefined;
  if (!route) throw new NotFound('Route not found');
  return route;
}

export async function updateRoute(route: RouteItem, changes: { priority?: number; description?: string; expression?: string; actions?: string[] }): Promise<RouteItem> {
  const expression = changes.expression?.trim() ?? route.expression;
  const actions = changes.actions?.map((a) => a.trim()) ?? route.actions;
  await checkRoute(expression, actions);
  return patchRoute(route, { priority: changes.priority ?? route.priority, description: changes.description ?? route.description, expression, actions });
}

export async function deleteRoute(route: RouteItem): Promise<void> {
  if (!(await removeRoute(route))) throw new NotFound('Route not found');
}

/** A route that matched a recipient, with its actions as they run (captures filled in). */
export interface RouteMatch {
  route: RouteItem;
  recipient: string;
  actions: Action[];
}

/**
 * Mailgun's evaluation: routes by priority (lower first, then older), every matching route's
 * actions for the recipient, until a matching route says stop(). A route whose stored expression
 * no longer parses (saved by an older version) is skipped rather than stopping all routing.
 */
export function evaluateRoutes(routes: readonly RouteItem[], input: MatchInput): RouteMatch[] {
  const matched: RouteMatch[] = [];
  for (const route of routes) {
    let captures;
    let actions: Action[];
    try {
      captures = matchFilter(parseFilter(route.expression), input);
      if (!captures) continue;
      actions = route.actions.map(parseAction);
    } catch {
      continue;
    }
    const resolved = actions.map((action): Action => {
      if (action.kind === 'forward') return { kind: 'forward', destination: withCaptures(action.destination, captures) };
      if (action.kind === 'store' && action.notify) return { kind: 'store', notify: withCaptures(action.notify, captures) };
      return action;
    });
    matched.push({ route, recipient: input.recipient, actions: resolved });
    if (resolved.some((action) => action.kind === 'stop')) break;
  }
  return matched;
}

/** GET /v3/routes/match: the first route an address alone would meet (header filters cannot match without a message). */
export async function firstMatch(accountId: string, address: string): Promise<RouteItem> {
  const match = evaluateRoutes(await routesOf(accountId), { recipient: address.trim(), headers: [] })[0];
  if (!match) throw new NotFound('Route not found');
  return match.route;
}
