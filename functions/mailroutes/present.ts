import { rfc1123 } from '../platform/dates';
import type { RouteItem } from './route-store';

/** A route as contract §9 shows it; `created_at` RFC 1123 (mailgun-go's RFC2822Time). */
export function routeJson(route: RouteItem) {
  return {
    id: route.id,
    priority: route.priority,
    description: route.description,
    expression: route.expression,
    actions: route.actions,
    created_at: rfc1123(route.createdAt),
  };
}
