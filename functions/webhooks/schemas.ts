import { z } from 'zod/v3';
import { atMost, boundedList, boundedText, MAX_LENGTH, schema, text } from '../platform/http/params';

/**
 * Inputs of the webhook routes. Names and URLs are checked by the operations (names.ts,
 * url-policy.ts) so the refusals can use Mailgun's wording; here only their length.
 */
/** More values than any valid request carries; a bound on work per request. */
const MAX_VALUES = 20;

/**
 * URLs as repeated fields (or a JSON array), not split on commas: a comma is legal in a URL.
 * Blank values are dropped; at least one must remain.
 */
const urls = () =>
  z.preprocess(
    (value) => {
      if (value === undefined || value === null) return undefined;
      const items = (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v.trim() : v)).filter((v) => v !== '');
      return items.length ? items : undefined;
    },
    z.array(atMost(MAX_LENGTH.url)).max(MAX_VALUES, { message: `must be at most ${MAX_VALUES} values` }),
  );

const domain = () => z.string().min(1);
const name = () => z.string().min(1);

export const domainInput = schema(() => z.object({ domain: domain() }));
export const namedInput = schema(() => z.object({ domain: domain(), name: name() }));
const url = () => boundedText(MAX_LENGTH.url);
const eventTypes = () => boundedList(MAX_LENGTH.word, MAX_VALUES);

export const createV3Input = schema(() => z.object({ domain: domain(), id: boundedText(MAX_LENGTH.word), url: urls() }));
export const updateV3Input = schema(() => z.object({ domain: domain(), name: name(), url: urls() }));
export const testInput = schema(() => z.object({ domain: domain(), name: name(), url: url() }));

export const v4ChangeInput = schema(() => z.object({ domain: domain(), url: url(), event_types: eventTypes() }));
/** DELETE /v4/...: `url` is a comma-separated list (the OAS), or repeated. */
export const v4DeleteInput = schema(() => z.object({ domain: domain(), url: boundedList(MAX_LENGTH.url, MAX_VALUES) }));

export const accountWebhookInput = schema(() => z.object({
  url: url(),
  event_types: eventTypes(),
  description: boundedText(MAX_LENGTH.description).optional(),
}));
export const accountWebhookIdInput = schema(() => z.object({ id: z.string().min(1) }));
export const replaceAccountWebhookInput = schema(() => accountWebhookInput().extend({ id: z.string().min(1) }));
/** `webhook_ids` is read raw: an empty item in it is refused, not skipped (contract §4.3). */
export const listAccountWebhooksInput = schema(() => z.object({ webhook_ids: text().optional() }));
export const deleteAccountWebhooksInput = schema(() => z.object({ webhook_ids: text().optional(), all: text().optional() }));

/** The signing-key routes take no parameters. */
export const noInput = schema(() => z.object({}));
