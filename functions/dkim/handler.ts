import { z } from 'zod/v3';
import { offsetOfPage, offsetPaging } from '../platform/http/offset-pages';
import { recordJson } from '../domains/dns-records';
import { findDomain, patchDkimKey, requireDomain, type DkimKeyItem, type DnsCheck } from '../domains/domain-store';
import { dnsRecordsJson } from '../domains/present';
import { atom, dkimKeyBits, domainName } from '../domains/schemas';
import { BadRequest, NotFound } from '../platform/errors';
import { absoluteUrl } from '../platform/http/paging';
import { boundedText, flag, integer, MAX_LENGTH, text } from '../platform/http/params';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { setDkimAuthority, setDkimSelector } from './authority';
import { activateKey, deactivateKey } from './key-states';
import { accountKeys, addDkimKey, checkKeyRecord, deleteKey, keyRecord, requireDkimKey } from './keys';
import { MIN_ROTATION_SECONDS, parseInterval, rotateNow, rotationJson, setRotation } from './rotation';
import { dkimRoutes } from './routes';

const selector = atom;

/** Contract 3.4: page size 10 by default, 100 at most. */
const DEFAULT_PAGE = 10;
const MAX_PAGE = 100;

/** A key as contract 3.4 shows it; `/v1/dkim/keys` spells `valid` in capitals. */
function keyJson(key: DkimKeyItem, check: DnsCheck | undefined = key.dnsCheck, upperCase = false) {
  const record = recordJson(keyRecord(key), check);
  return {
    signing_domain: key.signingDomain,
    selector: key.selector,
    dns_record: { ...record, is_active: key.active, valid: upperCase ? record.valid.toUpperCase() : record.valid },
  };
}

/** A PKCS #1 PEM of a 4096-bit RSA key is about 3.3 KB; the key's item keeps it (sealed). */
const MAX_PEM_LENGTH = 8 * 1024;

function pemOf(input: { pem?: string }, files: Array<{ field: string; content: Buffer }>): string | undefined {
  if (input.pem !== undefined) return input.pem;
  const file = files.find((f) => f.field === 'pem');
  if (file && file.content.length > MAX_PEM_LENGTH) throw new BadRequest(`Invalid parameter 'pem': must be at most ${MAX_PEM_LENGTH} characters`);
  return file?.content.toString('utf8');
}

export const handler = areaHandler(dkimRoutes, {
  listKeys: operation(
    () =>
      z.object({
      page: text().optional(),
      limit: integer()
        .refine((n) => n >= 1 && n <= MAX_PAGE, { message: `must be between 1 and ${MAX_PAGE}` })
        .default(DEFAULT_PAGE),
      signing_domain: domainName().optional(),
      selector: selector().optional(),
    }),
    async (req, input) => {
      const all = await accountKeys(req.accountId, { signingDomain: input.signing_domain, selector: input.selector });
      const offset = offsetOfPage(input.page, all.length, input.limit);
      const link = (page: string) => absoluteUrl(req.baseUrl, '/v1/dkim/keys', { page, limit: input.limit, signing_domain: input.signing_domain, selector: input.selector });
      return {
        items: all.slice(offset, offset + input.limit).map((key) => keyJson(key, key.dnsCheck, true)),
        paging: offsetPaging(link, offset, input.limit),
        total_count: all.length,
      };
    },
  ),

  createKey: operation(
    () =>
      z.object({
      signing_domain: domainName(),
      selector: selector(),
      bits: dkimKeyBits().optional(),
      pem: boundedText(MAX_PEM_LENGTH).optional(),
    }),
    async (req, input) => {
      await requireDomain(req.accountId, input.signing_domain);
      const pem = pemOf(input, req.files);
      const key = await addDkimKey(req.accountId, input.signing_domain, input.selector, pem ? { pem } : { bits: input.bits ?? 2048 });
      return keyJson(key);
    },
  ),

  deleteKey: operation(() => z.object({ signing_domain: domainName(), selector: selector() }), async (req, input) => {
    const key = await requireDkimKey(req.accountId, input.signing_domain, input.selector);
    await deleteKey(key, await findDomain(req.accountId, key.signingDomain));
    return { message: 'success' };
  }),

  listDomainKeys: operation(() => z.object({ authority: z.string() }), async (req, input) => {
    await requireDomain(req.accountId, input.authority);
    const keys = await accountKeys(req.accountId, { signingDomain: input.authority.toLowerCase() });
    // A handful of keys per domain: each looked up now, and the observation kept for the list.
    const checked = await Promise.all(
      keys.map(async (key) => {
        const check = await checkKeyRecord(key);
        await patchDkimKey(key, { dnsCheck: check });
        return keyJson(key, check);
      }),
    );
    return { items: checked };
  }),

  activateKey: operation(() => z.object({ authority: z.string(), selector: selector() }), async (req, input) => {
    const key = await requireDkimKey(req.accountId, input.authority.toLowerCase(), input.selector);
    await activateKey(key);
    return { message: 'domain key activated', authority: key.signingDomain, selector: key.selector, active: true };
  }),

  deactivateKey: operation(() => z.object({ authority: z.string(), selector: selector() }), async (req, input) => {
    const key = await requireDkimKey(req.accountId, input.authority.toLowerCase(), input.selector);
    await deactivateKey(key);
    return { message: 'domain key deactivated', authority: key.signingDomain, selector: key.selector, active: false };
  }),

  setAuthority: operation(() => z.object({ name: z.string(), self: flag() }), async (req, input) => {
    const { domain, changed } = await setDkimAuthority(await requireDomain(req.accountId, input.name), input.self);
    return { message: 'Domain DKIM authority updated', sending_dns_records: dnsRecordsJson(domain).sending_dns_records, changed };
  }),

  setSelector: operation(() => z.object({ name: z.string(), dkim_selector: selector() }), async (req, input) => {
    await setDkimSelector(await requireDomain(req.accountId, input.name), input.dkim_selector);
    return { message: 'DKIM selector changed' };
  }),

  setRotation: operation(() => z.object({ name: z.string(), rotation_enabled: flag(), rotation_interval: boundedText(MAX_LENGTH.word).optional() }), async (req, input) => {
    const domain = await findDomain(req.accountId, input.name);
    if (!domain) throw new NotFound('domain not found').as('Description');
    let interval: number | undefined;
    if (input.rotation_interval !== undefined) {
      interval = parseInterval(input.rotation_interval);
      if (interval === undefined) throw new BadRequest('rotation_interval must be a duration such as 5d or 120h');
      if (interval < MIN_ROTATION_SECONDS) throw new BadRequest('rotation_interval must be at least 5 days');
    }
    return rotationJson(await setRotation(domain, input.rotation_enabled, interval));
  }),

  rotate: operation(() => z.object({ name: z.string() }), async (req, input) => {
    const domain = await findDomain(req.accountId, input.name);
    if (!domain) throw new NotFound('domain not found').as('Description');
    await rotateNow(domain);
    return { message: 'ok' };
  }),
}, { onBehalfOf });
