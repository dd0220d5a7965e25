import { z } from 'zod/v3';
import { BadRequest, NotFound } from '../../platform/errors';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { absoluteUrl } from '../../platform/http/paging';
import { atMost, integer, MAX_LENGTH, schema, text } from '../../platform/http/params';
import { processingReply, selfLink } from '../common/envelope';
import { createTest, deleteTest, findTest, listTests, PROCESSING, readResult, rerunTest, type InspectTest } from '../common/inspect-store';
import { htmlSourceFields, storedSourceOf } from '../common/source-input';
import type { LinkInput, LinkResult } from './link-checker';
import { MAX_LINKS } from './link-limits';
import { linkPageToken, readLinkPageToken } from './page-token';
import { linkRoutes } from './routes';

const BASE = '/v1/inspect/links';

const MAX_PAGE = 100;

const position = () => integer().optional();
const createInput = schema(() =>
  z.object({
    links: z.array(atMost(MAX_LENGTH.url)).optional(),
    linksWithPositions: z
      .array(z.object({ url: atMost(MAX_LENGTH.url), line: position(), column: position(), selector: atMost(MAX_LENGTH.note).optional(), absolute_index: position() }))
      .optional(),
    userAgent: z.string().max(512).nullable().optional(),
  }),
);
const htmlInput = schema(() => z.object({ ...htmlSourceFields(), userAgent: z.string().max(512).nullable().optional() }));
const idInput = schema(() => z.object({ id: z.string() }));
const listInput = schema(() =>
  z.object({
    page: text().optional(),
    limit: integer()
      .refine((n) => n >= 1 && n <= MAX_PAGE, { message: `must be between 1 and ${MAX_PAGE}` })
      .default(10),
    status: text().optional(),
    id: text().optional(),
    url: text().optional(),
    isExpiredSSL: text().optional(),
    statusCode: integer().optional(),
  }),
);

interface LinkSummary {
  count: number;
  invalid: number;
  statusCodes: number[];
  expiredSsl: boolean;
}

/** A stored test as Mailgun shows it: its id, where it lives, and (once done) its results. */
async function linkTestJson(test: InspectTest) {
  const results = test.status === PROCESSING ? [] : ((await readResult<{ results: LinkResult[] }>(test, test.run))?.results ?? []);
  return { id: test.id, links: selfLink(BASE, test.id), results };
}

async function requireTest(accountId: string, id: string): Promise<InspectTest> {
  const test = await findTest(accountId, 'links', id);
  if (!test) throw new NotFound(`Link validation test with id ${id} not found`);
  return test;
}

function matchesFilters(test: InspectTest, input: z.infer<ReturnType<typeof listInput>>): boolean {
  const summary = test.summary as LinkSummary | undefined;
  if (input.status && test.status.toLowerCase() !== input.status.toLowerCase()) return false;
  if (input.id && test.id !== input.id.toLowerCase()) return false;
  if (input.url) {
    const urls = (test.meta?.['urls'] as string[] | undefined) ?? [];
    if (!urls.some((url) => url.toLowerCase().includes(input.url!.toLowerCase()))) return false;
  }
  if (input.isExpiredSSL !== undefined) {
    const wanted = input.isExpiredSSL.toLowerCase() === 'true';
    if ((summary?.expiredSsl ?? false) !== wanted) return false;
  }
  if (input.statusCode !== undefined && !(summary?.statusCodes ?? []).includes(input.statusCode)) return false;
  return true;
}

/** What a link test remembers for the list's `url` filter: its links, up to a size an item holds comfortably. */
function urlsForSearch(links: LinkInput[]): string[] {
  const out: string[] = [];
  let bytes = 0;
  for (const { url } of links) {
    bytes += url.length;
    if (bytes > 64 * 1024) break;
    out.push(url);
  }
  return out;
}

export const handler = areaHandler(linkRoutes, {
  createLinkTest: operation(createInput, async (req, input) => {
    const links: LinkInput[] = [...(input.links ?? []).map((url) => ({ url })), ...(input.linksWithPositions ?? [])];
    if (!links.length) throw new BadRequest("Provide at least one URL in 'links' or 'linksWithPositions'");
    if (links.length > MAX_LINKS) throw new BadRequest(`A test checks at most ${MAX_LINKS} links; ${links.length} were given`);
    const test = await createTest(req.accountId, 'links', { links, userAgent: input.userAgent ?? null }, { urls: urlsForSearch(links) });
    return processingReply(BASE, test);
  }),

  createLinkTestFromHtml: operation(htmlInput, async (req, input) => {
    const source = await storedSourceOf(input);
    const test = await createTest(req.accountId, 'links', { ...source, userAgent: input.userAgent ?? null }, 'url' in source ? { urls: [source.url] } : {});
    return processingReply(BASE, test);
  }),

  listLinkTests: operation(listInput, async (req, input) => {
    const all = (await listTests(req.accountId, 'links')).filter((test) => matchesFilters(test, input));
    const token = input.page ? readLinkPageToken(input.page) : { s: 0, p: false };
    // Newest first; a token's boundary id says where the page starts (exclusive), `p` which way. A
    // boundary since deleted (or expired) ends the walk with an empty page, so a client following
    // `next` until it is empty always stops.
    const boundary = token.b ? all.findIndex((test) => test.id === token.b) : -1;
    let page: InspectTest[];
    if (token.b && boundary < 0) page = [];
    else if (boundary < 0) page = token.p ? all.slice(-input.limit) : all.slice(0, input.limit);
    else if (token.p) page = all.slice(Math.max(0, boundary - input.limit), boundary);
    else page = all.slice(boundary + 1, boundary + 1 + input.limit);
    const query: Record<string, string | undefined> = { limit: String(input.limit) };
    for (const name of ['status', 'id', 'url', 'isExpiredSSL'] as const) query[name] = input[name];
    if (input.statusCode !== undefined) query['statusCode'] = String(input.statusCode);
    const url = (t: Parameters<typeof linkPageToken>[0]) => absoluteUrl(req.baseUrl, BASE, { ...query, page: linkPageToken(t) });
    return {
      meta: { count: all.length },
      paging: {
        first: url({ s: 0, p: false }),
        last: url({ s: 0, p: true }),
        next: url({ s: 0, b: page.at(-1)?.id ?? token.b ?? '', p: false }),
        previous: url({ s: 0, b: page[0]?.id ?? token.b ?? '', p: true }),
      },
      items: await Promise.all(page.map(linkTestJson)),
    };
  }),

  getLinkTest: operation(idInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.id);
    return { meta: { status: test.status }, items: await linkTestJson(test) };
  }),

  reprocessLinkTest: operation(idInput, async (req, input) => {
    const test = await rerunTest(await requireTest(req.accountId, input.id));
    return processingReply(BASE, test);
  }),

  deleteLinkTest: operation(idInput, async (req, input) => {
    await deleteTest(await requireTest(req.accountId, input.id));
    return { message: `Link validation test with test id ${input.id} has been successfully deleted.` };
  }),

  compareLinkTestCsv: operation(idInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.id);
    const file = req.files.find((f) => f.field === 'csv') ?? req.files[0];
    if (!file) throw new BadRequest("Attach the expected links as a multipart file part named 'csv' (CSV, XLS or XLSX)");
    if (test.status === PROCESSING) throw new BadRequest('The test is still processing; compare once it has completed');
    const results = (await readResult<{ results: LinkResult[] }>(test, test.run))?.results ?? [];
    // exceljs and csv-parse are a side bundle of this Lambda (lib/side-bundles.ts), for this route only.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { compareWithExpected } = require('./expected-links') as typeof import('./expected-links');
    const comparison = await compareOrRefuse(() => compareWithExpected({ filename: file.filename, contentType: file.contentType, data: file.content }, results));
    return { meta: { status: 'Complete' }, items: comparison };
  }),
}, { onBehalfOf });

/** A file the comparison cannot read is the caller's mistake: a 400 with the reason. */
async function compareOrRefuse<T>(compare: () => T | Promise<T>): Promise<T> {
  try {
    return await compare();
  } catch (error) {
    if ((error as { name?: string }).name === 'ExpectedLinksError') throw new BadRequest((error as Error).message);
    throw error;
  }
}
