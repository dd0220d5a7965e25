import { z } from 'zod/v3';
import { domainName } from '../domains/schemas';
import { parseDateInput } from '../platform/dates';
import { keyPart, pivotPageInput } from '../platform/http/paging';
import { dropBlankFields, list, schema, text } from '../platform/http/params';
import { ALL_TAGS, type SuppressionList } from './lists';
import type { EntryRecord } from './suppression-store';

const MAX_BATCH = 1000;
const MAX_ERROR_TEXT = 4096;
const MAX_REASON = 1024;
const MAX_TAG = 256;
const MAX_CODE = 32;

// RFC 5322 dot-atom local part (VERP and sub-addressing use `=`, `+`, `/`) at a dotted host name.
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isEmailAddress(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at < 1 || value.length > 254) return false;
  const local = value.slice(0, at);
  return local.length <= 64 && LOCAL_PART.test(local) && HOST.test(value.slice(at + 1));
}

/**
 * A form string normalised and checked in one step: each zod effect costs time on every value, and
 * an import checks every row of a file of up to 25 MB, so fields keep their layers few.
 */
const checkedText = (message: string, check: (value: string) => boolean, normalise = (value: string) => value) =>
  text().transform((raw, ctx) => {
    const value = normalise(raw);
    if (check(value)) return value;
    ctx.addIssue({ code: z.ZodIssueCode.custom, message });
    return z.NEVER;
  });

/** An email address, trimmed and lower-cased: suppression lists match addresses case-insensitively. */
export const emailAddress = () => checkedText('must be a valid email address', isEmailAddress, (value) => value.trim().toLowerCase());

const boundedText = (max: number) => checkedText(`must be at most ${max} characters`, (value) => value.length <= max);

/** A record's schema, as one form or CSV row (validate() has dropped its blank fields). */
const form = <T extends z.ZodRawShape>(shape: T) => z.object(shape);

/** `created_at`: RFC 2822 (or RFC 3339, epoch seconds), kept as ISO; records default it to now. */
const createdAt = () =>
  text()
    .transform((value, ctx) => {
      const date = parseDateInput(value);
      if (date) return date.toISOString();
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a date in RFC 2822 format' });
      return z.NEVER;
    })
    .optional();

const now = () => new Date().toISOString();

/** mailgun.js types `code` as a number, the API and mailgun-go as a string: take both, keep a string. */
const bounceCode = () => z.preprocess((value) => (typeof value === 'number' ? String(value) : value), boundedText(MAX_CODE)).default('550');

export const bounceRecord = schema(() => form({
  address: emailAddress(),
  code: bounceCode(),
  error: boundedText(MAX_ERROR_TEXT).optional(),
  created_at: createdAt(),
}).transform(
  (input): EntryRecord<'bounces'> => ({
    list: 'bounces',
    address: input.address,
    code: input.code,
    error: input.error ?? '',
    createdAt: input.created_at ?? now(),
  }),
));

const complaintRecord = schema(() => form({
  address: emailAddress(),
  created_at: createdAt(),
}).transform((input): EntryRecord<'complaints'> => ({ list: 'complaints', address: input.address, createdAt: input.created_at ?? now() })));

const tagList = () => list().pipe(z.array(z.string().max(MAX_TAG, { message: `must be at most ${MAX_TAG} characters each` })));

/**
 * One form field `tag` (mailgun.js, the contract), `tags` (the OpenAPI form, JSON batches, CSV
 * column, possibly comma-separated), or both. No tag means every message (`*`).
 */
export const unsubscribeRecord = schema(() => form({
  address: emailAddress(),
  tag: tagList().optional(),
  tags: tagList().optional(),
  created_at: createdAt(),
}).transform((input): EntryRecord<'unsubscribes'> => {
  const tags = [...new Set([...(input.tag ?? []), ...(input.tags ?? [])])];
  return { list: 'unsubscribes', address: input.address, tags: tags.length ? tags : [ALL_TAGS], createdAt: input.created_at ?? now() };
}));

/** An allowlist entry names an address or a whole domain; the address wins when both come. */
export const allowlistRecord = schema(() => form({
  address: emailAddress().optional(),
  domain: domainName().optional(),
  reason: boundedText(MAX_REASON).optional(),
}).transform((input, ctx): EntryRecord<'whitelists'> => {
  const value = input.address ?? input.domain;
  if (value === undefined) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Missing mandatory parameter: address/domain' });
    return z.NEVER;
  }
  return {
    list: 'whitelists',
    type: input.address !== undefined ? 'address' : 'domain',
    address: value,
    reason: input.reason ?? '',
    createdAt: now(),
  };
}));

/** The one record shape per list, shared by the single form, JSON batches and CSV rows. */
export const RECORD_SCHEMAS: { [L in SuppressionList]: () => z.ZodType<EntryRecord<L>, z.ZodTypeDef, unknown> } = {
  bounces: bounceRecord,
  complaints: complaintRecord,
  unsubscribes: unsubscribeRecord,
  whitelists: allowlistRecord,
};

/** A JSON array of records, as mailgun.js always sends for bounces and complaints. */
export const batchOf = <L extends SuppressionList>(list: L) =>
  // validate() drops the blank fields of the request, not of each item of a JSON batch.
  z.array(z.preprocess(dropBlankFields, RECORD_SCHEMAS[list]())).max(MAX_BATCH, { message: `Batch size should be less than ${MAX_BATCH}` });

/** Path parameters are percent-decoded by the pipeline; suppression keys are lower-case. */
const lowered = () => z.string().transform((value) => value.trim().toLowerCase());

export const domainInput = schema(() => z.object({ domain: lowered() }));

export const entryInput = schema(() => z.object({ domain: lowered(), address: lowered() }));

export const deleteEntryInput = schema(() => z.object({ domain: lowered(), address: lowered(), tag: text().optional() }));

export const listInput = schema(() => z
  .object({
    domain: lowered(),
    term: keyPart()
      .transform((value) => value.trim().toLowerCase())
      .optional(),
  })
  .and(pivotPageInput('address', 100, 1000)));
