import { z } from 'zod/v3';
import { BadRequest, NotFound } from '../platform/errors';
import { flag, text } from '../platform/http/params';
import { trackingJson, trackingOf } from '../tracking/settings';
import { areaHandler, operation } from '../platform/http/pipeline';
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

/** Unassigning from a domain that has no dedicated IPs: `all` is already done, anything named is absent. */
async function removeAssignment(accountId: string, name: string, ip: string) {
  await requireDomain(accountId, name);
  if (ip === 'all') return { message: 'success' };
  if (ip === 'ip_pool') throw new BadRequest('The domain is not linked to an IP pool');
  throw new NotFound(`IP ${ip} is not assigned to this domain`);
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
    if (input.pool_id) throw new BadRequest(`IP pool ${input.pool_id} not found`);
    if (input.ips?.length) throw new BadRequest(`IP ${input.ips[0]} is not assigned to this account`);
    const domain = await createDomain(req.accountId, {
      name: input.name,
      ...settingsOf(input),
      dkimKeySize: input.dkim_key_size,
      dkimSelector: input.dkim_selector,
    });
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

  // Mail leaves through SES's shared addresses until dedicated IPs and pools exist (issue 15): a
  // domain has none assigned, and none can be.
  listDomainIps: operation(() => z.object({ name: z.string() }), async (req, input) => {
    await requireDomain(req.accountId, input.name);
    return { items: [], total_count: 0 };
  }),

  addDomainIp: operation(() => z.object({ name: z.string(), ip: text().optional(), pool_id: text().optional() }), async (req, input) => {
    await requireDomain(req.accountId, input.name);
    if (input.pool_id) throw new BadRequest(`IP pool ${input.pool_id} not found`);
    if (input.ip) throw new BadRequest(`IP ${input.ip} is not assigned to this account`);
    throw new BadRequest('ip or pool_id is required');
  }),

  removeDomainIp: operation(() => z.object({ name: z.string(), ip: z.string() }), async (req, input) => removeAssignment(req.accountId, input.name, input.ip)),
  removeDomainPool: operation(() => z.object({ name: z.string(), ip: z.string() }), async (req, input) => removeAssignment(req.accountId, input.name, input.ip)),

  deleteDomain: operation(() => z.object({ name: z.string() }), async (req, input) => {
    await deleteDomain(await requireDomain(req.accountId, input.name));
    return { message: 'Domain has been deleted' };
  }),
});
