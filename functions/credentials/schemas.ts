import { z } from 'zod/v3';
import { atMost, boundedText, flag, integer, MAX_LENGTH, schema } from '../platform/http/params';

/**
 * Every value of a repeatable form field, as strings (blank ones dropped). The rules (credentials.ts)
 * word the refusals of logins and passwords as Mailgun does; this bound only turns away values no
 * login or password could be.
 */
const repeated = () =>
  z.preprocess(
    (value) => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).filter((v) => v.trim() !== '')),
    z.array(atMost(MAX_LENGTH.reference)),
  );

/** Mailgun's paging of this list: skip and limit, whose cap it states in its own words (checked by the handler). */
export const listCredentialsInput = schema(() => z.object({
  name: z.string(),
  skip: integer()
    .refine((n) => n >= 0, { message: 'must not be negative' })
    .default(0),
  limit: integer()
    .refine((n) => n >= 1, { message: 'must be at least 1' })
    .default(100),
}));

export const MAX_CREDENTIALS_PAGE = 1000;

/** `login` (or `mailbox`) and `password` repeat, paired in order; `system` marks undeletable logins. */
export const createCredentialsInput = schema(() => z.object({
  name: z.string(),
  login: repeated(),
  mailbox: repeated(),
  password: repeated(),
  system: flag().default(false),
}));

export const changePasswordInput = schema(() => z.object({ name: z.string(), spec: z.string(), password: boundedText(MAX_LENGTH.reference).optional() }));

export const credentialPathInput = schema(() => z.object({ name: z.string(), spec: z.string() }));
