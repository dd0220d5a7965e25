import { z } from 'zod/v3';
import { pivotPageInput } from '../platform/http/paging';
import { flag, integer, oneOfValues, schema, text } from '../platform/http/params';

/** Mailgun's own ceiling on a tag's length (o:tag); longer names cannot exist, so they are refused. */
const MAX_TAG_LENGTH = 128;
const MAX_LIMIT_WITH_METRICS = 20;
const MAX_SKIP = 10_000;

const tagName = () => text().refine((value) => value.trim().length <= MAX_TAG_LENGTH, { message: `must be at most ${MAX_TAG_LENGTH} characters` });

/**
 * `sort` of POST /v1/analytics/tags: `<field>:<asc|desc>`. By name (a key range) or by last
 * sighting (gsi1); first sighting has no index, so it is refused rather than sorted in memory.
 */
const SORTS = ['tag:asc', 'tag:desc', 'lastseen:asc', 'lastseen:desc'] as const;
export type TagSort = (typeof SORTS)[number];

export const listAccountTagsInput = schema(() => z.object({
  pagination: z
    .object({
      sort: text()
        .transform((value) => value.trim().toLowerCase().replace('last_seen', 'lastseen'))
        .transform((value) => (value.includes(':') ? value : `${value}:asc`))
        .pipe(oneOfValues(SORTS, `must be one of ${SORTS.join(', ')}`))
        .optional(),
      // Bounded so one request reads at most MAX_SKIP + limit tags.
      skip: integer()
        .refine((n) => n >= 0 && n <= MAX_SKIP, { message: `must be between 0 and ${MAX_SKIP}` })
        .default(0),
      limit: integer()
        .refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' })
        .default(10),
      include_total: flag().default(false),
    })
    .default({}),
  include_subaccounts: flag().default(false),
  include_metrics: flag().default(false),
  /** A tag name prefix. */
  tag: tagName().optional(),
})
  // Mailgun: "When true max limit is 20".
  .refine((input) => !input.include_metrics || input.pagination.limit <= MAX_LIMIT_WITH_METRICS, {
    message: `must be at most ${MAX_LIMIT_WITH_METRICS} with include_metrics`,
    path: ['pagination', 'limit'],
  }));

export const accountTagInput = schema(() => z.object({ tag: tagName() }));

export const listDomainTagsInput = schema(() => z
  .object({ domain: z.string(), prefix: tagName().optional() })
  .and(pivotPageInput('tag', 100, 1000)));

export const domainTagInput = schema(() => z.object({ domain: z.string(), tag: tagName() }));

export const domainInput = schema(() => z.object({ domain: z.string() }));

/** Routes that take no parameters. */
export const noInput = schema(() => z.object({}));
