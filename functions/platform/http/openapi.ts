import type { z } from 'zod/v3';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { grants, roles, type Access } from '../access';
import type { ErrorField } from '../errors';
import type { RouteSpec } from './route';

/** A row of the route table with the schema its operation validates (path, query and body merged). */
export interface DescribedRoute {
  route: RouteSpec;
  input: z.ZodTypeAny;
}

export interface ApiInfo {
  title: string;
  version: string;
  description: string;
  license: { name: string; url?: string };
}

type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, JsonSchema>> };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Every body may come as a form (both encodings) or as JSON: the request pipeline parses all three
 * on every route (functions/platform/http/body.ts), so the reference offers all three.
 */
const BODY_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'];

/** A schema as JSON Schema in OpenAPI 3.0's dialect, as it reads its input (before preprocessing). */
function jsonSchemaOf(schema: z.ZodTypeAny): JsonSchema {
  const converted = zodToJsonSchema(schema, {
    target: 'openApi3',
    effectStrategy: 'input',
    $refStrategy: 'none',
    // Only `.strict()` objects refuse unknown fields; the others ignore them (or read them on their own).
    removeAdditionalStrategy: 'strict',
    allowedAdditionalProperties: undefined,
  }) as JsonSchema;
  delete converted['$schema'];
  return converted;
}

interface Field {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/** The named fields of an object schema, through the `allOf`/`anyOf` that merged and alternative inputs produce. */
function fieldsOf(schema: JsonSchema): Field[] {
  const fields = new Map<string, Field>();
  const visit = (node: JsonSchema, requiredHere: boolean) => {
    const properties = node['properties'] as Record<string, JsonSchema> | undefined;
    const required = new Set((node['required'] as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(properties ?? {})) {
      const known = fields.get(name);
      const isRequired = requiredHere && required.has(name);
      fields.set(name, { name, schema: known?.schema ?? property, required: (known?.required ?? false) || isRequired });
    }
    for (const part of (node['allOf'] as JsonSchema[] | undefined) ?? []) visit(part, requiredHere);
    // One of several shapes: a field is required only where every shape requires it, which no
    // single shape's list says, so none is marked required here.
    for (const part of [...((node['anyOf'] as JsonSchema[] | undefined) ?? []), ...((node['oneOf'] as JsonSchema[] | undefined) ?? [])]) visit(part, false);
  };
  visit(schema, true);
  return [...fields.values()];
}

/** Whether the operation reads fields its schema does not list (`.passthrough()`: send options, `h:`/`v:` fields, ...). */
function readsUnlistedFields(schema: z.ZodTypeAny): boolean {
  const def = schema._def as { typeName?: string; unknownKeys?: string; schema?: z.ZodTypeAny; left?: z.ZodTypeAny; right?: z.ZodTypeAny; innerType?: z.ZodTypeAny; in?: z.ZodTypeAny };
  if (def.typeName === 'ZodObject') return def.unknownKeys === 'passthrough';
  const inner = [def.schema, def.innerType, def.in, def.left, def.right].filter((s): s is z.ZodTypeAny => s !== undefined);
  return inner.some(readsUnlistedFields);
}

/** API Gateway's greedy `{name+}` is a plain path parameter to OpenAPI. */
const templateOf = (path: string) => path.replace(/\{(\w+)\+\}/g, '{$1}');
const pathParamsOf = (path: string) => [...path.matchAll(/\{(\w+)\+?\}/g)].map((match) => match[1]!);

/** `listTemplates` -> `List templates`; `bounces.list` -> `Bounces list`. */
function summaryOf(operation: string): string {
  const words = operation.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[._]/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function accessText(access: Access): string {
  if (access === 'public') return 'Public: no API key. The token or share id in the path, when there is one, is the credential.';
  const allowed = roles.filter((role) => grants[role].includes(access));
  return `Needs an API key whose role grants \`${access}\`: ${allowed.join(', ')}.`;
}

const ERROR_SCHEMAS: Record<ErrorField, string> = { message: 'Error', Reason: 'ErrorWithReason', Description: 'ErrorWithDescription' };

function errorComponents(): Record<string, JsonSchema> {
  const error = (extra?: ErrorField): JsonSchema => ({
    type: 'object',
    description: extra
      ? `What was wrong, in \`${extra}\` as Mailgun answers on this route, and in \`message\` too.`
      : 'What was wrong, in one sentence.',
    properties: { message: { type: 'string' }, ...(extra ? { [extra]: { type: 'string' } } : {}) },
    required: ['message', ...(extra ? [extra] : [])],
  });
  return { Error: error(), ErrorWithReason: error('Reason'), ErrorWithDescription: error('Description') };
}

function replies(route: RouteSpec): Record<string, JsonSchema> {
  const success: Record<string, JsonSchema> = route.replies
    ? Object.fromEntries(
        route.replies.map((reply) => [
          String(reply.status),
          { description: reply.description, ...(reply.contentType ? { content: { [reply.contentType]: { schema: reply.contentType === 'application/json' ? { type: 'object' } : { type: 'string', format: 'binary' } } } } : {}) },
        ]),
      )
    : {
        '2XX': {
          description:
            'A JSON object (200 unless Mailgun answers otherwise: 201, 202 or 204 on a few routes). This reference does not list its fields: the reply is written by the area\'s code (its present.ts where it has one), not from a schema.',
          content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
        },
      };
  const error = { $ref: `#/components/schemas/${ERROR_SCHEMAS[route.errorField ?? 'message']}` };
  return {
    ...success,
    '4XX': { description: 'Refused: bad input (400), no or a wrong key (401), a role or domain the key may not act on (403), not found (404), and the like. Nothing was changed.', content: { 'application/json': { schema: error } } },
  };
}

function operationOf({ route, input }: DescribedRoute, operationId: string): JsonSchema {
  const schema = jsonSchemaOf(input);
  const pathNames = pathParamsOf(route.path);
  const fields = fieldsOf(schema);
  const byName = new Map(fields.map((field) => [field.name, field]));
  const parameters: JsonSchema[] = pathNames.map((name) => ({ name, in: 'path', required: true, schema: byName.get(name)?.schema ?? { type: 'string' } }));
  const rest = fields.filter((field) => !pathNames.includes(field.name));
  const unlisted = readsUnlistedFields(input);
  const notes = [accessText(route.access)];
  if (unlisted) notes.push('The operation also reads fields this reference does not list (it reads them from the request itself); the guide in docs/ names them.');
  let requestBody: JsonSchema | undefined;
  if (BODY_METHODS.has(route.method)) {
    if (rest.length || unlisted) {
      const body: JsonSchema = {
        type: 'object',
        properties: Object.fromEntries(rest.map((field) => [field.name, field.schema])),
        ...(rest.some((field) => field.required) ? { required: rest.filter((field) => field.required).map((field) => field.name) } : {}),
        ...(unlisted ? { additionalProperties: true } : {}),
      };
      requestBody = {
        required: rest.some((field) => field.required),
        description: 'A form (either encoding; repeat a field to give several values) or a JSON object. Each field may also be given in the query string; the body wins.',
        content: Object.fromEntries(BODY_TYPES.map((type) => [type, { schema: body }])),
      };
    }
  } else {
    for (const field of rest) parameters.push({ name: field.name, in: 'query', required: field.required, schema: field.schema });
  }
  return {
    operationId,
    tags: [route.area],
    summary: summaryOf(route.operation),
    description: notes.join('\n\n'),
    security: route.access === 'public' ? [] : [{ basicAuth: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: replies(route),
  };
}

/**
 * The OpenAPI 3.0 document of a route table: one operation per row, its parameters and body from
 * the zod schema its operation validates, its security from the row's access, its error replies
 * in the row's error shape. Nothing here is written per route.
 */
export function openApiDocument(rows: readonly DescribedRoute[], info: ApiInfo): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const used = new Map<string, number>();
  for (const row of rows) {
    // Letters, digits and hyphens: renderers put the id in URLs and element ids.
    const base = `${row.route.area}-${row.route.operation}`.replace(/\W+/g, '-');
    // Several rows may share an operation (Mailgun's older and newer paths for one thing).
    const seen = used.get(base) ?? 0;
    used.set(base, seen + 1);
    const item = (paths[templateOf(row.route.path)] ??= {});
    item[row.route.method.toLowerCase()] = operationOf(row, seen ? `${base}-${seen + 1}` : base);
  }
  const tags = [...new Set(rows.map((row) => row.route.area))].map((name) => ({ name }));
  return {
    openapi: '3.0.3',
    info,
    // Relative: the document describes whichever host serves it (either region, a custom domain).
    servers: [{ url: '/', description: 'The host serving this document' }],
    tags,
    paths,
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'User name `api`, password an API key (as Mailgun\'s SDKs send it).' },
      },
      schemas: errorComponents(),
    },
  };
}
