import { z } from 'zod/v3';
import { keyPart, pivotPageInput, skipLimitInput } from '../platform/http/paging';
import { atMost, boundedDocument, boundedText, flag, MAX_LENGTH, schema } from '../platform/http/params';
import { emailAddress } from '../suppressions/schemas';

/** Lists and members are keyed by address, lower-cased (path parameters arrive percent-decoded). */
const lowered = () => z.string().transform((value) => value.trim().toLowerCase());

/** A list's or member's `name`, `description`: free text, bounded so an item stays small. */
const label = (max: number) => z.preprocess((v) => (Array.isArray(v) ? v.at(-1) : v), atMost(max));

/**
 * `vars`: a JSON object, sent as a JSON string by every SDK (mailgun.js stringifies it) or as an
 * object inside a JSON body.
 */
const memberVars = () =>
  z.preprocess((value, ctx) => {
    const v = Array.isArray(value) ? value.at(-1) : value;
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a JSON object' });
      return z.NEVER;
    }
  }, boundedDocument(z.record(z.unknown(), { invalid_type_error: 'must be a JSON object' })));

/** access_level and reply_preference are checked by the rules (lists.ts), which word the refusal as Mailgun does. */
const listFields = () => ({
  name: label(MAX_LENGTH.name).optional(),
  description: label(MAX_LENGTH.description).optional(),
  access_level: boundedText(MAX_LENGTH.word).optional(),
  reply_preference: boundedText(MAX_LENGTH.word).optional(),
});

export const createListInput = schema(() => z.object({ address: boundedText(MAX_LENGTH.address), ...listFields() }));

export const updateListInput = schema(() => z.object({ list: lowered(), address: boundedText(MAX_LENGTH.address).optional(), ...listFields() }));

export const listPath = schema(() => z.object({ list: lowered() }));

export const listPagesInput = schema(() => pivotPageInput('address', 100, 1000));

export const listsInput = schema(() => z.object({ address: keyPart().transform((v) => v.trim().toLowerCase()).optional(), ...skipLimitInput(100, 1000) }));

export const memberPath = schema(() => z.object({ list: lowered(), member: lowered() }));

export const memberPagesInput = schema(() => z.object({ list: lowered(), subscribed: flag().optional() }).and(pivotPageInput('address', 100, 100)));

export const membersInput = schema(() =>
  z.object({ list: lowered(), address: keyPart().transform((v) => v.trim().toLowerCase()).optional(), subscribed: flag().optional(), ...skipLimitInput(100, 100) }),
);

const memberFields = () => ({ name: label(MAX_LENGTH.name).optional(), vars: memberVars().optional(), subscribed: flag().optional() });

export const createMemberInput = schema(() => z.object({ list: lowered(), address: emailAddress(), upsert: flag().default(false), ...memberFields() }));

export const updateMemberInput = schema(() => z.object({ list: lowered(), member: lowered(), address: emailAddress().optional(), ...memberFields() }));

/** One entry of a bulk upload: an address string, or a member object (`subscribed` defaults to true). */
export const bulkEntry = schema(() =>
  z.preprocess(
    (value) => (typeof value === 'string' ? { address: value } : value),
    z.object({ address: emailAddress(), name: label(MAX_LENGTH.name).optional(), vars: memberVars().optional(), subscribed: flag().optional() }, { invalid_type_error: 'must be an address or a member object' }),
  ),
);

export const bulkJsonInput = schema(() => z.object({ list: lowered(), members: z.unknown(), upsert: flag().default(false) }));

export const bulkCsvInput = schema(() => z.object({ list: lowered(), subscribed: flag().optional(), upsert: flag().default(false) }));
