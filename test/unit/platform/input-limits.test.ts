import { z } from 'zod/v3';
import { validate } from '../../../functions/platform/http/params';
import type { AreaHandler } from '../../../functions/platform/http/pipeline';
import { routeKey, type RouteSpec } from '../../../functions/platform/http/route';
import { routes } from '../../../functions/routes';

/**
 * Every field a writing route (POST, PUT, PATCH) takes has a maximum length, checked by the route's
 * input schema before anything is stored: a 1 MB pool name once reached DynamoDB, which refused the
 * item (a 500), and 400,000 characters fitted and were stored. Walks functions/routes.ts, so a new
 * route or field is held to it too. The limits are listed in the README ("Field lengths").
 *
 * Each field is offered, alone, a string longer than any free-text limit (also shaped as a URL and
 * as an address), that string repeated (a list), and a JSON object holding it (fields that take
 * JSON documents): none may get through. Path parameters are bounded before validation
 * (path-params.ts).
 */
const OVERSIZED = 'x'.repeat(64 * 1024 + 1);
const PROBES: Array<[string, unknown]> = [
  ['a string of 64 KB', OVERSIZED],
  // Shaped as fields with a format expect, so that a format check alone does not pass for a bound.
  ['an http URL of 64 KB', `https://example.com/${OVERSIZED}`],
  ['an address of 64 KB', `${OVERSIZED}@example.com`],
  ['a repeated string of 64 KB', [OVERSIZED, OVERSIZED]],
  ['a JSON object holding 64 KB', { key: OVERSIZED }],
  ['a JSON document of 64 KB, as text', JSON.stringify({ key: OVERSIZED })],
];

/**
 * Email content, not free text: read into S3 or parsed, never stored in an item, and bounded in
 * bytes by its reader with a 413 (inspection sources at 5 MiB, an upload by the request size).
 */
const CONTENT: Record<string, string> = {
  'POST /v1/inspect/links/html-validate html': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/inspect/links/html-validate mime': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/inspect/images/html-validate html': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/inspect/images/html-validate mime': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/inspect/analyze html': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/inspect/analyze mime': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/inspect/analyze/{test_id} html': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/inspect/analyze/{test_id} mime': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/preview/tests html': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/preview/tests mime': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v2/preview/tests html': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v2/preview/tests mime': 'MAX_HTML_BYTES, inspect-input.ts; kept in S3',
  'POST /v1/inspect/images/upload image': 'the uploaded file itself (image-upload.ts)',
  'POST /v1/inspect/images links': 'image URLs, data: URLs among them, at most MAX_IMAGES; kept in S3',
  'POST /v4/inbox/tests html': 'the body of the messages sent, as POST /messages takes it; results keep MAX_BODY_CHARS of it',
  'POST /v3/{domain}/templates template': 'MAX_TEMPLATE_BYTES, 100 KB (templates/schemas.ts)',
  'POST /v3/{domain}/templates/{name}/versions template': 'MAX_TEMPLATE_BYTES, 100 KB (templates/schemas.ts)',
  'PUT /v3/{domain}/templates/{name}/versions/{tag} template': 'MAX_TEMPLATE_BYTES, 100 KB (templates/schemas.ts)',
  'POST /v3/lists/{list}/members.json members': 'up to 1,000 entries, each checked by bulkEntry (lists/bulk.ts)',
};

/**
 * The fields an input schema reads, through effects, optionals, intersections and unions, and
 * inside the objects it holds (`settings.url`), each with the schema that checks it.
 */
function fieldsOf(schema: z.ZodTypeAny): Array<[string, z.ZodTypeAny]> {
  if (schema instanceof z.ZodObject) {
    return Object.entries(schema.shape as Record<string, z.ZodTypeAny>).flatMap(([name, field]): Array<[string, z.ZodTypeAny]> => [
      [name, field],
      ...fieldsOf(field).map(([inner, check]): [string, z.ZodTypeAny] => [`${name}.${inner}`, check]),
    ]);
  }
  if (schema instanceof z.ZodEffects) return fieldsOf(schema.innerType());
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) return fieldsOf(schema._def.innerType);
  if (schema instanceof z.ZodPipeline) return fieldsOf(schema._def.in);
  if (schema instanceof z.ZodIntersection) return [...fieldsOf(schema._def.left), ...fieldsOf(schema._def.right)];
  if (schema instanceof z.ZodUnion || schema instanceof z.ZodDiscriminatedUnion) return (schema.options as z.ZodTypeAny[]).flatMap(fieldsOf);
  return [];
}

function inputOf(route: RouteSpec): z.ZodTypeAny {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- each area's Lambda entry, as the route table names it
  const { handler } = require(`../../../functions/${route.area}/handler`) as { handler: AreaHandler };
  return handler.inputOf(route) as z.ZodTypeAny;
}

const pathParams = (route: RouteSpec) => [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]!);

const writing = routes.filter((route) => route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH');
const fields = writing.flatMap((route) =>
  fieldsOf(inputOf(route))
    .filter(([field]) => !pathParams(route).includes(field) && !CONTENT[`${routeKey(route)} ${field.split('.')[0]}`])
    .map(([field, schema]) => [`${routeKey(route)} ${field}`, schema] as const),
);

test('finds the fields of the writing routes', () => {
  expect(fields.length).toBeGreaterThan(250);
  expect(fields.map(([name]) => name)).toEqual(expect.arrayContaining(['POST /v3/ip_pools name', 'POST /v3/ip_pools description', 'POST /v3/lists description']));
});

/** What the operation would be handed, were the value accepted: refused, or cut down to size, it is not stored. */
const getsThrough = (schema: z.ZodTypeAny, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success && JSON.stringify(result.data ?? null).length > OVERSIZED.length;
};

test.each(fields)('%s refuses a value beyond its maximum', (_, schema) => {
  expect(PROBES.filter(([, value]) => getsThrough(schema, value)).map(([what]) => what)).toEqual([]);
});

test('answers an oversized pool name with a 400 naming the field and its limit', () => {
  const route = routes.find((r) => routeKey(r) === 'POST /v3/ip_pools')!;
  expect(() => validate(inputOf(route), { name: 'x'.repeat(1024 * 1024), description: 'd' })).toThrow("Invalid parameter 'name': must be at most 256 characters");
});
