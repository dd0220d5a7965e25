import { z } from 'zod/v3';
import { byteLength, MAX_KEY_PART_BYTES } from '../data/key-limits';
import { pivotPageInput } from '../platform/http/paging';
import { boundedText, flag, MAX_LENGTH, oneOfValues, schema, text } from '../platform/http/params';
import { templateProblem } from './handlebars-dialect';
import { TEMPLATE_HEADER_NAMES, type TemplateHeaders } from './template-store';

/** Mailgun's documented ceiling on a template version's content. */
const MAX_TEMPLATE_BYTES = 100 * 1024;
const MAX_IDENTIFIER_LENGTH = 255;
/** RFC 5322's line limit, which a header value must fit in. */
const MAX_HEADER_LENGTH = 998;

/**
 * Template names and version tags: letters and digits in any script, plus `. - _ ~` (Mailgun's
 * documented alphabet; its newer docs add "supports utf-8 characters"). Both travel as path
 * segments, so no spaces or slashes. Mailgun lower-cases names; we lower-case tags too, as both
 * of its reference doubles do, so `v1` and `V1` are one version.
 */
const IDENTIFIER = /^[\p{L}\p{N}._~-]+$/u;

const identifier = () =>
  text()
    .transform((value) => value.trim().toLowerCase())
    .refine((value) => value.length <= MAX_IDENTIFIER_LENGTH, { message: `must be at most ${MAX_IDENTIFIER_LENGTH} characters` })
    // In bytes too (255 four-byte letters are 1020): a name must fit the path parameter that names it later.
    .refine((value) => byteLength(value) <= MAX_KEY_PART_BYTES, { message: `must be at most ${MAX_KEY_PART_BYTES} bytes` })
    .refine((value) => IDENTIFIER.test(value), { message: 'may contain only letters, digits and . - _ ~' });

/** A path segment naming a stored template or version: looked up lower-cased, never refused (unknown means 404). */
const pathIdentifier = () => z.string().transform((value) => value.trim().toLowerCase());

/** A template's description, a version's comment. */
const note = () => boundedText(MAX_LENGTH.note);

/** Version content: at most 100 KB, and valid in Mailgun's Handlebars dialect. */
const content = () =>
  text()
    .refine((value) => Buffer.byteLength(value) <= MAX_TEMPLATE_BYTES, { message: `must be at most ${MAX_TEMPLATE_BYTES / 1024} KB` })
    .superRefine((value, ctx) => {
      const problem = templateProblem(value);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    });

const engine = () =>
  text()
    .transform((value) => value.trim().toLowerCase())
    .pipe(oneOfValues(['handlebars'], 'only handlebars is supported'));

const CANONICAL_HEADER = new Map(TEMPLATE_HEADER_NAMES.map((name) => [name.toLowerCase(), name]));

/** A JSON object given as a form field's string (mailgun.js, curl) or as a JSON body member. */
function parseJsonObject(value: unknown): unknown {
  const raw = Array.isArray(value) ? value.at(-1) : value;
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Stored headers: only From, Subject and Reply-To, which Mailgun documents as "the only ones
 * currently supported". Any other name is refused rather than dropped, so a caller never believes
 * a header is stored that no message will carry. Names match in any case and are kept in their
 * canonical spelling; an empty value means the header is not set.
 */
const headers = () =>
  z.preprocess(parseJsonObject, z.record(z.unknown(), { invalid_type_error: 'must be a JSON object' })).transform((raw, ctx): TemplateHeaders => {
    const out: TemplateHeaders = {};
    for (const [name, value] of Object.entries(raw)) {
      const canonical = CANONICAL_HEADER.get(name.trim().toLowerCase());
      const problem = !canonical
        ? `only From, Subject and Reply-To are supported, not ${name}`
        : typeof value !== 'string'
          ? `the value of ${canonical} must be a string`
          : /[\r\n]/.test(value)
            ? `the value of ${canonical} must be a single line`
            : value.length > MAX_HEADER_LENGTH
              ? `the value of ${canonical} must be at most ${MAX_HEADER_LENGTH} characters`
              : templateProblem(value);
      if (problem) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
        return z.NEVER;
      }
      if ((value as string).trim() !== '') out[canonical!] = (value as string).trim();
    }
    return out;
  });

const domainPath = () => ({ domain: pathIdentifier() });
const templatePath = () => ({ ...domainPath(), name: pathIdentifier() });
const versionPath = () => ({ ...templatePath(), tag: pathIdentifier() });

/** Template and version lists: `page`, `limit` (default and maximum 100) and the pivot `p`. */
const pivotPage = () => pivotPageInput('p', 100, 100);

// Blank fields (an empty form value) are dropped before any of these sees a request: validate() in
// functions/platform/http/params.ts.
export const domainInput = schema(() => z.object(domainPath()));

export const listTemplatesInput = schema(() => z.object({ ...domainPath(), active: flag().optional() }).and(pivotPage()));

export const createTemplateInput = schema(() => z.object({
  ...domainPath(),
  name: identifier(),
  description: note().optional(),
  createdBy: note().optional(),
  // The first version, made only when `template` is given.
  template: content().optional(),
  tag: identifier().optional(),
  comment: note().optional(),
  engine: engine().optional(),
  headers: headers().optional(),
}));

export const templateInput = schema(() => z.object(templatePath()));

export const getTemplateInput = schema(() => z.object({ ...templatePath(), active: flag().optional() }));

export const updateTemplateInput = schema(() => z.object({ ...templatePath(), description: note().optional() }));

export const listVersionsInput = schema(() => z.object(templatePath()).and(pivotPage()));

export const createVersionInput = schema(() => z.object({
  ...templatePath(),
  template: content(),
  tag: identifier(),
  comment: note().optional(),
  engine: engine().optional(),
  active: flag().optional(),
  headers: headers().optional(),
}));

export const versionInput = schema(() => z.object(versionPath()));

export const updateVersionInput = schema(() => z.object({
  ...versionPath(),
  template: content().optional(),
  comment: note().optional(),
  active: flag().optional(),
  headers: headers().optional(),
}));

export const copyVersionInput = schema(() => z.object({ ...versionPath(), new_tag: identifier(), comment: note().optional() }));
