import { z } from 'zod/v3';
import { requireDomain } from '../domains/domain-store';
import { keyKinds, roles } from '../platform/access';
import { BadRequest, NotFound } from '../platform/errors';
import { boundedText, flag, integer, MAX_LENGTH, oneOfValues, schema } from '../platform/http/params';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { deleteKey, findKey, issueKey, keyJson, listKeys, WEB_KEY_MAX_SECONDS } from './api-keys';
import { keyRoutes } from './routes';
import { ensureUser } from '../accounts/user-store';

const kindParam = () => z.preprocess(
  (v) => (Array.isArray(v) ? v.at(-1) : v),
  oneOfValues(keyKinds, 'expected `kind` param to be one of [domain user web] or absent'),
);

/** Free text stored on the key (its description, the user it is for). */
const note = () => boundedText(MAX_LENGTH.description);
/** Ten years: a key meant to outlive that is better created without an expiration. */
const MAX_EXPIRATION_SECONDS = 10 * 365 * 86_400;

const listInput = schema(() => z.object({
  kind: kindParam().optional(),
  domain_name: boundedText(MAX_LENGTH.host).optional(),
}));

const createInput = schema(() => z.object({
  role: z.preprocess((v) => (Array.isArray(v) ? v.at(-1) : v), oneOfValues(roles)),
  kind: kindParam().default('user'),
  description: note().optional(),
  domain_name: boundedText(MAX_LENGTH.host).optional(),
  expiration: integer()
    .refine((n) => n > 0, 'must be greater than 0')
    .refine((n) => n <= MAX_EXPIRATION_SECONDS, `must be at most ${MAX_EXPIRATION_SECONDS} seconds (ten years)`)
    .optional(),
  user_id: note().optional(),
  user_name: note().optional(),
  email: z
    .preprocess((v) => (Array.isArray(v) ? v.at(-1) : v === '' ? undefined : v), z.string().email({ message: 'must be an email address' }).max(254, { message: 'must be an email address' }))
    .optional(),
  // Accepted for parity with the dashboard; keys are always enabled when created.
  is_disabled: flag().optional(),
}));

export const handler = areaHandler(keyRoutes, {
  listKeys: operation(listInput, async (req, input) => {
    const keys = (await listKeys(req.accountId)).filter(
      (key) => (!input.kind || key.kind === input.kind) && (!input.domain_name || key.domainName === input.domain_name.toLowerCase()),
    );
    return { total_count: keys.length, items: keys.map(keyJson) };
  }),

  createKey: operation(createInput, async (req, input) => {
    const domainName = input.domain_name?.toLowerCase();
    if (input.kind === 'domain') {
      if (!domainName) throw new BadRequest("Missing parameter 'domain_name': domain keys are bound to a domain");
      await requireDomain(req.accountId, domainName);
      if (input.role !== 'sending') throw new BadRequest("Domain keys take the role 'sending'");
    } else {
      if (input.role === 'sending') throw new BadRequest("The 'sending' role is for domain keys (kind=domain)");
      if (domainName) throw new BadRequest("'domain_name' applies to domain keys only");
    }
    let expiration = input.expiration;
    if (input.kind === 'web') {
      if (!input.email || !input.user_id) throw new BadRequest("Web keys need 'email' and 'user_id'");
      if (expiration !== undefined && expiration > WEB_KEY_MAX_SECONDS) throw new BadRequest('Web keys expire within 1 day (expiration at most 86400)');
      expiration ??= WEB_KEY_MAX_SECONDS;
    }
    const { item, secret } = await issueKey(req.accountId, {
      role: input.role,
      kind: input.kind,
      description: input.description,
      domainName,
      userId: input.user_id,
      userName: input.user_name,
      email: input.email,
      expiration,
    });
    // A key issued to a user records that user (GET /v5/users): how users other than the first come to be.
    if (input.user_id && input.kind !== 'domain') {
      await ensureUser({ accountId: req.accountId, id: input.user_id, name: input.user_name ?? input.email ?? input.user_id, email: input.email ?? '', role: input.role, isMaster: false });
    }
    const key = { ...keyJson(item), secret };
    // mailgun-go reads `key`; mailgun.js reads the key's fields at the top level.
    return { message: 'great success', key, ...key };
  }),

  deleteKey: operation(() => z.object({ id: z.string() }), async (req, input) => {
    const key = await findKey(req.accountId, input.id);
    if (!key) throw new NotFound('no key matching id');
    await deleteKey(key);
    return { message: 'key deleted' };
  }),
}, { onBehalfOf });
