import { isIP } from 'node:net';
import { z } from 'zod/v3';
import { domainName } from '../../domains/schemas';
import { flag, integer, schema, text } from '../../platform/http/params';

/** Mailgun's GPT query: offset, limit and the time range (Unix seconds) are required on every listing. */
const rangeFields = () => ({
  offset: integer().refine((n) => n >= 0, { message: 'must not be negative' }),
  limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }),
  // Up to the year 9999: a time in milliseconds or microseconds is refused rather than read as a far future.
  timeRangeStart: integer().refine((n) => n >= 0 && n <= MAX_UNIX_SECONDS, { message: 'must be a Unix time in seconds' }),
  timeRangeEnd: integer().refine((n) => n >= 0 && n <= MAX_UNIX_SECONDS, { message: 'must be a Unix time in seconds' }),
  include_subaccounts: flag().optional(),
});

/** 9999-12-31T23:59:59Z. */
const MAX_UNIX_SECONDS = 253_402_300_799;

const endNotBeforeStart = (input: { timeRangeStart: number; timeRangeEnd: number }, ctx: z.RefinementCtx) => {
  if (input.timeRangeEnd < input.timeRangeStart) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['timeRangeEnd'], message: 'must not be before timeRangeStart' });
};

/** Summaries add sorting (`sortBy` a field of the summary's items, `orderBy` asc or desc) and a name filter. */
const summaryFields = () => ({
  sortBy: text().optional(),
  orderBy: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(['asc', 'desc'])).optional(),
  searchField: text().optional(),
});

export const rangeInput = schema(() => z.object(rangeFields()).superRefine(endNotBeforeStart));
export const domainRangeInput = schema(() => z.object({ domain: domainName(), ...rangeFields() }).superRefine(endNotBeforeStart));
export const addressRangeInput = schema(() =>
  z.object({ address: text().refine((a) => isIP(a) !== 0, { message: 'must be an IPv4 or IPv6 address' }), ...rangeFields() }).superRefine(endNotBeforeStart),
);
export const summaryInput = schema(() => z.object({ ...rangeFields(), ...summaryFields() }).superRefine(endNotBeforeStart));
export const complianceInput = schema(() => z.object({ domain: domainName(), include_subaccounts: flag().optional() }));
