import type {
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type { z } from 'zod/v3';
import { roleAllows } from '../access';
import { ApiError, Forbidden, NotFound, TooManyRequests, Unauthorized, type ErrorField } from '../errors';
import { logger } from '../logger';
import type { AuthorizerContext, Principal } from '../principal';
import { parseBody, parseQuery, type UploadedFile } from './body';
import { schema, validate } from './params';
import { checkPathParams, decodeSegment } from './path-params';
import { jsonResult, RawReply, rawResult, Reply, withoutBody } from './reply';
import { GREEDY_VARIABLE, greedyPrefix, isGreedyPath } from './gateway-routes';
import { headRouteKey, routeKey, type RouteSpec } from './route';
import { RouteMatcher } from './route-matcher';

export type ApiEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<AuthorizerContext>;

export interface ApiRequest {
  requestId: string;
  route: RouteSpec;
  /** Percent-decoded path parameters. */
  path: Record<string, string>;
  /** Query merged with body fields (body wins); repeated keys are arrays. */
  params: Record<string, unknown>;
  files: UploadedFile[];
  /** The JSON document, when the body was JSON. */
  json?: unknown;
  headers: Record<string, string>;
  /** `scheme://host` the client used, for absolute paging URLs. */
  baseUrl: string;
  /** Absent on public routes (tracking links), which authenticate themselves. */
  principal: Principal;
  /** The account acted on: the key's, or a subaccount named by X-Mailgun-On-Behalf-Of. */
  accountId: string;
  /** A HEAD of a GET row: asked what the GET answers, it must change nothing (a tracking link records no click). */
  headOnly: boolean;
}

/**
 * A query or body parameter whose name a path parameter also has (`ip`, `pool_id` on the IP
 * routes): the path's value goes to the operation's input, the caller's is read here.
 */
export function shadowedParam(req: ApiRequest, name: string): string | undefined {
  const value = req.params[name];
  const single = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof single === 'string' && single.trim() ? single.trim() : undefined;
}

export interface Operation<S extends z.ZodType = z.ZodType> {
  /** The input schema: built on the operation's first request, then kept. */
  input: () => S;
  run(request: ApiRequest, input: z.infer<S>): Promise<unknown>;
}

/**
 * Declares an operation; its input is validated from path, body and query merged.
 *
 * `input` is a function returning the schema, not the schema: it is called on the operation's
 * first request and its schema kept for the next ones. A Lambda loads every operation of its area
 * and a request reaches one, so a handler builds no schema at load (building them all would spend
 * cold-start time on operations the request never reaches):
 *
 *   operation(() => z.object({ id: z.string() }), async (req, input) => ...)
 *   operation(createDomainInput, ...)   // schemas.ts: createDomainInput = schema(() => z.object({ ... }))
 *
 * Schemas at module level are `schema(() => ...)` (functions/platform/http/params.ts), building
 * blocks are functions (`text()`, `flag()`); test/unit/platform/lazy-schemas.test.ts fails for a
 * handler that builds a schema at load. docs/architecture.md, "Cold start", has the other rules.
 */
export function operation<S extends z.ZodType>(input: () => S, run: (request: ApiRequest, input: z.infer<S>) => Promise<unknown>): Operation<S> {
  return { input: schema(input), run };
}

/** An area's Lambda entry, as areaHandler makes it. */
export type AreaHandler = ReturnType<typeof areaHandler>;

type Operations<R extends readonly RouteSpec[]> = { [K in R[number]['operation']]: Operation<z.ZodType> };

function lowerHeaders(headers: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

function principalOf(event: ApiEvent): Principal {
  const verdict = event.requestContext.authorizer?.lambda;
  if (!verdict || verdict.denied !== undefined) {
    // Too many failures: `message` on every route, as authentication's 401 is.
    if (verdict?.retryAt !== undefined) throw new TooManyRequests(verdict.denied, Math.max(1, verdict.retryAt - Math.floor(Date.now() / 1000))).as('message');
    throw new Unauthorized(verdict?.denied ?? 'Invalid private key');
  }
  return verdict;
}

/** Public routes run without a key; nothing may be done in an account's name there. */
const ANONYMOUS: Principal = { accountId: '', keyId: '', role: 'basic', kind: 'user' };

function authorize(route: RouteSpec, principal: Principal, path: Record<string, string>): void {
  if (!roleAllows(principal.role, route.access)) throw new Forbidden();
  if (principal.kind === 'domain') {
    const target = route.domainParam ? path[route.domainParam]?.toLowerCase() : undefined;
    if (!target || target !== principal.domain) throw new Forbidden();
  }
}

/**
 * Which account a request naming another one in X-Mailgun-On-Behalf-Of acts for (its id), or an
 * ApiError: a rule of accounts (functions/accounts/on-behalf-of.ts), which each area's entry passes
 * to areaHandler so that the pipeline reads no account. `anyStatus`: the route may act for a
 * disabled subaccount (RouteSpec.onBehalfOfAnyStatus).
 */
export type OnBehalfOf = (principal: Principal, accountId: string, options: { anyStatus: boolean }) => Promise<string>;

/** What the pipeline asks of the areas above it. */
export interface PipelinePorts {
  onBehalfOf: OnBehalfOf;
}

/** The key's account, or the one X-Mailgun-On-Behalf-Of names if the caller may act for it. */
async function effectiveAccount(principal: Principal, headers: Record<string, string>, route: RouteSpec, ports: PipelinePorts): Promise<string> {
  const target = headers['x-mailgun-on-behalf-of']?.trim();
  if (!target || target === principal.accountId) return principal.accountId;
  return ports.onBehalfOf(principal, target, { anyStatus: route.onBehalfOfAnyStatus === true });
}

/** A HEAD of a GET row that answers it: run as the GET, answered without the body. */
const isHead = (event: ApiEvent) => event.requestContext?.http?.method === 'HEAD';

function baseUrlOf(headers: Record<string, string>, event: ApiEvent): string {
  const proto = headers['x-forwarded-proto']?.split(',')[0]?.trim() || 'https';
  const host = headers['host'] || event.requestContext.domainName;
  return `${proto}://${host}`;
}

function errorResult(error: unknown, requestId: string, field: ErrorField = 'message'): APIGatewayProxyStructuredResultV2 {
  if (error instanceof ApiError) {
    // Authentication and role refusals read the same on every route.
    if (!error.field && error.status !== 401 && error.status !== 403 && field !== 'message') error.as(field);
    return jsonResult(error.status, error.body(), error.headers);
  }
  logger.error('unhandled error', { requestId, error: error as Error });
  return jsonResult(500, { message: 'Internal Server Error' });
}

/** How long before Lambda's own deadline a request still running is answered with a 500. */
const DEADLINE_MARGIN_MS = 5;

/**
 * `work`, or a TimeoutError once the invocation is DEADLINE_MARGIN_MS from its deadline: the client
 * gets our 500 (and the log our error line) rather than the gateway's reply to a killed Lambda.
 */
function beforeDeadline<T>(work: Promise<T>, context: Pick<Context, 'getRemainingTimeInMillis'> | undefined): Promise<T> {
  if (typeof context?.getRemainingTimeInMillis !== 'function') return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error('[AbortError]: The operation was aborted.');
      error.name = 'TimeoutError';
      reject(error);
    }, Math.max(0, context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS));
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The Lambda entry of one API area: find the row (by `routeKey`, or from method and path when the
 * request came through one of the area's greedy routes, functions/platform/http/gateway-routes.ts),
 * authenticate from the authorizer's verdict, enforce the row's access, resolve the account acted
 * on (`ports.onBehalfOf`), parse and validate input, run, reply JSON.
 */
export function areaHandler<const R extends readonly RouteSpec[]>(routes: R, operations: Operations<R>, ports: PipelinePorts) {
  const opOf = (route: RouteSpec) => (operations as Record<string, Operation>)[route.operation]!;
  const byKey = new Map<string, RouteSpec>(routes.flatMap((route) => [[routeKey(route), route] as const, ...(route.head ? [[headRouteKey(route), route] as const] : [])]));
  let matcher: RouteMatcher | undefined;

  /** The row a request is for, with its raw path parameters as API Gateway would have passed them. */
  function rowOf(event: ApiEvent): { route: RouteSpec; pathParameters: Record<string, string | undefined> } | undefined {
    const route = byKey.get(event.routeKey);
    if (route) return { route, pathParameters: event.pathParameters ?? {} };
    const path = event.routeKey?.split(' ')[1];
    if (!path || !isGreedyPath(path)) return undefined;
    matcher ??= new RouteMatcher(routes);
    const rest = event.pathParameters?.[GREEDY_VARIABLE] ?? '';
    const match = matcher.match(event.requestContext.http.method, `${greedyPrefix(path)}/${rest}`);
    return match && { route: match.route, pathParameters: match.pathParameters };
  }

  const logRequest = (event: ApiEvent, route: RouteSpec | undefined, status: number | undefined) =>
    logger.info('request', { requestId: event.requestContext?.requestId, route: route ? routeKey(route) : event.routeKey, status });

  async function answer(event: ApiEvent, route: RouteSpec, pathParameters: Record<string, string | undefined>): Promise<APIGatewayProxyStructuredResultV2> {
    const op = opOf(route);
    const headers = lowerHeaders(event.headers);
    const isPublic = route.access === 'public';
    const principal = isPublic ? ANONYMOUS : principalOf(event);
    const path = Object.fromEntries(Object.entries(pathParameters).map(([k, v]) => [k, decodeSegment(v ?? '')]));
    if (!isPublic) authorize(route, principal, path);
    checkPathParams(route, path);
    const accountId = isPublic ? '' : await effectiveAccount(principal, headers, route, ports);

    const raw = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
    const body = await parseBody(raw, headers['content-type']);
    const params = { ...parseQuery(event.rawQueryString ?? ''), ...body.fields };
    const request: ApiRequest = {
      requestId: event.requestContext.requestId,
      route,
      path,
      params,
      files: body.files,
      json: body.json,
      headers,
      baseUrl: baseUrlOf(headers, event),
      principal,
      accountId,
      headOnly: isHead(event),
    };
    const input = validate(op.input(), { ...params, ...path });
    const result = await op.run(request, input);
    if (result instanceof RawReply) return rawResult(result);
    return result instanceof Reply ? jsonResult(result.status, result.body, result.headers) : jsonResult(200, result);
  }

  const handle = async (event: ApiEvent, context?: Context): Promise<APIGatewayProxyStructuredResultV2> => {
    let response: APIGatewayProxyStructuredResultV2;
    let row: ReturnType<typeof rowOf>;
    try {
      row = rowOf(event);
      if (!row) throw new NotFound('Not Found');
      response = await beforeDeadline(answer(event, row.route, row.pathParameters), context);
    } catch (error) {
      response = errorResult(error, event.requestContext?.requestId ?? '', row?.route.errorField);
    }
    logRequest(event, row?.route, response.statusCode);
    return isHead(event) ? withoutBody(response) : response;
  };
  // The API reference (functions/openapi) describes each row's parameters from the schema its operation validates.
  return Object.assign(handle, { inputOf: (route: RouteSpec): z.ZodType => opOf(route).input() });
}
