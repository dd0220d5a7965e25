import { z } from 'zod/v3';
import { BadRequest, NotFound } from '../platform/errors';
import { boundedText, flag, MAX_LENGTH } from '../platform/http/params';
import { trackingJson, trackingOf } from '../tracking/settings';
import { areaHandler, operation, shadowedParam, type ApiRequest } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { assignDomain, domainIps, poolAssignment, replacementOf, requireAccountIp, poolParameter, type DomainAssignment } from '../sending-ips/ip-pools';
import { DOMAIN_CLEANUPS } from './cleanups';
import { patchDomain, requireDomain } from './domain-store';
import { createDomain, deleteDomain, listDomains, updateDomain, verifyDomain, type DomainSettings } from './domains';
import { accountsCovered } from '../accounts/subaccount-list';
import { dnsRecordsJson, domainJson } from './present';
import { domainRoutes } from './routes';
import { atom, createDomainInput, footer, getDomainInput, listDomainsInput, updateDomainInput } from './schemas';

const TRACKING_UPDATED = 'Domain tracking settings have been updated';

/** Click tracking also takes `htmlonly`: links in the HTML part only. */
const clickActive = () => z.preprocess(
  (value) => (typeof value === 'string' && value.trim().toLowerCase() === 'htmlonly' ? 'htmlonly' : value),
  z.union([z.literal('htmlonly'), flag()]),
);

function settingsOf(input: z.infer<ReturnType<typeof updateDomainInput>>): DomainSettings {
  return {
    spamAction: input.spam_action,
    wildcard: input.wildcard,
    requireTls: input.require_tls,
    skipVerification: input.skip_verification,
    useAutomaticSenderSecurity: input.use_automatic_sender_security,
    encryptIncomingMessage: input.encrypt_incoming_message,
    webPrefix: input.web_prefix,
    webScheme: input.web_scheme,
    archiveTo: input.archive_to,
    messageTtl: input.message_ttl,
    mailfromHost: input.mailfrom_host,
    smtpPassword: input.smtp_password,
  };
}

/**
 * DELETE /v3/domains/{name}/ips/{ip} (and /pool/{ip}): `{ip}` is an address to take off the
 * domain, `all` for every address it has, or `ip_pool` to unlink its DIPP, for which a replacement
 * (query `ip`: an IP or `shared`; or `pool_id`) is required.
 */
async function removeAssignment(req: ApiRequest, name: string, ip: string) {
  const domain = await requireDomain(req.accountId, name);
  if (ip === 'ip_pool') {
    if (!domain.ipPoolId) throw new BadRequest('The domain is not linked to an IP pool');
    const replacementIp = shadowedParam(req, 'ip');
    // Rule 4: a pool inherited from the parent is not replaced by an address.
    if (domain.ipPoolOwnerId && replacementIp && replacementIp !== 'shared') throw new BadRequest('An IP pool inherited from the parent account cannot be replaced by an IP');
    const replacement = await replacementOf(req.accountId, replacementIp, shadowedParam(req, 'pool_id'), domain.ipPoolId);
    if (!replacement) throw new BadRequest('Give the replacement: ip (an IP or shared) or pool_id');
    await assignDomain(domain, replacement);
    return { message: 'success' };
  }
  // `all`: whatever the domain sends from, its own IPs or a DIPP, it sends from the shared addresses after.
  if (ip === 'all') {
    await assignDomain(domain, 'shared');
    return { message: 'success' };
  }
  if (domain.ipPoolId) throw new BadRequest("The domain is linked to an IP pool: its IPs are the pool's; unlink the pool with ip_pool");
  if (!domain.ips?.includes(ip)) throw new NotFound(`IP ${ip} is not assigned to this domain`);
  await assignDomain(domain, { ips: domain.ips.filter((assigned) => assigned !== ip) });
  return { message: 'success' };
}

/** What POST /v4/domains' `ips` or `pool_id` asks for, checked before the domain is made. */
async function initialAssignment(accountId: string, ips: string[] | undefined, poolId: string | undefined): Promise<DomainAssignment | undefined> {
  if (poolId && ips?.length) throw new BadRequest('Give either ips or pool_id, not both');
  if (poolId) {
    const pool = await poolParameter(accountId, poolId);
    if (!pool.ips.length) throw new BadRequest(`IP pool ${poolId} has no IPs`);
    return poolAssignment(pool);
  }
  if (!ips?.length) return undefined;
  for (const ip of ips) await requireAccountIp(accountId, ip);
  return { ips: [...new Set(ips)] };
}

export const handler = areaHandler(domainRoutes, {
  listDomains: operation(listDomainsInput, async (req, input) => {
    // include_subaccounts: the acting account's domains and those of its subaccounts (not deleted ones).
    const owners = await accountsCovered(req.accountId, input.include_subaccounts);
    const { total, items } = await listDomains(owners, {
      state: input.state,
      authority: input.authority,
      search: input.search,
      sort: input.sort === 'name:desc' ? 'desc' : 'asc',
      skip: input.skip,
      limit: input.limit,
    });
    return { total_count: total, items: items.map((d) => (d.accountId === req.accountId ? domainJson(d) : { ...domainJson(d), subaccount_id: d.accountId })) };
  }),

  createDomain: operation(createDomainInput, async (req, input) => {
    // SES signs with the sending domain itself, so the DKIM record cannot live elsewhere.
    if (input.force_root_dkim_host || (input.dkim_host_name && input.dkim_host_name !== input.name)) {
      throw new BadRequest('The DKIM host must be the domain itself: Amazon SES signs with d= the sending domain');
    }
    const assignment = await initialAssignment(req.accountId, input.ips, input.pool_id);
    const created = await createDomain(req.accountId, {
      name: input.name,
      ...settingsOf(input),
      dkimKeySize: input.dkim_key_size,
      dkimSelector: input.dkim_selector,
    });
    const domain = assignment ? await assignDomain(created, assignment) : created;
    return { message: 'Domain DNS records have been created', domain: domainJson(domain), ...dnsRecordsJson(domain) };
  }),

  getDomain: operation(getDomainInput, async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    const records = input['h:with_dns']
      ? dnsRecordsJson(domain)
      : { sending_dns_records: null, receiving_dns_records: null };
    return { domain: domainJson(domain, input['h:extended']), ...records };
  }),

  updateDomain: operation(updateDomainInput, async (req, input) => {
    const updated = await updateDomain(await requireDomain(req.accountId, input.name), settingsOf(input));
    return { message: 'Domain has been updated', domain: domainJson(updated), ...dnsRecordsJson(updated) };
  }),

  verifyDomain: operation(() => z.object({ name: z.string() }), async (req, input) => {
    const domain = await verifyDomain(await requireDomain(req.accountId, input.name));
    return { message: 'Domain DNS records have been updated', domain: domainJson(domain), ...dnsRecordsJson(domain) };
  }),

  getTracking: operation(() => z.object({ name: z.string() }), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    return { tracking: { ...trackingJson(trackingOf(domain)), web_scheme: domain.webScheme } };
  }),

  updateOpenTracking: operation(() => z.object({ name: z.string(), active: flag().optional(), place_at_the_top: flag().optional() }), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    const current = trackingOf(domain);
    const open = { active: input.active ?? current.open.active, placeAtTheTop: input.place_at_the_top ?? current.open.placeAtTheTop };
    const updated = await patchDomain(domain, { tracking: { ...domain.tracking, open } });
    return { message: TRACKING_UPDATED, open: trackingJson(trackingOf(updated)).open };
  }),

  updateClickTracking: operation(() => z.object({ name: z.string(), active: clickActive().optional() }), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    const click = { active: input.active ?? trackingOf(domain).click.active };
    const updated = await patchDomain(domain, { tracking: { ...domain.tracking, click } });
    return { message: TRACKING_UPDATED, click: trackingJson(trackingOf(updated)).click };
  }),

  updateUnsubscribeTracking: operation(
    () => z.object({ name: z.string(), active: flag().optional(), html_footer: footer().optional(), text_footer: footer().optional() }),
    async (req, input) => {
      const domain = await requireDomain(req.accountId, input.name);
      const current = trackingOf(domain).unsubscribe;
      const unsubscribe = { active: input.active ?? current.active, htmlFooter: input.html_footer ?? current.htmlFooter, textFooter: input.text_footer ?? current.textFooter };
      const updated = await patchDomain(domain, { tracking: { ...domain.tracking, unsubscribe } });
      return { message: TRACKING_UPDATED, unsubscribe: trackingJson(trackingOf(updated)).unsubscribe };
    },
  ),

  getConnection: operation(() => z.object({ name: z.string() }), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    return { connection: { require_tls: domain.requireTls, skip_verification: domain.skipVerification } };
  }),

  updateConnection: operation(() => z.object({ name: z.string(), require_tls: flag().optional(), skip_verification: flag().optional() }), async (req, input) => {
    const updated = await updateDomain(await requireDomain(req.accountId, input.name), { requireTls: input.require_tls, skipVerification: input.skip_verification });
    // Mailgun's documentation spells these with hyphens, its SDK types with underscores: both.
    return {
      message: 'Domain connection settings have been updated, may take 10 minutes to fully propagate',
      'require-tls': updated.requireTls,
      'skip-verification': updated.skipVerification,
      require_tls: updated.requireTls,
      skip_verification: updated.skipVerification,
    };
  }),

  updateWebPrefix: operation(() => z.object({ name: z.string(), web_prefix: atom() }), async (req, input) => {
    await updateDomain(await requireDomain(req.accountId, input.name), { webPrefix: input.web_prefix });
    return { message: 'Domain web prefix updated' };
  }),

  // The domain's dedicated IPs: its DIPP's when it is linked to one, else its own.
  listDomainIps: operation(() => z.object({ name: z.string() }), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    const ips = await domainIps(domain);
    return { items: ips, total_count: ips.length };
  }),

  addDomainIp: operation(() => z.object({ name: z.string(), ip: boundedText(MAX_LENGTH.ip).optional(), pool_id: boundedText(MAX_LENGTH.reference).optional() }), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    if (domain.type === 'sandbox') throw new BadRequest('A sandbox domain sends from shared IPs only');
    if (input.ip && input.pool_id) throw new BadRequest('Give either ip or pool_id, not both');
    if (input.pool_id) {
      const pool = await poolParameter(req.accountId, input.pool_id);
      if (!pool.ips.length) throw new BadRequest(`IP pool ${pool.poolId} has no IPs`);
      await assignDomain(domain, poolAssignment(pool));
      return { message: 'success' };
    }
    if (!input.ip) throw new BadRequest('ip or pool_id is required');
    if (domain.ipPoolId) throw new BadRequest("The domain is linked to an IP pool: its IPs are the pool's");
    await requireAccountIp(req.accountId, input.ip);
    if (domain.ips?.includes(input.ip)) throw new BadRequest(`IP ${input.ip} is assigned to this domain already`);
    await assignDomain(domain, { ips: [...(domain.ips ?? []), input.ip] });
    return { message: 'success' };
  }),

  removeDomainIp: operation(() => z.object({ name: z.string(), ip: z.string() }), async (req, input) => removeAssignment(req, input.name, input.ip)),
  removeDomainPool: operation(() => z.object({ name: z.string(), ip: z.string() }), async (req, input) => removeAssignment(req, input.name, input.ip)),

  deleteDomain: operation(() => z.object({ name: z.string() }), async (req, input) => {
    await deleteDomain(await requireDomain(req.accountId, input.name), DOMAIN_CLEANUPS);
    return { message: 'Domain has been deleted' };
  }),
}, { onBehalfOf });
