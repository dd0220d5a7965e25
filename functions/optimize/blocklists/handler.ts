import { isIPv4 } from 'node:net';
import { z } from 'zod/v3';
import { accountsCovered } from '../../accounts/subaccount-list';
import { BadRequest, Conflict, NotFound } from '../../platform/errors';
import { flag, integer, isoInstant, oneOfValues, schema, text } from '../../platform/http/params';
import { keyPart, pivotPageInput, pivotPaging, pivotQuery, type PivotPage } from '../../platform/http/paging';
import { areaHandler, operation, type ApiRequest } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { Reply } from '../../platform/http/reply';
import { listsFor, type SubjectKind } from './catalogue';
import { eventsPage, type EventQuery } from './events';
import { blocklistRoutes } from './routes';
import { checkSoon } from './start-checks';
import { accountSubjects, addSubject, findSubject, removeSubject, restoreSubject, updateSubject } from './subjects';
import { domainBlocklistsJson, domainEventJson, domainJson, domainListings, ipEventJson, ipJson } from './views';

/** Monitored IPs an account may have (its dedicated IPs, added by the platform, count too). */
const MAX_MONITORED_IPS = 1000;

type EventFilters = Pick<EventQuery, 'from' | 'to' | 'subject' | 'list' | 'event'>;

const ipAddress = () => text().refine((v) => isIPv4(v.trim()), { message: 'must be an IPv4 address' }).transform((v) => v.trim());
const poolAndDescription = () => ({ ip_pool: keyPart().optional(), description: text().refine((v) => v.length <= 1024, { message: 'must be at most 1024 characters' }).optional() });

async function requireIp(accountId: string, ip: string) {
  const subject = await findSubject(accountId, 'ip', ip);
  if (!subject || subject.removed) throw new NotFound('IP address not found');
  return subject;
}

async function requireDomain(accountId: string, domain: string) {
  const subject = await findSubject(accountId, 'domain', domain.toLowerCase());
  if (!subject) throw new NotFound('domain not found');
  return subject;
}

/** The path a request named, for its page links: the route's, with the request's values in place. */
const pathOf = (req: ApiRequest) => req.route.path.replace(/\{([^}+]+)\+?\}/g, (_, name: string) => encodeURIComponent(req.path[name] ?? ''));

/**
 * A page of events of one or more accounts in Mailgun's pivot paging. The pivot is an event's
 * sort key, which starts with its time, so the same bound pages every account's events and the
 * pages merge by it. `extra` is the filters, kept in the page links.
 */
async function eventPage(req: ApiRequest, accounts: string[], kind: SubjectKind, page: PivotPage, filters: EventFilters, extra: Record<string, string | undefined>) {
  const query = pivotQuery(page);
  const pages = await Promise.all(accounts.map((accountId) => eventsPage(accountId, { kind, ...filters, limit: page.limit, ...query })));
  const items = pages.flat().sort((a, b) => (query.ascending ? a.sk.localeCompare(b.sk) : b.sk.localeCompare(a.sk))).slice(0, page.limit);
  // Pages read backwards (last, prev) are shown in time order like the others.
  if (!query.ascending) items.reverse();
  return { items, paging: pivotPaging(req.baseUrl, pathOf(req), 'pivot', page, items.map((e) => e.sk), extra) };
}

export const handler = areaHandler(blocklistRoutes, {
  listMonitoredIps: operation(
    schema(() => z.object({ limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }).default(100), include_subaccounts: flag().optional() })),
    async (req, input) => {
      const accounts = await accountsCovered(req.accountId, input.include_subaccounts);
      const subjects = (await Promise.all(accounts.map((id) => accountSubjects(id, 'ip')))).flat();
      return { items: subjects.slice(0, input.limit).map((s) => ipJson(s)) };
    },
  ),

  addMonitoredIp: operation(schema(() => z.object({ ip: ipAddress(), ...poolAndDescription() })), async (req, input) => {
    // Every monitored IP costs a DNS question per list per check, through the operator's resolvers and keys.
    if ((await accountSubjects(req.accountId, 'ip')).length >= MAX_MONITORED_IPS) throw new BadRequest(`At most ${MAX_MONITORED_IPS} IP addresses are monitored per account`);
    const fields = { ipPool: input.ip_pool ?? '', description: input.description ?? '' };
    const existing = await findSubject(req.accountId, 'ip', input.ip);
    const added = existing?.removed
      ? await restoreSubject(existing, fields)
      : await addSubject({ accountId: req.accountId, kind: 'ip', subject: input.ip, source: 'user', addedAt: new Date().toISOString(), ...fields });
    if (!added) throw new Conflict('IP address already exists');
    // Checked right away, not at the next sweep.
    await checkSoon({ accountId: req.accountId, kind: 'ip', subject: input.ip });
    return new Reply(201, ipJson(await requireIp(req.accountId, input.ip)));
  }),

  getMonitoredIp: operation(schema(() => z.object({ ip: ipAddress() })), async (req, input) => ipJson(await requireIp(req.accountId, input.ip))),

  updateMonitoredIp: operation(schema(() => z.object({ ip: ipAddress(), ...poolAndDescription() })), async (req, input) => {
    const subject = await requireIp(req.accountId, input.ip);
    if (input.ip_pool === undefined && input.description === undefined) throw new BadRequest('nothing to update: give description or ip_pool');
    const changes = { ...(input.ip_pool !== undefined ? { ipPool: input.ip_pool } : {}), ...(input.description !== undefined ? { description: input.description } : {}) };
    return ipJson(await updateSubject(subject, changes));
  }),

  removeMonitoredIp: operation(schema(() => z.object({ ip: ipAddress() })), async (req, input) => {
    await removeSubject(await requireIp(req.accountId, input.ip));
    return new Reply(204, undefined);
  }),

  ipBlocklistEvents: operation(
    schema(() =>
      z
        .object({
          timerangeStart: isoInstant().optional(),
          timerangeEnd: isoInstant().optional(),
          ip: ipAddress().optional(),
          blocklist: text().optional(),
          event: oneOfValues(['ip_listed', 'ip_delisted']).optional(),
        })
        .and(pivotPageInput('pivot', 10, 50)),
    ),
    async (req, input) => {
      if (input.timerangeStart && input.timerangeEnd && input.timerangeStart >= input.timerangeEnd) throw new BadRequest("Invalid parameter 'timerangeStart': must be before 'timerangeEnd'");
      const filters = { from: input.timerangeStart, to: input.timerangeEnd, subject: input.ip, list: input.blocklist, event: input.event };
      const extra = { timerangeStart: input.timerangeStart, timerangeEnd: input.timerangeEnd, ip: input.ip, blocklist: input.blocklist, event: input.event };
      const { items, paging } = await eventPage(req, [req.accountId], 'ip', input, filters, extra);
      return { items: items.map(ipEventJson), paging };
    },
  ),

  ipBlocklists: operation(schema(() => z.object({})), async () => ({ items: listsFor('ip').map((list) => ({ blocklist: list.zone, name: list.name })) })),

  listMonitoredDomains: operation(schema(() => z.object({ include_subaccounts: flag().optional() })), async (req, input) => {
    const accounts = await accountsCovered(req.accountId, input.include_subaccounts);
    const subjects = (await Promise.all(accounts.map((id) => accountSubjects(id, 'domain')))).flat();
    return { domains: subjects.map((s) => domainJson(s)), blocklists: domainBlocklistsJson() };
  }),

  domainBlocklistEvents: operation(
    schema(() => z.object({ include_subaccounts: flag().optional() }).and(pivotPageInput('pivot', 100, 1000))),
    async (req, input) => {
      const accounts = await accountsCovered(req.accountId, input.include_subaccounts);
      const { items, paging } = await eventPage(req, accounts, 'domain', input, {}, { include_subaccounts: input.include_subaccounts ? 'true' : undefined });
      return { events: items.map(domainEventJson), paging };
    },
  ),

  monitoredDomainEvents: operation(
    schema(() => z.object({ domain: keyPart() }).and(pivotPageInput('pivot', 100, 1000))),
    async (req, input) => {
      const subject = await requireDomain(req.accountId, input.domain);
      const { items, paging } = await eventPage(req, [req.accountId], 'domain', input, { subject: subject.subject }, {});
      return { events: items.map(domainEventJson), paging };
    },
  ),

  monitoredDomainBlocklists: operation(schema(() => z.object({ domain: keyPart() })), async (req, input) => ({
    blocklists: domainListings(await requireDomain(req.accountId, input.domain)),
  })),
}, { onBehalfOf });
