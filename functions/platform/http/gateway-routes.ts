import { routeKey, type HttpMethod, type RouteSpec } from './route';

/**
 * API Gateway allows 300 routes per HTTP API. Up to this many, every row of the route table is a
 * route of its own; past it, the areas whose rows share a path prefix no other area uses get one
 * greedy route for that prefix (the largest saving first) until the API is back within it. The
 * margin under 300 is for the rows the next feature adds before anyone looks at this again.
 */
export const ROUTE_BUDGET = 250;

/** The greedy variable's name on collapsed routes; the area router matches the row from it. */
export const GREEDY_VARIABLE = 'proxy';
const GREEDY_SUFFIX = `/{${GREEDY_VARIABLE}+}`;

/** A route on the HTTP API: one row of the table, or an area's greedy route standing for several. */
export interface GatewayRoute {
  area: string;
  method: HttpMethod | 'HEAD' | 'ANY';
  path: string;
  isPublic: boolean;
  /**
   * Its authorizer's verdict is never reused: a row it serves changes credentials. A greedy route
   * takes it from any of its rows, so no row loses it by being collapsed.
   */
  uncachedAuth: boolean;
  /** The rows this route serves: one, or the area's rows under a greedy route's prefix. */
  rows: RouteSpec[];
}

export function isGreedyPath(path: string): boolean {
  return path.endsWith(GREEDY_SUFFIX);
}

/** The static prefix a greedy route stands for (`/v3/lists` for `/v3/lists/{proxy+}`). */
export function greedyPrefix(path: string): string {
  return path.slice(0, -GREEDY_SUFFIX.length);
}

const changesCredentials = (row: RouteSpec) => row.changesCredentials === true;

const segmentsOf = (path: string) => path.split('/').filter(Boolean);
const isVariable = (segment: string) => segment.startsWith('{');

/**
 * Whether a row could serve a request under `prefix`: each of its first segments is the prefix's
 * or a variable. API Gateway prefers such a row (no greedy variable) to a greedy route, so a row of
 * another area like `/v3/{domain}/events` keeps `/v3/lists` from going greedy: `/v3/lists/events`
 * would reach the events area, not the lists one.
 */
function couldServeUnder(path: string[], prefix: string[]): boolean {
  return prefix.every((segment, i) => path[i] === segment || (path[i] !== undefined && isVariable(path[i]!)));
}

/**
 * The shortest literal prefix (two segments at least) of a row that lies strictly above it and
 * that no other area's row shares: the most rows of its area one greedy route can take.
 */
function claimablePrefix(row: RouteSpec, rows: readonly RouteSpec[]): string | undefined {
  const segments = segmentsOf(row.path);
  for (let length = 2; length < segments.length; length++) {
    const prefix = segments.slice(0, length);
    if (prefix.some(isVariable)) return undefined;
    const foreign = rows.some((other) => other.area !== row.area && couldServeUnder(segmentsOf(other.path), prefix));
    if (!foreign) return `/${prefix.join('/')}`;
  }
  return undefined;
}

/**
 * The HTTP API's routes for a route table: one per row (and a HEAD route for a row that answers
 * HEAD) while the table fits ROUTE_BUDGET, then greedy routes (`ANY /v1/alerts/{proxy+}`) for the
 * areas' largest shared prefixes. A greedy route goes to the same Lambda behind the same
 * authorizer, and the area router finds the row from method and path
 * (functions/platform/http/pipeline.ts), so access, validation and replies are the row's as before.
 * Public rows always stay routes of their own: they have no authorizer.
 * Why a request for another area's row never lands on a greedy route, nor one of the area's on
 * another's row: no other area has a row that could serve a path under the prefix.
 */
export function gatewayRoutes(rows: readonly RouteSpec[], budget = ROUTE_BUDGET): GatewayRoute[] {
  const groups = new Map<string, { area: string; prefix: string; rows: RouteSpec[] }>();
  for (const row of rows) {
    if (row.access === 'public') continue;
    const prefix = claimablePrefix(row, rows);
    if (!prefix) continue;
    const key = `${row.area} ${prefix}`;
    const group = groups.get(key) ?? groups.set(key, { area: row.area, prefix, rows: [] }).get(key)!;
    group.rows.push(row);
  }
  const savings = [...groups.values()]
    .filter((group) => group.rows.length > 1)
    .sort((a, b) => b.rows.length - a.rows.length || a.prefix.localeCompare(b.prefix));

  const collapsed = new Map<string, GatewayRoute>();
  // A row answering HEAD is two routes (an area's greedy ANY route would answer its HEAD too).
  let count = rows.length + rows.filter((row) => row.head).length;
  for (const group of savings) {
    if (count <= budget) break;
    const greedy: GatewayRoute = { area: group.area, method: 'ANY', path: `${group.prefix}${GREEDY_SUFFIX}`, isPublic: false, uncachedAuth: group.rows.some(changesCredentials), rows: group.rows };
    for (const row of group.rows) collapsed.set(routeKey(row), greedy);
    count -= group.rows.length - 1;
  }

  const out: GatewayRoute[] = [];
  const emitted = new Set<GatewayRoute>();
  for (const row of rows) {
    const greedy = collapsed.get(routeKey(row));
    if (!greedy) {
      const own = { area: row.area, path: row.path, isPublic: row.access === 'public', uncachedAuth: changesCredentials(row), rows: [row] };
      out.push({ ...own, method: row.method });
      if (row.head) out.push({ ...own, method: 'HEAD' });
    } else if (!emitted.has(greedy)) {
      emitted.add(greedy);
      out.push(greedy);
    }
  }
  return out;
}

export function gatewayRouteKey(route: Pick<GatewayRoute, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}
