import { z } from 'zod/v3';
import { skipLimitInput } from '../platform/http/paging';
import { atMost, boundedText, integer, MAX_LENGTH, schema, text } from '../platform/http/params';

/** Mailgun's own cap on a routes page (contract §9), refused in its own words by the handler. */
export const MAX_ROUTES_PAGE = 1000;
const MAX_EXPRESSION = 2048;

/** Every value of a repeatable field (`action`), blank ones dropped; absent stays undefined. */
const actions = () =>
  z.preprocess(
    (value) => (value === undefined ? undefined : (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).filter((v) => v.trim() !== '')),
    z.array(atMost(MAX_EXPRESSION)).optional(),
  );

const priority = () => integer().refine((n) => n >= 0, { message: 'must not be negative' });
const description = () => z.preprocess((v) => (Array.isArray(v) ? v.at(-1) : v), atMost(MAX_LENGTH.note));
const expression = () => boundedText(MAX_EXPRESSION);

export const listRoutesInput = schema(() => {
  const { skip, limit } = skipLimitInput(100, Number.MAX_SAFE_INTEGER);
  return z.object({ skip, limit });
});

export const routeIdInput = schema(() => z.object({ id: z.string() }));

export const createRouteInput = schema(() =>
  z.object({
    priority: priority().default(0),
    description: description().default(''),
    expression: expression(),
    // `action` is the form field (repeated); JSON bodies may say `actions`.
    action: actions(),
    actions: actions(),
  }),
);

export const updateRouteInput = schema(() =>
  z.object({ id: z.string(), priority: priority().optional(), description: description().optional(), expression: expression().optional(), action: actions(), actions: actions() }),
);

export const matchRouteInput = schema(() => z.object({ address: text() }));
