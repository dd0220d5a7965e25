import { z } from 'zod/v3';
import { Forbidden, NotFound } from '../../platform/errors';
import { atMost, boundedDocument, boundedList, boundedText, flag, integer, list, MAX_LENGTH, oneOfValues, schema, text } from '../../platform/http/params';
import { absoluteUrl } from '../../platform/http/paging';
import { areaHandler, operation, type ApiRequest } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { primaryAccountId } from '../../accounts/account-store';
import { byTime, offsetPage, pageInput, sortInput, timeBound } from './paging';
import { runPlacementTest, testMailingList } from './placement-test';
import { providersJson, resultJson, seedListJson, seedMailboxJson, sharingJson } from './present';
import { accountResults, deleteResult, requireResult, setSharing, sharedResult, type ResultItem } from './results';
import { inboxRoutes } from './routes';
import { createSeedList, deleteSeedList, requireSeedList, seedFilterRegex, seedLists, updateSeedList } from './seed-lists';
import { checkImapHost, putSeedMailbox, removeSeedMailbox, seedMailboxes } from './seed-mailboxes';
import { placementSharePage } from './share-page';

const name = () => boundedText(MAX_LENGTH.name);
/** Taken as Mailgun's clients send it, and not kept. */
const sendingDomains = () => boundedList(MAX_LENGTH.host, 1000);
/** A seed's first or last name, as the placement copies greet it. */
const MAX_NAME_PART = 128;
const providerList = () => list().refine((v) => v.every((p) => /^[a-z0-9.-]{1,253}$/i.test(p)), { message: 'must be provider domains' });
const jsonObject = () =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  }, boundedDocument(z.record(z.unknown(), { invalid_type_error: 'must be a JSON object' })));

const SEEDLIST_FILTERS = [
  { parameter: 'name', description: 'seed lists with this name' },
  { parameter: 'time_before', description: 'seed lists created before this time (RFC 3339)' },
  { parameter: 'time_after', description: 'seed lists created after this time (RFC 3339)' },
];
const RESULT_FILTERS = [
  { parameter: 'senderaddr', description: 'results of messages from this address' },
  { parameter: 'subject', description: 'results of messages with this subject' },
  { parameter: 'provider', description: 'results with a seed at this provider' },
  { parameter: 'target_email', description: 'results of this seed list target address' },
  { parameter: 'time_before', description: 'results received before this time (RFC 3339)' },
  { parameter: 'time_after', description: 'results received after this time (RFC 3339)' },
];
const RESULT_ATTRIBUTES = ['sender', 'subject', 'provider', 'target_email'] as const;

async function configuredByEmail() {
  return new Map((await seedMailboxes()).map((s) => [s.email, s]));
}

/** Seed mailboxes are the operator's: the primary account's admin keys manage them, no one else. */
async function requireOperator(req: ApiRequest): Promise<void> {
  if (req.accountId !== (await primaryAccountId())) throw new Forbidden("seed mailboxes are the operator's: only the primary account's admin keys manage them");
}

const within = (at: string, after?: number, before?: number) => (after === undefined || Date.parse(at) >= after) && (before === undefined || Date.parse(at) <= before);

function resultValues(results: readonly ResultItem[], attribute: (typeof RESULT_ATTRIBUTES)[number]): string[] {
  const values = results.flatMap((r) => (attribute === 'provider' ? r.seeds.map((s) => s.provider) : [attribute === 'sender' ? r.sender : attribute === 'subject' ? r.subject : r.targetEmail]));
  return [...new Set(values)].sort();
}

export const handler = areaHandler(inboxRoutes, {
  listSeedLists: operation(
    schema(() => z.object({ name: text().optional(), time_after: timeBound().optional(), time_before: timeBound().optional(), sort: sortInput(['name', 'created_at', 'updated_at', 'last_result_at']), ...pageInput() })),
    async (req, input) => {
      const configured = await configuredByEmail();
      const lists = (await seedLists(req.accountId)).filter((l) => (input.name === undefined || l.name === input.name) && within(l.createdAt, input.time_after, input.time_before));
      const sort = input.sort ?? 'created_at';
      const at = (l: (typeof lists)[number]) => (sort === 'name' ? l.name : sort === 'updated_at' ? l.updatedAt : sort === 'last_result_at' ? (l.lastResultAt ?? '') : l.createdAt);
      byTime(lists, at, input.ascending ?? sort === 'name');
      const page = offsetPage(req, lists, input, { name: input.name, sort: input.sort, ascending: input.ascending === undefined ? undefined : String(input.ascending), time_after: req.params['time_after'] as string | undefined, time_before: req.params['time_before'] as string | undefined });
      return { ...page, items: page.items.map((l) => seedListJson(l, configured)) };
    },
  ),

  createSeedList: operation(
    schema(() =>
      z.object({
        name: name(),
        seed_filter: boundedText(MAX_LENGTH.name).optional(),
        provider_filter: providerList().optional(),
        max_seeds_per_provider: integer().refine((n) => n >= 0 && n <= 1000, { message: 'must be between 0 and 1000' }).optional(),
        remote_id: boundedText(MAX_LENGTH.reference).optional(),
        sending_domains: sendingDomains().optional(),
      }),
    ),
    async (req, input) => {
      seedFilterRegex(input.seed_filter ?? '');
      const created = await createSeedList(req.accountId, { name: input.name, remoteId: input.remote_id ?? '', seedFilter: input.seed_filter ?? '', providerFilter: input.provider_filter ?? [], maxSeedsPerProvider: input.max_seeds_per_provider ?? 0 });
      return seedListJson(created, await configuredByEmail());
    },
  ),

  seedListAttributes: operation(schema(() => z.object({})), async () => ({ items: { attribute: 'available attributes', values: ['name'] } })),

  seedListAttribute: operation(schema(() => z.object({ attribute: text() })), async (req, input) => {
    if (input.attribute !== 'name') throw new NotFound(`unknown attribute ${input.attribute}: the attribute of seed lists is name`);
    return { items: { attribute: 'name', values: [...new Set((await seedLists(req.accountId)).map((l) => l.name))].sort() } };
  }),

  seedListFilters: operation(schema(() => z.object({})), async () => ({ supported_filters: { filters: SEEDLIST_FILTERS } })),

  getSeedList: operation(schema(() => z.object({ address: text() })), async (req, input) => ({ seedlist: seedListJson(await requireSeedList(req.accountId, input.address), await configuredByEmail()) })),

  updateSeedList: operation(
    schema(() => z.object({ address: text(), name: name().optional(), provider_filter: providerList().optional(), regen: flag().optional(), shuffle: flag().optional(), sending_domains: sendingDomains().optional() })),
    async (req, input) => {
      const current = await requireSeedList(req.accountId, input.address);
      const updated = await updateSeedList(current, { name: input.name, providerFilter: input.provider_filter, regen: input.regen ?? false, shuffle: input.shuffle ?? false });
      return seedListJson(updated, await configuredByEmail());
    },
  ),

  deleteSeedList: operation(schema(() => z.object({ address: text() })), async (req, input) => {
    await deleteSeedList(await requireSeedList(req.accountId, input.address));
    return null;
  }),

  runPlacementTest: operation(
    schema(() =>
      z.object({
        from: boundedText(MAX_LENGTH.headerLine),
        subject: boundedText(MAX_LENGTH.headerLine),
        html: text().optional(),
        template_name: boundedText(MAX_LENGTH.reference).optional(),
        account_template_name: boundedText(MAX_LENGTH.reference).optional(),
        variables: jsonObject().optional(),
        headers: jsonObject()
          .refine((h) => Object.entries(h).every(([k, v]) => /^[!-9;-~]+$/.test(k) && typeof v === 'string'), { message: 'must map header names to strings' })
          .optional(),
        seed_list: boundedText(MAX_LENGTH.address).optional(),
        provider_filter: z.preprocess((v) => (v === null ? undefined : v), providerList().optional()),
        sending_ip: boundedText(MAX_LENGTH.ip).optional(),
        sending_ip_pool_id: boundedText(MAX_LENGTH.reference).optional(),
        max_seeds_per_provider: integer().refine((n) => n >= 0 && n <= 1000, { message: 'must be between 0 and 1000' }).optional(),
      }),
    ),
    async (req, input) => {
      const { resultId, list: seedList, seeds } = await runPlacementTest(req.accountId, { ...input, headers: input.headers as Record<string, string> | undefined });
      return { result_id: resultId, mailing_list: testMailingList(seedList, seeds), links: { results: absoluteUrl(req.baseUrl, `/v4/inbox/results/${resultId}`) } };
    },
  ),

  listResults: operation(
    schema(() =>
      z.object({
        sender: text().optional(),
        senderaddr: text().optional(),
        subject: text().optional(),
        provider: text().optional(),
        target_email: text().optional(),
        time_after: timeBound().optional(),
        time_before: timeBound().optional(),
        sort: sortInput(['created_at', 'updated_at', 'subject', 'sender']),
        ...pageInput(),
      }),
    ),
    async (req, input) => {
      const sender = (input.sender ?? input.senderaddr)?.toLowerCase();
      const results = (await accountResults(req.accountId)).filter(
        (r) =>
          (sender === undefined || r.sender.toLowerCase() === sender) &&
          (input.subject === undefined || r.subject === input.subject) &&
          (input.provider === undefined || r.seeds.some((s) => s.provider === input.provider!.toLowerCase())) &&
          (input.target_email === undefined || r.targetEmail === input.target_email.toLowerCase()) &&
          within(r.createdAt, input.time_after, input.time_before),
      );
      const sort = input.sort ?? 'created_at';
      byTime(results, (r) => (sort === 'subject' ? r.subject : sort === 'sender' ? r.sender : sort === 'updated_at' ? r.updatedAt : r.createdAt), input.ascending ?? false);
      const page = offsetPage(req, results, input, { sender: input.sender ?? input.senderaddr, subject: input.subject, provider: input.provider, target_email: input.target_email, sort: input.sort, time_after: req.params['time_after'] as string | undefined, time_before: req.params['time_before'] as string | undefined });
      return { ...page, items: page.items.map((r) => resultJson(r)) };
    },
  ),

  resultAttributes: operation(schema(() => z.object({})), async () => ({ items: { attribute: 'available attributes', values: [...RESULT_ATTRIBUTES] } })),

  resultAttribute: operation(schema(() => z.object({ attribute: oneOfValues(RESULT_ATTRIBUTES) })), async (req, input) => ({
    items: { attribute: input.attribute, values: resultValues(await accountResults(req.accountId), input.attribute) },
  })),

  resultFilters: operation(schema(() => z.object({})), async () => ({ supported_filters: { filters: RESULT_FILTERS } })),

  getResult: operation(schema(() => z.object({ result: text(), provider: text().optional() })), async (req, input) => ({
    result: resultJson(await requireResult(req.accountId, input.result), { body: true, provider: input.provider?.toLowerCase() }),
  })),

  deleteResult: operation(schema(() => z.object({ result: text() })), async (req, input) => {
    await deleteResult(await requireResult(req.accountId, input.result));
    // mailgun.js types the reply `Message`, Mailgun's generic model `message`: both, so both read it.
    return { Message: 'result deleted', message: 'result deleted' };
  }),

  getSharing: operation(schema(() => z.object({ result: text() })), async (req, input) => ({ sharing: sharingJson(req.baseUrl, await requireResult(req.accountId, input.result)) })),

  updateSharing: operation(schema(() => z.object({ result: text(), enabled: flag() })), async (req, input) => {
    const result = await requireResult(req.accountId, input.result);
    const sharing = await setSharing(result, input.enabled);
    return { sharing: sharingJson(req.baseUrl, { ...result, sharing }) };
  }),

  publicResult: operation(schema(() => z.object({ shareid: text() })), async (_req, input) => ({ result: resultJson(await sharedResult(input.shareid), { shared: true }) })),

  publicResultPage: operation(schema(() => z.object({ shareid: text() })), async (_req, input) => placementSharePage(resultJson(await sharedResult(input.shareid), { shared: true }))),

  listProviders: operation(schema(() => z.object({})), async () => providersJson(await seedMailboxes())),

  listSeedMailboxes: operation(schema(() => z.object({})), async (req) => {
    await requireOperator(req);
    return { items: (await seedMailboxes()).map(seedMailboxJson) };
  }),

  putSeedMailbox: operation(
    schema(() =>
      z
        .object({
          email: text().pipe(atMost(MAX_LENGTH.address).email({ message: 'must be an email address' })),
          provider: text().refine((v) => /^[a-z0-9.-]{1,253}$/i.test(v), { message: 'must be the provider domain' }),
          imap_host: text()
            .transform((v) => v.trim())
            .refine((v) => v.length <= MAX_LENGTH.host, { message: 'must be a host name' }),
          imap_port: integer().refine((n) => n >= 1 && n <= 65535, { message: 'must be a port' }).default(993),
          imap_tls: flag().default(true),
          imap_user: boundedText(MAX_LENGTH.name).optional(),
          password: boundedText(MAX_LENGTH.secret).optional(),
          oauth2_token: boundedText(MAX_LENGTH.secret).optional(),
          first_name: boundedText(MAX_NAME_PART).optional(),
          last_name: boundedText(MAX_NAME_PART).optional(),
        })
        // Neither keeps the stored one (an edit); a new mailbox needs one (putSeedMailbox says so).
        .refine((v) => !(v.password && v.oauth2_token), { message: 'give one of password (or app password) and oauth2_token, not both', path: ['password'] }),
    ),
    async (req, input) => {
      await requireOperator(req);
      await checkImapHost(input.imap_host);
      const seed = await putSeedMailbox({
        email: input.email,
        provider: input.provider,
        imapHost: input.imap_host,
        imapPort: input.imap_port,
        imapTls: input.imap_tls,
        imapUser: input.imap_user ?? input.email,
        credential: input.oauth2_token ? { auth: 'oauth2', secret: input.oauth2_token } : input.password ? { auth: 'password', secret: input.password } : undefined,
        firstName: input.first_name ?? '',
        lastName: input.last_name ?? '',
      });
      return { message: 'seed mailbox saved', seed_mailbox: seedMailboxJson(seed) };
    },
  ),

  removeSeedMailbox: operation(schema(() => z.object({ email: text() })), async (req, input) => {
    await requireOperator(req);
    if (!(await removeSeedMailbox(input.email))) throw new NotFound('seed mailbox not found');
    return { message: 'seed mailbox removed' };
  }),
}, { onBehalfOf });

