import type { Context } from 'aws-lambda';
import { z } from 'zod/v3';
import { BadRequest, Forbidden } from '../../../functions/platform/errors';
import { areaHandler, operation, type ApiEvent, type OnBehalfOf } from '../../../functions/platform/http/pipeline';

const routes = [
  { method: 'GET', path: '/v1/things/{id}', area: 'things', operation: 'getThing', access: 'public', head: true },
  { method: 'POST', path: '/v1/things', area: 'things', operation: 'makeThing', access: 'public' },
  { method: 'GET', path: '/v1/whoami', area: 'things', operation: 'whoAmI', access: 'read' },
  { method: 'DELETE', path: '/v1/whoami', area: 'things', operation: 'forgetMe', access: 'read', onBehalfOfAnyStatus: true },
] as const;

/** The account rule the areas pass in: `sub` is the caller's subaccount, `off` a disabled one. */
const asked: Array<{ accountId: string; anyStatus: boolean }> = [];
const onBehalfOf: OnBehalfOf = async (_principal, accountId, { anyStatus }) => {
  asked.push({ accountId, anyStatus });
  if (accountId === 'off' && !anyStatus) throw new Forbidden('Subaccount is disabled');
  return accountId;
};

/** Operations that have run to their end. */
let finished = 0;

const handler = areaHandler(routes, {
  getThing: operation(
    () => z.object({ id: z.string(), wait: z.coerce.number().default(0) }),
    async (_req, input) => {
      await new Promise((resolve) => setTimeout(resolve, input.wait));
      finished += 1;
      return { id: input.id };
    },
  ),
  makeThing: operation(
    () => z.object({}),
    async () => {
      throw new BadRequest('no things today');
    },
  ),
  whoAmI: operation(() => z.object({}), async (req) => ({ account: req.accountId })),
  forgetMe: operation(() => z.object({}), async (req) => ({ account: req.accountId })),
}, { onBehalfOf });

const event = (routeKey: string, path: Record<string, string>, rawQueryString = '') =>
  ({ routeKey, rawQueryString, headers: {}, pathParameters: path, requestContext: { requestId: 'r1', domainName: 'api.example.com' } }) as unknown as ApiEvent;

const context = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as Context;

test('an operation answers JSON, and an ApiError its own status and message', async () => {
  expect(await handler(event('GET /v1/things/{id}', { id: 'a%20b' }), context(10_000))).toMatchObject({ statusCode: 200, body: JSON.stringify({ id: 'a b' }) });
  expect(await handler(event('POST /v1/things', {}))).toMatchObject({ statusCode: 400, body: JSON.stringify({ message: 'no things today' }) });
  expect(await handler(event('GET /v1/nothing', {}))).toMatchObject({ statusCode: 404 });
});

test("HEAD of a row answering it (its own HEAD route on AWS) is the GET's status and headers with the length and no body", async () => {
  const head = (routeKey: string, path: Record<string, string>) => ({ ...event(routeKey, path), requestContext: { requestId: 'r1', domainName: 'api.example.com', http: { method: 'HEAD' } } }) as unknown as ApiEvent;
  const answer = await handler(head('HEAD /v1/things/{id}', { id: 'ü' }));
  expect(answer).toEqual({ statusCode: 200, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(JSON.stringify({ id: 'ü' }))) } });
  expect(await handler(head('HEAD /v1/whoami', {}))).toEqual({ statusCode: 404, headers: { 'content-type': 'application/json', 'content-length': expect.any(String) } });
});

test('a request still running just before the Lambda deadline is answered with a 500', async () => {
  const before = finished;
  const result = await handler(event('GET /v1/things/{id}', { id: 'x' }, 'wait=2000'), context(100));
  expect(result).toMatchObject({ statusCode: 500, body: JSON.stringify({ message: 'Internal Server Error' }) });
  // Answered at the deadline, while the operation was still running.
  expect(finished).toBe(before);
});

test('without a Lambda context there is no deadline', async () => {
  expect(await handler(event('GET /v1/things/{id}', { id: 'x' }, 'wait=150'))).toMatchObject({ statusCode: 200 });
});

test("through an area's greedy route the row is found from method and path, with its own path parameters", async () => {
  const greedy = (method: string, proxy: string) =>
    ({ routeKey: 'ANY /v1/things/{proxy+}', rawQueryString: '', headers: {}, pathParameters: { proxy }, requestContext: { requestId: 'r2', domainName: 'api.example.com', http: { method } } }) as unknown as ApiEvent;
  expect(await handler(greedy('GET', 'a%2Fb'))).toMatchObject({ statusCode: 200, body: JSON.stringify({ id: 'a/b' }) });
  // The row's method still counts, and a path under the prefix that is no row is not found.
  expect(await handler(greedy('DELETE', 'a'))).toMatchObject({ statusCode: 404 });
  expect(await handler(greedy('GET', 'a/b'))).toMatchObject({ statusCode: 404 });
});

test('X-Mailgun-On-Behalf-Of is resolved by the account rule the area passed in, with the route\'s allowance', async () => {
  const signedIn = (routeKey: string, headers: Record<string, string>) =>
    ({
      routeKey,
      rawQueryString: '',
      headers,
      pathParameters: {},
      requestContext: { requestId: 'r3', domainName: 'api.example.com', authorizer: { lambda: { accountId: 'parent', keyId: 'k', role: 'admin', kind: 'user' } } },
    }) as unknown as ApiEvent;
  expect(await handler(signedIn('GET /v1/whoami', {}))).toMatchObject({ statusCode: 200, body: JSON.stringify({ account: 'parent' }) });
  expect(await handler(signedIn('GET /v1/whoami', { 'X-Mailgun-On-Behalf-Of': 'parent' }))).toMatchObject({ statusCode: 200, body: JSON.stringify({ account: 'parent' }) });
  expect(asked).toEqual([]);
  expect(await handler(signedIn('GET /v1/whoami', { 'X-Mailgun-On-Behalf-Of': ' sub ' }))).toMatchObject({ statusCode: 200, body: JSON.stringify({ account: 'sub' }) });
  expect(await handler(signedIn('GET /v1/whoami', { 'X-Mailgun-On-Behalf-Of': 'off' }))).toMatchObject({ statusCode: 403, body: JSON.stringify({ message: 'Subaccount is disabled' }) });
  expect(await handler(signedIn('DELETE /v1/whoami', { 'X-Mailgun-On-Behalf-Of': 'off' }))).toMatchObject({ statusCode: 200, body: JSON.stringify({ account: 'off' }) });
  expect(asked).toEqual([
    { accountId: 'sub', anyStatus: false },
    { accountId: 'off', anyStatus: false },
    { accountId: 'off', anyStatus: true },
  ]);
});
