import { z } from 'zod/v3';
import { flag, integer, list, text } from '../../../functions/platform/http/params';
import { openApiDocument, type DescribedRoute } from '../../../functions/platform/http/openapi';
import type { RouteSpec } from '../../../functions/platform/http/route';

const info = { title: 'Test', version: '1.0.0', description: 'test', license: { name: 'Apache-2.0' } };
const row = (route: Partial<RouteSpec> & Pick<RouteSpec, 'method' | 'path' | 'operation'>, input: z.ZodTypeAny): DescribedRoute => ({
  route: { area: 'things', access: 'read', ...route },
  input,
});

type Operation = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const operation = (rows: DescribedRoute[], path: string, method: string): Operation => openApiDocument(rows, info).paths[path]![method]!;

test('a GET row: its path parameters required, the rest of its schema as query parameters, and the read roles named', () => {
  const op = operation(
    [row({ method: 'GET', path: '/v3/{domain}/things', operation: 'listThings' }, z.object({ domain: text(), limit: integer().default(100), active: flag().optional(), tag: list() }))],
    '/v3/{domain}/things',
    'get',
  );
  expect(op).toMatchObject({ operationId: 'things-listThings', summary: 'List things', tags: ['things'], security: [{ basicAuth: [] }] });
  expect(op['parameters']).toEqual([
    { name: 'domain', in: 'path', required: true, schema: { type: 'string' } },
    { name: 'limit', in: 'query', required: false, schema: { type: 'integer', default: 100 } },
    { name: 'active', in: 'query', required: false, schema: { type: 'boolean' } },
    { name: 'tag', in: 'query', required: true, schema: { type: 'array', items: { type: 'string' } } },
  ]);
  expect(op['requestBody']).toBeUndefined();
  expect(op['description']).toContain('Needs an API key whose role grants `read`: admin, developer, support, basic.');
});

test('a POST row: a body offered as both form encodings and JSON, with its required fields; the path parameter stays in the path', () => {
  const op = operation(
    [row({ method: 'POST', path: '/v3/{domain}/things', operation: 'createThing', access: 'write' }, z.object({ domain: text(), name: text(), note: text().optional() }))],
    '/v3/{domain}/things',
    'post',
  );
  expect(op['parameters']).toEqual([{ name: 'domain', in: 'path', required: true, schema: { type: 'string' } }]);
  const body = { type: 'object', properties: { name: { type: 'string' }, note: { type: 'string' } }, required: ['name'] };
  expect(op['requestBody']).toMatchObject({
    required: true,
    content: { 'application/x-www-form-urlencoded': { schema: body }, 'multipart/form-data': { schema: body }, 'application/json': { schema: body } },
  });
});

test('an operation reading fields its schema does not list says so, and its body takes any field', () => {
  const op = operation([row({ method: 'POST', path: '/v3/{domain}/send', operation: 'send', access: 'send' }, z.object({ domain: text() }).passthrough())], '/v3/{domain}/send', 'post');
  expect(op['requestBody'].content['application/json'].schema).toEqual({ type: 'object', properties: {}, additionalProperties: true });
  expect(op['description']).toContain('also reads fields this reference does not list');
  const plain = operation([row({ method: 'PUT', path: '/v4/things/{id}/verify', operation: 'verify', access: 'write' }, z.object({ id: text() }))], '/v4/things/{id}/verify', 'put');
  expect(plain['requestBody']).toBeUndefined();
});

test('fields of merged and alternative schemas are all listed; a field is required only where every alternative requires it', () => {
  const paging = z.object({ limit: integer().optional() });
  const op = operation(
    [row({ method: 'GET', path: '/v1/things', operation: 'listThings' }, z.object({ q: text() }).and(paging).and(z.union([z.object({ a: text() }), z.object({ b: text() })])))],
    '/v1/things',
    'get',
  );
  expect(op['parameters'].map((p: Operation) => [p['name'], p['required']])).toEqual([
    ['q', true],
    ['limit', false],
    ['a', false],
    ['b', false],
  ]);
});

test('public rows need no key; replies that are not JSON objects say what they are; errors take the row\'s error field', () => {
  const rows = [
    row({ method: 'GET', path: '/c/{token}', operation: 'click', access: 'public', replies: [{ status: 302, description: 'A redirect.' }] }, z.object({ token: text() })),
    row({ method: 'GET', path: '/v2/things/{id}', operation: 'getThing', errorField: 'Reason' }, z.object({ id: text() })),
  ];
  const click = operation(rows, '/c/{token}', 'get');
  expect(click['security']).toEqual([]);
  expect(click['description']).toContain('Public: no API key');
  expect(click['responses']['302']).toEqual({ description: 'A redirect.' });
  expect(click['responses']['2XX']).toBeUndefined();
  const get = operation(rows, '/v2/things/{id}', 'get');
  expect(get['responses']['2XX'].content['application/json'].schema).toEqual({ type: 'object', additionalProperties: true });
  expect(get['responses']['4XX'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorWithReason' });
  expect(openApiDocument(rows, info)['components']).toMatchObject({ schemas: { ErrorWithReason: { required: ['message', 'Reason'] } } });
});

test('rows sharing an operation get distinct operation ids; greedy path variables become plain ones', () => {
  const input = z.object({ id: text() });
  const document = openApiDocument(
    [
      row({ method: 'GET', path: '/v1/things/{id}', operation: 'getThing' }, input),
      row({ method: 'GET', path: '/v2/things/{id}', operation: 'getThing' }, input),
      row({ method: 'GET', path: '/files/{id+}', operation: 'getFile' }, input),
    ],
    info,
  );
  expect([document.paths['/v1/things/{id}']!['get']!['operationId'], document.paths['/v2/things/{id}']!['get']!['operationId']]).toEqual(['things-getThing', 'things-getThing-2']);
  expect(Object.keys(document.paths)).toContain('/files/{id}');
});
