import { z } from 'zod/v3';
import { BadRequest, NotFound } from '../../platform/errors';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { boundedText, MAX_LENGTH, schema } from '../../platform/http/params';
import { allowlistOf, canonicalEntry, readAllowlist, saveAllowlist } from '../../accounts/ip-allowlist';
import { allowlistRoutes } from './routes';

const entryInput = schema(() => z.object({ address: boundedText(MAX_LENGTH.ip), description: boundedText(MAX_LENGTH.name).optional() }));
const addressInput = schema(() => z.object({ address: boundedText(MAX_LENGTH.ip) }));

/**
 * `/v2/ip_whitelist`: every change answers the whole updated list, as Mailgun's does. The list
 * applies to API keys other than web keys, and to SMTP logins, from the next authorization (an
 * authorizer verdict already cached for a key and address lasts its cache lifetime).
 */
export const handler = areaHandler(allowlistRoutes, {
  listAllowedAddresses: operation(() => z.object({}).passthrough(), async (req) => ({ addresses: await allowlistOf(req.accountId) })),

  addAllowedAddress: operation(entryInput, async (req, input) => {
    const ip = canonicalEntry(input.address);
    const read = await readAllowlist(req.accountId);
    const current = read.addresses;
    if (current.some((a) => a.ip_address === ip)) throw new BadRequest(`${ip} is already allowed`);
    return { addresses: await saveAllowlist(req.accountId, read, [...current, { ip_address: ip, description: input.description ?? '' }]) };
  }),

  updateAllowedAddress: operation(entryInput, async (req, input) => {
    const ip = canonicalEntry(input.address);
    const read = await readAllowlist(req.accountId);
    const current = read.addresses;
    if (!current.some((a) => a.ip_address === ip)) throw new NotFound(`${ip} is not on the allowlist`);
    return { addresses: await saveAllowlist(req.accountId, read, current.map((a) => (a.ip_address === ip ? { ...a, description: input.description ?? '' } : a))) };
  }),

  deleteAllowedAddress: operation(addressInput, async (req, input) => {
    const ip = canonicalEntry(input.address);
    const read = await readAllowlist(req.accountId);
    const current = read.addresses;
    if (!current.some((a) => a.ip_address === ip)) throw new NotFound(`${ip} is not on the allowlist`);
    return { addresses: await saveAllowlist(req.accountId, read, current.filter((a) => a.ip_address !== ip)) };
  }),
}, { onBehalfOf });
