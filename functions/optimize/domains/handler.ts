import { z } from 'zod/v3';
import { accountsCovered } from '../../accounts/subaccount-list';
import { domainName } from '../../domains/schemas';
import { Conflict, NotFound } from '../../platform/errors';
import { flag, integer, schema, text } from '../../platform/http/params';
import { offsetOfPage, offsetPaging } from '../../platform/http/offset-pages';
import { absoluteUrl } from '../../platform/http/paging';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { monitorManagedDomain, stopMonitoringDomain } from '../blocklists/domain-monitoring';
import { addManagedDomain, findManagedDomain, listManagedDomains, managedDomainJson, removeManagedDomain, verifyManagedDomain } from './managed-domains';
import { managedDomainRoutes } from './routes';

// `domain` comes as a query parameter (Mailgun's documentation), a form field (its Go client) or JSON: the pipeline merges all three.
const domainInput = schema(() => z.object({ domain: domainName() }));

export const handler = areaHandler(managedDomainRoutes, {
  listManagedDomains: operation(
    schema(() =>
      z.object({
        limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }).default(10),
        domain: text().optional(),
        include_subaccounts: flag().optional(),
        page: text().optional(),
      }),
    ),
    async (req, input) => {
      const accounts = await accountsCovered(req.accountId, input.include_subaccounts);
      const filter = input.domain?.trim().toLowerCase();
      const all = (await Promise.all(accounts.map((id) => listManagedDomains(id)))).flat().filter((d) => !filter || d.name.includes(filter));
      all.sort((a, b) => a.name.localeCompare(b.name) || a.accountId.localeCompare(b.accountId));
      const offset = offsetOfPage(input.page, all.length, input.limit);
      const link = (page: string) => absoluteUrl(req.baseUrl, '/v1/inboxready/domains', { page, limit: input.limit, domain: input.domain, include_subaccounts: input.include_subaccounts ? 'true' : undefined });
      return { items: all.slice(offset, offset + input.limit).map(managedDomainJson), paging: offsetPaging(link, offset, input.limit) };
    },
  ),

  addManagedDomain: operation(domainInput, async (req, input) => {
    const added = await addManagedDomain(req.accountId, input.domain);
    if (!added) throw new Conflict('domain already exists');
    await monitorManagedDomain(added);
    return { message: 'The domain has been added', domain: managedDomainJson(added) };
  }),

  verifyManagedDomain: operation(domainInput, async (req, input) => {
    const domain = await findManagedDomain(req.accountId, input.domain);
    if (!domain) throw new NotFound('domain not found');
    const checked = await verifyManagedDomain(domain);
    await monitorManagedDomain(checked);
    return { message: checked.status === 'pending' ? 'Domain pending verification' : 'Domain verified', domain: managedDomainJson(checked) };
  }),

  removeManagedDomain: operation(domainInput, async (req, input) => {
    if (!(await removeManagedDomain(req.accountId, input.domain))) throw new NotFound('domain not found');
    await stopMonitoringDomain(req.accountId, input.domain);
    return { message: `${input.domain} has been removed from InboxReady` };
  }),
}, { onBehalfOf });
