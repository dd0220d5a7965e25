import { z } from 'zod/v3';
import { durationBefore, parseDateInput } from '../platform/dates';
import { BadRequest } from '../platform/errors';
import { boundedList, boundedText, flag, integer, MAX_LENGTH, oneOfValues, schema, text } from '../platform/http/params';
import { filterInput } from './filter';

/** The OpenAPI's ceiling on a logs page. */
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;
const DAY_MS = 86_400_000;

const SORTS = ['timestamp:asc', 'timestamp:desc'] as const;
/** More event names than there are event types, each named once. */
const MAX_EVENT_NAMES = 100;

export const logsInput = schema(() => z.object({
  start: boundedText(MAX_LENGTH.word).optional(),
  end: boundedText(MAX_LENGTH.word).optional(),
  duration: boundedText(MAX_LENGTH.word).optional(),
  events: boundedList(MAX_LENGTH.word, MAX_EVENT_NAMES).optional(),
  metric_events: boundedList(MAX_LENGTH.word, MAX_EVENT_NAMES).optional(),
  filter: filterInput().optional(),
  include_subaccounts: flag().default(false),
  include_totals: flag().default(false),
  pagination: z
    .object({
      sort: text()
        .transform((value) => value.trim().toLowerCase())
        .transform((value) => (value.includes(':') ? value : `${value}:asc`))
        .pipe(oneOfValues(SORTS, `must be one of ${SORTS.join(', ')}`))
        .optional(),
      token: boundedText(MAX_LENGTH.token).optional(),
      limit: integer()
        .refine((n) => n >= 1 && n <= MAX_LIMIT, { message: `must be between 1 and ${MAX_LIMIT}` })
        .default(DEFAULT_LIMIT),
    })
    .default({}),
}));
export type LogsInput = z.infer<ReturnType<typeof logsInput>>;

function instant(name: string, value: string): number {
  const date = parseDateInput(value);
  if (!date) throw new BadRequest(`Invalid parameter '${name}': expected an RFC 2822 date`);
  return date.getTime();
}

/** `1d`, `2h`, `3m` (months, as Mailgun's duration syntax has it) back from `end`. */
function durationStart(duration: string, end: number): number {
  const start = durationBefore(duration, end);
  if (start === undefined) throw new BadRequest("Invalid parameter 'duration': expected a number followed by h, d or m, such as 1d or 2h");
  return start;
}

/** Start and end in ms: end defaults to now, start to a day before it; a duration overrides start. */
export function timeRange(input: LogsInput, now = Date.now()): { start: number; end: number } {
  const end = input.end === undefined ? now : instant('end', input.end);
  const start = input.duration !== undefined ? durationStart(input.duration, end) : input.start === undefined ? end - DAY_MS : instant('start', input.start);
  if (!Number.isFinite(start) || Number.isNaN(new Date(start).getTime())) throw new BadRequest("Invalid parameter 'duration': the window is out of range");
  if (start > end) throw new BadRequest("Invalid parameter 'start': must not be after 'end'");
  return { start, end };
}

/** RFC 2822 as Mailgun writes it in logs replies (`Mon, 08 Jul 2024 00:00:00 -0000`). */
export function rfc2822(ms: number): string {
  return `${new Date(ms).toUTCString().slice(0, 25)} -0000`;
}

/**
 * A page position, as the opaque tokens of `pagination` carry it: after (or, backward, before) a
 * sort key, in the listing's order. The same position always encodes to the same token.
 */
export interface LogsToken {
  ascending: boolean;
  backward?: boolean;
  position?: string;
}

export function encodeToken(token: LogsToken): string {
  return Buffer.from(JSON.stringify({ a: token.ascending ? 1 : 0, ...(token.backward ? { b: 1 } : {}), ...(token.position ? { p: token.position } : {}) })).toString('base64url');
}

export function decodeToken(raw: string): LogsToken {
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { a?: unknown; b?: unknown; p?: unknown };
    if ((parsed.a !== 0 && parsed.a !== 1) || (parsed.p !== undefined && (typeof parsed.p !== 'string' || !/^\d{13}#/.test(parsed.p)))) throw new Error('shape');
    return { ascending: parsed.a === 1, backward: parsed.b === 1, ...(parsed.p !== undefined ? { position: parsed.p as string } : {}) };
  } catch {
    throw new BadRequest("Invalid parameter 'pagination.token': not a token this server issued");
  }
}
