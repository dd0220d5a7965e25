import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayProxyStructuredResultV2,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerWithContextResult,
  Context,
} from 'aws-lambda';
import type { AuthorizerContext } from '../../functions/platform/principal';
import { lambdaContext } from './lambda-context';
import { GREEDY_VARIABLE, gatewayRouteKey, gatewayRoutes, greedyPrefix, type GatewayRoute } from '../../functions/platform/http/gateway-routes';
import { headRouteKey, routeKey, type RouteSpec } from '../../functions/platform/http/route';
import { RouteMatcher } from '../../functions/platform/http/route-matcher';

/** API Gateway's own payload limit for HTTP APIs, kept locally so nothing works here that fails there. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** The API areas' Lambda timeout: API Gateway's integration limit, less a second. */
const API_AREA_TIMEOUT_MS = 29_000;

type AreaHandler = (event: APIGatewayProxyEventV2WithLambdaAuthorizer<AuthorizerContext>, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type Authorizer = (event: APIGatewayRequestAuthorizerEventV2) => Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>>;

export interface GatewayOptions {
  /** The API's rows; they become its routes as in the CDK app, greedy ones included. */
  routes: readonly RouteSpec[];
  authorizer: Authorizer;
  areaHandler(area: string): Promise<AreaHandler>;
  /** Seconds a verdict is reused for the same Authorization header, as API Gateway's cache does. */
  authorizerCacheSeconds: number;
  /** Runs a piece of work in the region's configuration. */
  scope<T>(fn: () => Promise<T>): Promise<T>;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_PAYLOAD_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The request target as a URL, or undefined when it cannot be one (`//[`, an absolute-form target
 * with a broken host): API Gateway answers those 400 before any route is matched.
 */
function targetOf(raw: string | undefined): URL | undefined {
  try {
    return new URL(raw ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  headers['x-forwarded-proto'] ??= 'http';
  headers['x-forwarded-for'] = sourceIpOf(req, headers['x-forwarded-for']);
  return headers;
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * The client's address, as API Gateway gives `sourceIp`: the connection's peer. X-Forwarded-For is
 * believed only from this machine (a proxy in front of local mode, or a test standing for a
 * remote client), never from elsewhere, so the IP allowlist cannot be talked around.
 */
function sourceIpOf(req: IncomingMessage, forwarded: string | undefined): string {
  const peer = req.socket.remoteAddress ?? '127.0.0.1';
  const claimed = forwarded?.split(',')[0]?.trim();
  return claimed && LOOPBACK.test(peer) ? claimed : peer;
}

/**
 * The HTTP API in front of the handlers: match the route, run the authorizer on the Authorization
 * header, build the payload-2.0 event and write the handler's result back. Behaves as API Gateway
 * does where clients can see it: 404 for unknown routes, 401 without credentials, 413 over 10 MB.
 */
export function gateway(options: GatewayOptions) {
  const serve = handleRequest(options);
  return (req: IncomingMessage, res: ServerResponse): void => {
    serve(req, res).catch((error: unknown) => {
      // A client that hung up mid-request has nobody left to answer, and nothing failed here.
      if (req.destroyed && !req.complete) return;
      // What API Gateway answers when an integration fails: the client always gets a reply.
      process.stderr.write(`local gateway: ${(error as Error).stack ?? String(error)}\n`);
      if (!res.headersSent) send(res, 500, JSON.stringify({ message: 'Internal Server Error' }));
      else res.end();
    });
  };
}

/**
 * The route API Gateway would pick for a row and the path parameters it would pass: the row's own,
 * or, when the row is served by its area's greedy route, the rest of the path as `proxy`.
 */
function routing(rows: readonly RouteSpec[]) {
  const served = new Map<string, GatewayRoute>();
  for (const route of gatewayRoutes(rows)) for (const row of route.rows) served.set(route.method === 'HEAD' ? headRouteKey(row) : routeKey(row), route);
  return (row: RouteSpec, method: string, pathname: string, pathParameters: Record<string, string>) => {
    // HEAD of a row answering it has a route of its own, unless the row went under a greedy route.
    const route = (method === 'HEAD' && served.get(headRouteKey(row))) || served.get(routeKey(row))!;
    if (route.method !== 'ANY') return { key: gatewayRouteKey(route), pathParameters, uncachedAuth: route.uncachedAuth };
    const depth = greedyPrefix(route.path).split('/').filter(Boolean).length;
    const rest = pathname.split('/').filter(Boolean).slice(depth).join('/');
    return { key: gatewayRouteKey(route), pathParameters: { [GREEDY_VARIABLE]: rest }, uncachedAuth: route.uncachedAuth };
  };
}

function handleRequest(options: GatewayOptions) {
  const matcher = new RouteMatcher(options.routes);
  const routeOf = routing(options.routes);
  const verdicts = new Map<string, { expires: number; verdict: Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>> }>();
  // Two authorizers as on AWS: the cached one, and one for routes that change credentials that
  // never reuses a verdict (and never sees the cached one's).
  const authorize = (event: APIGatewayRequestAuthorizerEventV2, uncached: boolean) => {
    if (uncached) return options.authorizer(event);
    // As API Gateway's identity sources: the Authorization header and the source address.
    const header = `${event.identitySource[0]!}|${event.requestContext.http.sourceIp}`;
    const now = Date.now();
    const cached = verdicts.get(header);
    if (cached && cached.expires > now) return cached.verdict;
    const verdict = options.authorizer(event);
    if (options.authorizerCacheSeconds > 0) {
      if (verdicts.size > 10_000) verdicts.clear();
      verdicts.set(header, { expires: now + options.authorizerCacheSeconds * 1000, verdict });
      verdict.catch(() => verdicts.delete(header));
    }
    return verdict;
  };
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestId = randomUUID();
    const url = targetOf(req.url);
    if (!url) {
      req.resume();
      return send(res, 400, JSON.stringify({ message: 'Bad Request' }));
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const match = matcher.match(method, url.pathname);
    if (!match) {
      req.resume();
      return send(res, 404, JSON.stringify({ message: 'Not Found' }));
    }
    const headers = headersOf(req);
    // Public routes (tracking links) have no authorizer, as on API Gateway.
    const isPublic = match.route.access === 'public';
    if (!isPublic && !headers['authorization']) {
      req.resume();
      return send(res, 401, JSON.stringify({ message: 'Unauthorized' }));
    }
    const body = await readBody(req);
    if (!body) return send(res, 413, JSON.stringify({ message: 'Request Entity Too Large' }));

    const { key, pathParameters, uncachedAuth } = routeOf(match.route, method, url.pathname, match.pathParameters);
    const now = new Date();
    const rawQueryString = url.search.replace(/^\?/, '');
    const queryStringParameters: Record<string, string> = {};
    for (const [name, value] of url.searchParams) {
      queryStringParameters[name] = name in queryStringParameters ? `${queryStringParameters[name]},${value}` : value;
    }
    const http = { method, path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: headers['x-forwarded-for']!, userAgent: headers['user-agent'] ?? '' };
    const domainName = headers['host'] ?? 'localhost';

    const result = await options.scope(async () => {
      const verdict = isPublic ? { isAuthorized: true, context: undefined } : await authorize({
        version: '2.0',
        type: 'REQUEST',
        routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${method}${url.pathname}`,
        identitySource: [headers['authorization']!, http.sourceIp],
        routeKey: key,
        rawPath: url.pathname,
        rawQueryString,
        headers,
        queryStringParameters,
        requestContext: {
          accountId: 'local', apiId: 'local', domainName, domainPrefix: domainName.split('.')[0]!, http,
          requestId, routeKey: key, stage: '$default', time: now.toUTCString(), timeEpoch: now.getTime(),
        },
        pathParameters,
        stageVariables: {},
      } as APIGatewayRequestAuthorizerEventV2, uncachedAuth);
      if (!verdict.isAuthorized) return { statusCode: 403, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Forbidden' }) };
      const handler = await options.areaHandler(match.route.area);
      return handler(
        {
          version: '2.0',
          routeKey: key,
          rawPath: url.pathname,
          rawQueryString,
          headers,
          queryStringParameters: Object.keys(queryStringParameters).length ? queryStringParameters : undefined,
          pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
          requestContext: {
            accountId: 'local', apiId: 'local', domainName, domainPrefix: domainName.split('.')[0]!, http,
            requestId, routeKey: key, stage: '$default', time: now.toUTCString(), timeEpoch: now.getTime(),
            ...(verdict.context ? { authorizer: { lambda: verdict.context } } : {}),
          },
          // HTTP APIs pass binary bodies base64-encoded; always doing so keeps every byte intact.
          body: body.length ? body.toString('base64') : undefined,
          isBase64Encoded: body.length > 0,
        } as unknown as APIGatewayProxyEventV2WithLambdaAuthorizer<AuthorizerContext>,
        lambdaContext(`mailplane-${match.route.area}`, API_AREA_TIMEOUT_MS, requestId),
      );
    });
    const payload = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
    // A reply to HEAD has no body but declares the GET's length (functions/platform/http/reply.ts).
    const length = method === 'HEAD' ? (result.headers?.['content-length'] ?? payload.length) : payload.length;
    res.writeHead(result.statusCode ?? 200, { ...(result.headers as Record<string, string>), 'content-length': String(length) });
    res.end(payload);
  };
}
