import { z } from 'zod/v3';
import { parseDateInput } from '../platform/dates';
import { BadRequest } from '../platform/errors';
import { flag, integer, schema, text } from '../platform/http/params';
import { FILTER_FIELDS, parseExpression, type Expression, type FilterField } from './filters';

/**
 * A position in an events listing, carried in the page URLs as an opaque token (the last path
 * segment, as mailgun.js requires). `to` undefined means "up to now, whenever asked", so
 * following `next` on an ascending listing keeps yielding new events (polling).
 */
export interface EventsCursor {
  from: number;
  to?: number;
  ascending: boolean;
  limit: number;
  filters: Partial<Record<FilterField, string>>;
  /** Resume strictly after this sort key (in reading order). */
  position?: string;
  /** Read towards the start: a `previous` page, shown in the listing's own order. */
  backward?: boolean;
}

const MAX_LIMIT = 300;

export const listEventsInput = schema(() => z
  .object({
    begin: text().optional(),
    end: text().optional(),
    ascending: flag().optional(),
    limit: integer()
      .refine((n) => n >= 1 && n <= MAX_LIMIT, { message: `must be between 1 and ${MAX_LIMIT}` })
      .default(100),
  })
  .passthrough());

function instant(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const date = parseDateInput(value);
  if (!date) throw new BadRequest(`Invalid parameter '${name}': expected an RFC 2822 date or epoch seconds`);
  return date.getTime();
}

/** Turns the first request's query into a cursor, with Mailgun's rules for begin, end and ascending. */
export function cursorFromQuery(input: z.infer<ReturnType<typeof listEventsInput>>, retentionDays: number, now = Date.now()): EventsCursor {
  const begin = instant('begin', input.begin);
  const end = instant('end', input.end);
  if (begin !== undefined && end !== undefined && input.ascending !== undefined && input.ascending !== end >= begin) {
    throw new BadRequest("'ascending' contradicts the order of 'begin' and 'end'");
  }
  const ascending = begin !== undefined && end !== undefined ? end >= begin : (input.ascending ?? false);
  const oldest = now - retentionDays * 86_400_000;
  const [low, high] = begin !== undefined && end !== undefined ? [Math.min(begin, end), Math.max(begin, end)] : [begin ?? oldest, end];
  const filters: Partial<Record<FilterField, string>> = {};
  for (const field of FILTER_FIELDS) {
    const raw = (input as Record<string, unknown>)[field];
    const value = Array.isArray(raw) ? raw.map(String).join(' ') : raw === undefined ? undefined : String(raw);
    if (value !== undefined && value.trim() !== '') {
      parseExpression(field, value);
      filters[field] = value;
    }
  }
  // A descending listing without an end starts now; an ascending one stays open for polling.
  return { from: low, to: high ?? (ascending ? undefined : now), ascending, limit: input.limit, filters };
}

export function encodeCursor(cursor: EventsCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/**
 * A token comes back from the client, so it is checked like any other input: a forged one with a
 * limit of a billion, a position as long as a key can be, or filters that are not strings would
 * otherwise reach the reader.
 */
const cursorShape = schema((): z.ZodType<EventsCursor, z.ZodTypeDef, unknown> => z.object({
  from: z.number().finite(),
  to: z.number().finite().optional(),
  ascending: z.boolean(),
  limit: z.number().int().min(1).max(MAX_LIMIT),
  filters: z.record(z.enum(FILTER_FIELDS), z.string()).default({}),
  // An event's sort key: 13 digits, `#` and a 22-character id.
  position: z.string().max(64).optional(),
  backward: z.boolean().optional(),
}));

export function decodeCursor(token: string): EventsCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new BadRequest('Invalid page token');
  }
  const cursor = cursorShape().safeParse(parsed);
  if (!cursor.success) throw new BadRequest('Invalid page token');
  return cursor.data;
}

export function parsedFilters(cursor: EventsCursor): Partial<Record<FilterField, Expression>> {
  return Object.fromEntries(Object.entries(cursor.filters).map(([field, text]) => [field, parseExpression(field, text!)]));
}
