import { z } from 'zod/v3';
import { parseDateInput } from '../dates';
import { BadRequest } from '../errors';

/**
 * A schema built on its first use, then kept: how a schema is declared at module level, so that
 * loading the module builds nothing (see operation() in pipeline.ts for why).
 *
 *   export const createDomainInput = schema(() => z.object({ name: domainName(), ... }));
 *   validate(createDomainInput(), params);
 */
export function schema<S extends z.ZodTypeAny>(build: () => S): () => S {
  let built: S | undefined;
  return () => (built ??= build());
}

/**
 * zod building blocks for form parameters. Every form value arrives as a string (or an array of
 * strings when repeated); these accept that and JSON's native types alike.
 */
const last = (value: unknown) => (Array.isArray(value) ? value[value.length - 1] : value);

const blankToUndefined = (value: unknown) => {
  const v = last(value);
  return typeof v === 'string' && v.trim() === '' ? undefined : v;
};

/** A single string; a repeated field keeps its last value; empty means absent. */
export const text = () => z.preprocess(blankToUndefined, z.string());

/** A time as Unix seconds or a date string (parseDateInput), in epoch milliseconds; `message` says what the route takes. */
export const instant = (message: string) =>
  text().transform((value, ctx) => {
    const date = parseDateInput(value);
    if (!date) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message });
      return z.NEVER;
    }
    return date.getTime();
  });

/** A time bound as clients send dates (Unix seconds, RFC 3339, RFC 2822), as ISO for keys that start with their time. */
export const isoInstant = () => instant('must be Unix seconds or an RFC 3339 time').transform((ms) => new Date(ms).toISOString());

/** yes/no/true/false in any case, or a JSON boolean. */
export const flag = () =>
  z.preprocess((value) => {
    const v = blankToUndefined(value);
    if (typeof v !== 'string') return v;
    const lower = v.trim().toLowerCase();
    if (lower === 'yes' || lower === 'true') return true;
    if (lower === 'no' || lower === 'false') return false;
    return v;
  }, z.boolean({ invalid_type_error: 'must be one of yes, no, true or false' }));

/**
 * An integer given as a number or a decimal string. Beyond 2^53 a number is no longer exact (and
 * 1e308 still counts as an integer to JavaScript), so such values are refused here, once, rather
 * than reaching dates and counters that cannot hold them.
 */
export const integer = () =>
  z.preprocess(
    (value) => {
      const v = blankToUndefined(value);
      return typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
    },
    z
      .number({ invalid_type_error: 'must be an integer' })
      .int({ message: 'must be an integer' })
      .refine(Number.isSafeInteger, { message: 'is out of range' }),
  );

/** Repeated fields, comma-separated values, or a JSON array, flattened to trimmed strings. */
export const list = () =>
  z.preprocess((value) => {
    if (value === undefined || value === null) return undefined;
    const items = (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
    const cleaned = items.map((v) => (typeof v === 'string' ? v.trim() : v)).filter((v) => v !== '');
    return cleaned.length ? cleaned : undefined;
  }, z.array(z.string()));

/**
 * The longest value each kind of field takes, in characters (the README's "Field lengths" lists
 * them): checked by the input schemas, before anything is stored, so that no request can make an
 * item outgrow DynamoDB's 400 KB (a 500) and a refusal names the field.
 */
export const MAX_LENGTH = {
  /** A name given to something: an IP pool, a list or member, a subaccount, a project, a team. */
  name: 256,
  /** A description of something. */
  description: 1024,
  /** A note, a reason, a comment: a short paragraph. */
  note: 4096,
  /** An email address (RFC 5321's path, less its brackets). */
  address: 254,
  /** A host name (RFC 1035). */
  host: 253,
  /** An IP address, or a CIDR block (the longest IPv6 form with a prefix fits). */
  ip: 64,
  /** A URL the platform fetches or posts to. */
  url: 2048,
  /** A header's value, a subject or a From: one line (RFC 5322). */
  headerLine: 998,
  /** A password, an app password or an access token. */
  secret: 4096,
  /** A name or id that points at something stored (a pool, a test, a login, a template). */
  reference: 256,
  /** A word from a fixed set or a short token (an event type, a client id, an encoding, a date). */
  word: 256,
  /** A page token this server issued. */
  token: 4096,
  /** A JSON object of variables or headers, as JSON text. */
  document: 16 * 1024,
} as const;

/** A string of at most `max` characters (a JSON body's field: arrays are not flattened). */
export const atMost = (max: number) => z.string().max(max, { message: `must be at most ${max} characters` });

/** text() of at most `max` characters. */
export const boundedText = (max: number) => text().pipe(atMost(max));

/** A JSON object (parsed already) whose JSON text is at most MAX_LENGTH.document characters. */
export const boundedDocument = <S extends z.ZodTypeAny>(object: S) =>
  object.refine((value) => JSON.stringify(value).length <= MAX_LENGTH.document, { message: `must be at most ${MAX_LENGTH.document} characters as JSON` });

/** list() of values of at most `max` characters each; at most `count` of them, unless the rules count them in their own words. */
export function boundedList(max: number, count?: number) {
  const values = z.array(z.string().max(max, { message: `must be at most ${max} characters each` }));
  return list().pipe(count === undefined ? values : values.max(count, { message: `must be at most ${count} values` }));
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function describe(issue: z.ZodIssue, input: unknown): string {
  const name = issue.path.map(String).join('.');
  if (!name) return issue.message;
  if (isBlank(valueAt(input, issue.path))) return `Missing parameter '${name}'`;
  return `Invalid parameter '${name}': ${issue.message}`;
}

/** An enum whose refusal names the allowed values (or says `message`). */
export function oneOfValues<const T extends readonly [string, ...string[]]>(values: T, message = `must be one of ${values.join(', ')}`) {
  return z.enum(values as unknown as [T[number], ...T[number][]], { errorMap: () => ({ message }) });
}

/**
 * Blank fields mean absent: SDKs send `subject=""`, OpenAPI batches `"code": ""` and `"tags": []`,
 * an empty page ends in `address=`. Dropped before validation, since zod's `.optional()` looks for
 * undefined before a field's own preprocessing could turn a blank into it.
 */
export function dropBlankFields(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const blank = (field: unknown) =>
    (typeof field === 'string' && field.trim() === '') || (Array.isArray(field) && field.every((item) => typeof item === 'string' && item.trim() === ''));
  return Object.fromEntries(Object.entries(value).filter(([, field]) => !blank(field)));
}

/** Validates with a Mailgun-style message: one sentence about the first problem found. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const cleaned = dropBlankFields(input);
  const result = schema.safeParse(cleaned);
  if (!result.success) throw new BadRequest(describe(result.error.issues[0]!, cleaned));
  return result.data;
}
