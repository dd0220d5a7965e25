import { z } from 'zod/v3';
import { passwordProblem } from '../credentials/credentials';
import { skipLimitInput } from '../platform/http/paging';
import { atMost, boundedText, flag, integer, MAX_LENGTH, oneOfValues, schema, text } from '../platform/http/params';
import { ipAddressList } from '../sending-ips/ip-records';
import { DKIM_KEY_SIZES } from './dkim';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const domainName = () =>
  text()
    .transform((name) => name.trim().toLowerCase().replace(/\.$/, ''))
    .refine((name) => name.length <= 253 && name.split('.').length >= 2 && name.split('.').every((label) => LABEL.test(label)), {
      message: 'must be a fully qualified domain name',
    });

/** An RSA key size SES signs with. */
export const dkimKeyBits = () => integer().refine((bits) => (DKIM_KEY_SIZES as readonly number[]).includes(bits), { message: 'must be 1024 or 2048' });

/** A single DNS label (web_prefix, dkim_selector): Mailgun's "valid atom". */
export const atom = () =>
  text()
    .transform((v) => v.toLowerCase())
    .refine((v) => LABEL.test(v), { message: 'must be a single DNS label (letters, digits, hyphens)' });

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  text()
    .transform((v) => v.toLowerCase())
    .pipe(oneOfValues(values));

const url = () =>
  text().pipe(
    atMost(MAX_LENGTH.url)
      .url({ message: 'must be an http(s) URL' })
      .refine((v) => /^https?:\/\//i.test(v), { message: 'must be an http(s) URL' }),
  );

/**
 * An unsubscribe footer, added to every tracked message: 16 KB is far more than any footer needs,
 * and keeps the domain item (which holds both) well below DynamoDB's 400 KB.
 */
const MAX_FOOTER_LENGTH = 16 * 1024;
export const footer = () => text().refine((v) => v.length <= MAX_FOOTER_LENGTH, { message: `must be at most ${MAX_FOOTER_LENGTH} characters` });

const settings = () => ({
  // The postmaster's SMTP password: the same rule as any other login's.
  smtp_password: text()
    .refine((p) => !passwordProblem(p), (p) => ({ message: passwordProblem(p) }))
    .optional(),
  spam_action: oneOf(['disabled', 'tag', 'block']).optional(),
  wildcard: flag().optional(),
  web_scheme: oneOf(['http', 'https']).optional(),
  web_prefix: atom().optional(),
  require_tls: flag().optional(),
  skip_verification: flag().optional(),
  use_automatic_sender_security: flag().optional(),
  encrypt_incoming_message: flag().optional(),
  archive_to: url().optional(),
  message_ttl: integer().optional(),
  mailfrom_host: boundedText(MAX_LENGTH.host).optional(),
});

export const createDomainInput = schema(() => z.object({
  name: domainName(),
  ...settings(),
  dkim_key_size: dkimKeyBits().optional(),
  dkim_selector: atom().optional(),
  dkim_host_name: domainName().optional(),
  force_dkim_authority: flag().optional(),
  force_root_dkim_host: flag().optional(),
  ips: ipAddressList().optional(),
  pool_id: boundedText(MAX_LENGTH.reference).optional(),
}));

export const updateDomainInput = schema(() => z.object({ name: z.string(), ...settings() }));

export const getDomainInput = schema(() => z.object({
  name: z.string(),
  'h:extended': flag().default(false),
  'h:with_dns': flag().default(true),
}));

export const listDomainsInput = schema(() => z.object({
  ...skipLimitInput(100, 1000),
  state: oneOf(['active', 'unverified', 'disabled']).optional(),
  sort: oneOf(['name', 'name:asc', 'name:desc']).optional(),
  authority: domainName().optional(),
  search: text()
    .transform((v) => v.toLowerCase())
    .optional(),
  include_subaccounts: flag().optional(),
}));

