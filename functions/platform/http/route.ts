import type { Access } from '../access';
import type { ErrorField } from '../errors';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One row of the route table: enough for API Gateway, the local router and the auth matrix. */
export interface RouteSpec<Op extends string = string> {
  method: HttpMethod;
  /** API Gateway v2 syntax: `/v4/domains/{name}`, greedy `{token+}`. */
  path: string;
  /** The area folder whose Lambda serves the route. */
  area: string;
  /** The area handler's operation name. */
  operation: Op;
  access: Access;
  /** The path parameter naming the domain, when the route acts on one; domain keys need it to match. */
  domainParam?: string;
  /** Where error text goes in this route's error replies; `message` unless Mailgun says otherwise. */
  errorField?: ErrorField;
  /** X-Mailgun-On-Behalf-Of may name a disabled subaccount (deleting one); elsewhere it must be open. */
  onBehalfOfAnyStatus?: boolean;
  /**
   * The route creates, changes or reveals a credential (API keys, SMTP passwords, signing keys,
   * DKIM keys, the IP allowlist, subaccounts). Its caller's key is looked up on every request,
   * never from a cached verdict, so a revoked key cannot mint another while caches expire.
   */
  changesCredentials?: boolean;
  /**
   * The GET row answers HEAD too: the same status and headers, no body. Only for a public page or
   * file whose GET changes nothing, or whose operation skips what it records when `headOnly` (a
   * tracking link: link checkers and mail scanners ask HEAD of links, and that is no click); never
   * for a confirmation. On AWS it is a route of its own (API Gateway matches HEAD to HEAD routes
   * only), counted in the route budget.
   */
  head?: true;
  /** What a successful reply is when it is not a JSON object (a page, an image, a redirect), for the API reference. */
  replies?: readonly RawReplySpec[];
}

/** One kind of successful reply that is not a JSON object: its status, its media type (none for a redirect or an empty reply) and what it is. */
export interface RawReplySpec {
  status: number;
  contentType?: string;
  description: string;
}

export function routeKey(route: Pick<RouteSpec, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

/** Whether a request with `method` is for `route`: its own method, or HEAD of a GET row that answers HEAD. */
export function servesMethod(route: Pick<RouteSpec, 'method' | 'head'>, method: string): boolean {
  return route.method === method || (method === 'HEAD' && route.method === 'GET' && route.head === true);
}

/** The key of the HEAD route of a row that answers HEAD (`HEAD /docs`). */
export const headRouteKey = (route: Pick<RouteSpec, 'path'>): string => `HEAD ${route.path}`;
