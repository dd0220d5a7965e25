import { accountsCovered } from '../accounts/subaccount-list';
import { tagMetrics } from './tag-metrics';
import { queryAll } from '../data/store';
import { requireDomain } from '../domains/domain-store';
import { env } from '../platform/env';
import { BadRequest, NotFound } from '../platform/errors';
import { pivotPaging } from '../platform/http/paging';
import { MAX_LENGTH } from '../platform/http/params';
import { areaHandler, operation, type ApiRequest } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { accountTagJson, domainTagJson } from './present';
import { tagRoutes } from './routes';
import { accountTagInput, domainInput, domainTagInput, listAccountTagsInput, listDomainTagsInput, noInput, type TagSort } from './schemas';
import { deleteTag, describeTag, getTag, normaliseTag, tagCount, tagsByName, tagsBySighting, tagsPage, type TagItem, type TagScope, tagKeys } from './tag-store';
import { findAccount } from '../accounts/account-store';

/** The tag a request names, as the registry keys it; a name that cannot be a tag is simply not found. */
function tagKeyOf(raw: string): string {
  const name = normaliseTag(raw);
  if (!name) throw new NotFound('Tag not found');
  return name.tagKey;
}

/**
 * The new description. Read from the raw parameters: an empty one is a legitimate way to clear
 * it, which the validated input (blank means absent) cannot tell from a missing one.
 */
function descriptionOf(req: ApiRequest): string {
  const raw = req.params['description'];
  const value = Array.isArray(raw) ? raw.at(-1) : raw;
  if (value === undefined || value === null) throw new BadRequest("Missing parameter 'description'");
  if (typeof value !== 'string') throw new BadRequest("Invalid parameter 'description': must be a string");
  if (value.length > MAX_LENGTH.description) throw new BadRequest(`Invalid parameter 'description': must be at most ${MAX_LENGTH.description} characters`);
  return value;
}

async function updateDescription(scope: TagScope, tag: string, description: string) {
  if (!(await describeTag(scope, tagKeyOf(tag), description))) throw new NotFound('Tag not found');
  return { message: 'Tag updated' };
}

async function removeTag(scope: TagScope, tag: string) {
  if (!(await deleteTag(scope, tagKeyOf(tag)))) throw new NotFound('Tag not found');
  return { message: 'Tag deleted' };
}

/** Tags of one account page by page: `skip` is read through, so a page costs skip + limit items. */
/** The order of a sort, for merging several accounts' pages. */
function tagOrder(sort: TagSort): (a: TagItem, b: TagItem) => number {
  const sign = sort.endsWith(':asc') ? 1 : -1;
  return sort.startsWith('tag') ? (a, b) => sign * (a.tagKey < b.tagKey ? -1 : a.tagKey > b.tagKey ? 1 : a.accountId.localeCompare(b.accountId)) : (a, b) => sign * (a.lastSeen - b.lastSeen || a.tagKey.localeCompare(b.tagKey));
}

async function accountTagPage(accountId: string, sort: TagSort, prefix: string, skip: number, limit: number) {
  const ascending = sort.endsWith(':asc');
  const items = sort.startsWith('tag')
    ? await tagsByName({ accountId }, { prefix, ascending, limit: skip + limit })
    : await tagsBySighting(accountId, { prefix, ascending, limit: skip + limit });
  return items.slice(skip);
}

/** Distinct tags matching the prefix: the counter for all of them, else the prefix's key range. */
async function accountTagTotal(accountId: string, prefix: string): Promise<number> {
  if (!prefix) return tagCount({ accountId });
  return (await queryAll<unknown>({ pk: tagKeys.accountTag(accountId).pk }, prefix)).length;
}

export const handler = areaHandler(tagRoutes, {
  /**
   * include_subaccounts: the subaccounts' tags beside the account's own, each item naming its
   * account (the first skip + limit of every account, merged in the requested order).
   * include_metrics: each tag's metrics since it was first seen, from its own account's analytics
   * counters (tag-metrics.ts).
   */
  listAccountTags: operation(listAccountTagsInput, async (req, input) => {
    const { skip, limit, include_total } = input.pagination;
    const sort: TagSort = input.pagination.sort ?? 'lastseen:desc';
    const prefix = input.tag === undefined ? '' : (normaliseTag(input.tag)?.tagKey ?? '');
    const owners = await accountsCovered(req.accountId, input.include_subaccounts);
    const pages = await Promise.all(owners.map((id) => accountTagPage(id, sort, prefix, owners.length > 1 ? 0 : skip, owners.length > 1 ? skip + limit : limit)));
    const items = owners.length > 1 ? pages.flat().sort(tagOrder(sort)).slice(skip, skip + limit) : pages[0]!;
    const accounts = new Map(await Promise.all(owners.map(async (id) => [id, await findAccount(id)] as const)));
    const metrics = new Map<string, Record<string, number | string> | undefined>();
    if (input.include_metrics) {
      for (const id of owners) {
        const own = items.filter((item) => item.accountId === id);
        for (const [tagKey, values] of await tagMetrics(id, own)) metrics.set(`${id}|${tagKey}`, values);
      }
    }
    const total = include_total ? (await Promise.all(owners.map((id) => accountTagTotal(id, prefix)))).reduce((a, b) => a + b, 0) : undefined;
    return {
      items: items.map((item) => ({ ...accountTagJson(item, accounts.get(item.accountId)), ...(input.include_metrics ? { metrics: metrics.get(`${item.accountId}|${item.tagKey}`) } : {}) })),
      pagination: { sort, skip, limit, ...(total !== undefined ? { total } : {}) },
    };
  }),

  updateAccountTag: operation(accountTagInput, async (req, input) => updateDescription({ accountId: req.accountId }, input.tag, descriptionOf(req))),

  // mailgun.js sends this body as JSON under an urlencoded content type; body.ts reads it as JSON.
  deleteAccountTag: operation(accountTagInput, async (req, input) => removeTag({ accountId: req.accountId }, input.tag)),

  accountTagLimits: operation(noInput, async (req) => {
    const limit = env().TAG_LIMIT_ACCOUNT;
    const count = await tagCount({ accountId: req.accountId });
    return { limit, count, limit_reached: count >= limit };
  }),

  listDomainTags: operation(listDomainTagsInput, async (req, input) => {
    const domain = (await requireDomain(req.accountId, input.domain)).name;
    const prefix = input.prefix === undefined ? '' : (normaliseTag(input.prefix)?.tagKey ?? '');
    const items = await tagsPage({ accountId: req.accountId, domain }, input, prefix);
    const paging = pivotPaging(
      req.baseUrl,
      `/v3/${domain}/tags`,
      'tag',
      input,
      items.map((item) => item.tagKey),
      { prefix: input.prefix },
    );
    return { items: items.map(domainTagJson), paging };
  }),

  getDomainTag: operation(domainTagInput, async (req, input) => {
    const domain = (await requireDomain(req.accountId, input.domain)).name;
    const item = await getTag({ accountId: req.accountId, domain }, tagKeyOf(input.tag));
    if (!item) throw new NotFound('Tag not found');
    return domainTagJson(item);
  }),

  updateDomainTag: operation(domainTagInput, async (req, input) => {
    const domain = (await requireDomain(req.accountId, input.domain)).name;
    return updateDescription({ accountId: req.accountId, domain }, input.tag, descriptionOf(req));
  }),

  deleteDomainTag: operation(domainTagInput, async (req, input) => {
    const domain = (await requireDomain(req.accountId, input.domain)).name;
    return removeTag({ accountId: req.accountId, domain }, input.tag);
  }),

  domainTagLimits: operation(domainInput, async (req, input) => {
    const domain = await requireDomain(req.accountId, input.domain);
    return { id: domain.domainId, limit: env().TAG_LIMIT_DOMAIN, count: await tagCount({ accountId: req.accountId, domain: domain.name }) };
  }),
}, { onBehalfOf });
