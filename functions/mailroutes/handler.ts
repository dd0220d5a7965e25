import { BadRequest } from '../platform/errors';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { createRoute, deleteRoute, firstMatch, requireRoute, updateRoute } from './mailroutes';
import { routeJson } from './present';
import { routesOf } from './route-store';
import { mailRouteRoutes } from './routes';
import { createRouteInput, listRoutesInput, matchRouteInput, MAX_ROUTES_PAGE, routeIdInput, updateRouteInput } from './schemas';

export const handler = areaHandler(mailRouteRoutes, {
  listRoutes: operation(listRoutesInput, async (req, input) => {
    if (input.limit > MAX_ROUTES_PAGE) throw new BadRequest(`The 'limit' parameter can't be larger than ${MAX_ROUTES_PAGE}`);
    const routes = await routesOf(req.accountId);
    return { total_count: routes.length, items: routes.slice(input.skip, input.skip + input.limit).map(routeJson) };
  }),

  createRoute: operation(createRouteInput, async (req, input) => {
    const route = await createRoute(req.accountId, { priority: input.priority, description: input.description, expression: input.expression, actions: input.action ?? input.actions ?? [] });
    return { message: 'Route has been created', route: routeJson(route) };
  }),

  matchRoute: operation(matchRouteInput, async (req, input) => ({ route: routeJson(await firstMatch(req.accountId, input.address)) })),

  getRoute: operation(routeIdInput, async (req, input) => ({ route: routeJson(await requireRoute(req.accountId, input.id)) })),

  updateRoute: operation(updateRouteInput, async (req, input) => {
    const route = await requireRoute(req.accountId, input.id);
    const updated = routeJson(await updateRoute(route, { priority: input.priority, description: input.description, expression: input.expression, actions: input.action ?? input.actions }));
    // mailgun-go decodes a flat route, the OAS documents `route`: both (contract §17).
    return { ...updated, message: 'Route has been updated', route: updated };
  }),

  deleteRoute: operation(routeIdInput, async (req, input) => {
    const route = await requireRoute(req.accountId, input.id);
    await deleteRoute(route);
    return { message: 'Route has been deleted', id: route.id };
  }),
}, { onBehalfOf });
