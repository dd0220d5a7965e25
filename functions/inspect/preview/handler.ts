import { z } from 'zod/v3';
import { deleteItems } from '../../data/store';
import { ApiError } from '../../platform/errors';
import { areaHandler, operation, type ApiRequest } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { atMost, boundedDocument, flag, integer, MAX_LENGTH, schema } from '../../platform/http/params';
import { htmlSourceFields } from '../common/source-input';
import { fetchHtml } from '../common/fetch-html';
import { htmlOfInput } from '../common/inspect-input';
import { catalogJson, previewCatalog } from './catalog';
import { clientResultJson, type ScreenshotUrl } from './client-result';
import { deleteContentChecks } from './content-checks';
import { asList, chooseClients, createPreviewTest } from './create-test';
import { contentAs } from './content-variants';
import { exportJson, requireExport } from './export-json';
import { exportKey, previewKeys } from './preview-store';
import { exportsOf, latestExport, startExport, exportKeys } from './export-store';
import { deliverObject } from './object-delivery';
import { previewAddressOf } from './preview-address';
import { PreviewError, testNotFound } from './preview-error';
import { listQuery, matchesListQuery } from './list-filter';
import {
  clientStates,
  clientState,
  findPreviewTest,
  listPreviewTests,
  nextRun,
  readContent,
  REPROCESS_BUDGET,
  screenshotKey,
  startRenders,
  type PreviewClientState,
  type PreviewTest,
} from './preview-store';
import { deleteTestObjects } from './test-objects';
import { requeueStale } from './requeue';
import { previewRoutes } from './routes';
import { isScreenshotName } from './screenshots';
import { sharePage } from './share-page';
import { createShare, deleteShare, findShare, openShare, rotateShare, setShareEnabled, type PreviewShare } from './share-store';

const checksInput = () =>
  z
    .object({ link_validation: z.boolean().optional(), image_validation: z.boolean().optional(), accessibility: z.boolean().optional(), code_analysis: z.boolean().optional() })
    .partial()
    .optional();

/** More client ids than any catalog has: an array of them, or one comma-separated string. */
const MAX_CLIENT_IDS = 500;
const clientIds = () => z.union([z.array(atMost(MAX_LENGTH.word)).max(MAX_CLIENT_IDS, { message: `must be at most ${MAX_CLIENT_IDS} clients` }), atMost(MAX_LENGTH.document)]);

/** A field the test keeps as given, whatever its JSON type (contract §5.1), bounded as a name is. */
const keptAsGiven = () =>
  z.unknown().refine((value) => JSON.stringify(value ?? null).length <= MAX_LENGTH.name, { message: `must be at most ${MAX_LENGTH.name} characters as JSON` });

const createInput = schema(() =>
  z
    .object({
      subject: atMost(MAX_LENGTH.headerLine).optional(),
      ...htmlSourceFields(),
      reference_id: atMost(MAX_LENGTH.name).optional(),
      customer_id: atMost(MAX_LENGTH.name).optional(),
      clients: clientIds().optional(),
      image_blocking: flag().optional(),
      headers: boundedDocument(z.record(z.string())).optional(),
      spam: boundedDocument(z.object({}).passthrough()).optional(),
      content_checking: checksInput(),
      user_id: keptAsGiven().optional(),
      folder_id: keptAsGiven().optional(),
      project_name: keptAsGiven().optional(),
    })
    .passthrough(),
);
const testInput = schema(() => z.object({ test_id: z.string() }));
const clientInput = schema(() => z.object({ test_id: z.string(), client_id: z.string() }));
const screenshotInput = schema(() => z.object({ test_id: z.string(), client_id: z.string(), file: z.string() }));
const contentInput = schema(() => z.object({ test_id: z.string(), content: z.string() }));
const reprocessInput = schema(() => z.object({ test_id: z.string(), clients: clientIds() }));
const exportInput = schema(() => z.object({ test_id: z.string(), clients: clientIds() }).passthrough());
const jobInput = schema(() => z.object({ test_id: z.string(), job_id: z.string() }));
const shareCreateInput = schema(() => z.object({ test_id: atMost(MAX_LENGTH.reference) }));
const shareInput = schema(() => z.object({ test_id: z.string(), url_uuid: atMost(MAX_LENGTH.reference).optional() }));
const shareUpdateInput = schema(() => z.object({ test_id: z.string(), url_uuid: atMost(MAX_LENGTH.reference).optional(), enabled: flag() }));
const publicInput = schema(() => z.object({ id: z.string() }));
const pageInput = schema(() => z.object({ uuid: z.string() }));
const publicScreenshotInput = schema(() => z.object({ uuid: z.string(), client_id: z.string(), file: z.string() }));
const listInput = schema(() =>
  z
    .object({
      results: integer()
        .refine((n) => n >= 1 && n <= 200, { message: 'must be between 1 and 200' })
        .default(50),
      page: integer()
        .refine((n) => n >= 1, { message: 'must be 1 or more' })
        .default(1),
    })
    .passthrough(),
);


async function requireTest(accountId: string, testId: string): Promise<PreviewTest> {
  const test = await findPreviewTest(accountId, testId);
  if (!test) throw testNotFound(testId);
  return test;
}

const apiScreenshotUrl =
  (req: ApiRequest, testId: string): ScreenshotUrl =>
  (clientId, name) =>
    `${req.baseUrl}/v1/preview/tests/${testId}/screenshots/${clientId}/${name}.png`;

const shareScreenshotUrl =
  (req: ApiRequest, uuid: string): ScreenshotUrl =>
  (clientId, name) =>
    `${req.baseUrl}/preview/share/${uuid}/${clientId}/${name}.png`;

/** The clients' states, stale ones re-queued first (the 3-minute rule applies on every read). */
async function currentStates(test: PreviewTest): Promise<PreviewClientState[]> {
  return requeueStale(await clientStates(test));
}

async function createTest(req: ApiRequest, input: z.infer<ReturnType<typeof createInput>>) {
  if (!input.subject?.trim()) throw new PreviewError(400, 'NoSubject', "A test needs a 'subject'");
  if (!input.html && !input.url && !input.mime) throw new PreviewError(400, 'NoSource', "A test needs its email as one of 'html', 'url' or 'mime'");
  const html = await htmlOfInput(input, (url) =>
    fetchHtml(url).catch((error: Error) => {
      throw new PreviewError(400, 'InvalidURL', error.message);
    }),
  );
  for (const name of Object.keys(input.headers ?? {})) {
    if (!/^x-/i.test(name) || /^x-eoa/i.test(name)) throw new PreviewError(400, 'InvalidParameter', `Header '${name}' is not allowed: only X- headers, not X-EOA ones`);
  }
  const clients = chooseClients(input.clients === undefined ? undefined : asList(input.clients), await previewCatalog());
  if (!clients.clients.length) throw new PreviewError(400, 'NoClients', 'None of the clients asked for is in the catalog (GET /v1/preview/tests/clients)');
  const created = (await createPreviewTest({
    accountId: req.accountId,
    subject: input.subject,
    html,
    clients: clients.clients,
    imageBlocking: input.image_blocking ?? false,
    headers: input.headers ?? {},
    referenceId: input.reference_id,
    customerId: input.customer_id,
    checks: input.content_checking ?? {},
    extra: { spam: input.spam, user_id: input.user_id, folder_id: input.folder_id, project_name: input.project_name },
  }))!;
  const { test } = created;
  return {
    id: test.id,
    ...(test.referenceId ? { reference_id: test.referenceId } : {}),
    ...(test.customerId ? { customer_id: test.customerId } : {}),
    // Spam testing is accepted and kept, not performed (contract §7.5): no seed addresses are offered.
    ...(created.spamKey ? { spam: { key: created.spamKey, address_list: [] } } : {}),
    warnings: clients.warnings,
    content_checking: test.contentChecking,
  };
}

async function listTests(req: ApiRequest, input: z.infer<ReturnType<typeof listInput>>) {
  const query = listQuery(req.params);
  const all = (await listPreviewTests(req.accountId)).filter((test) => matchesListQuery(test, query));
  const page = all.slice((input.page - 1) * input.results, input.page * input.results);
  return page.map((test) => ({ id: test.id, date: test.date, type: 'email-test', subject: test.subject, headers: test.headers }));
}

async function testInfo(req: ApiRequest, testId: string) {
  const test = await requireTest(req.accountId, testId);
  const states = await currentStates(test);
  const having = (status: string) => states.filter((s) => s.status === status).map((s) => s.clientId);
  return { subject: test.subject, date: test.date, completed: having('Complete'), processing: [...having('Processing'), ...having('Pending')], bounced: having('Bounced'), content_checking: test.contentChecking };
}

async function deleteTest(req: ApiRequest, testId: string) {
  const test = await requireTest(req.accountId, testId);
  const share = await findShare(req.accountId, test.id);
  if (share) await deleteShare(share);
  await deleteContentChecks(req.accountId, test.contentChecking);
  const jobs = await exportsOf(req.accountId, test.id);
  await deleteItems([...jobs.map((job) => exportKeys.previewExport(req.accountId, test.id, job.jobId)), ...test.clients.map((clientId) => previewKeys.previewClient(req.accountId, test.id, clientId)), previewKeys.previewTest(req.accountId, test.id)]);
  await deleteTestObjects(req.accountId, test.id);
  return { success: true };
}

/** A screenshot of a client's current run: 425 while it renders, 404 when it never will. */
async function screenshot(test: PreviewTest, clientId: string, file: string) {
  const name = file.replace(/\.png$/i, '');
  const state = test.clients.includes(clientId) ? await clientState(test.accountId, test.id, clientId) : undefined;
  if (!state || !isScreenshotName(name)) throw new PreviewError(404, 'NotFound', `No screenshot ${file} for client ${clientId} in this test`);
  if (state.status === 'Processing' || state.status === 'Pending') throw new PreviewError(425, 'ProcessingError', `The ${clientId} screenshot is still rendering`, { 'retry-after': '5' });
  if (state.status === 'Bounced' || !state.screenshots?.includes(name)) throw new PreviewError(404, 'NotFound', `Client ${clientId} has no ${name} screenshot in this test`);
  const reply = await deliverObject(screenshotKey(state, name), 'image/png');
  if (!reply) throw new PreviewError(404, 'NotFound', `The ${name} screenshot of ${clientId} is no longer stored`);
  return reply;
}

async function requireShare(req: ApiRequest, testId: string, uuid?: string): Promise<PreviewShare> {
  const test = await requireTest(req.accountId, testId);
  const share = await findShare(req.accountId, test.id);
  if (!share || (uuid !== undefined && share.url_uuid !== uuid)) throw new PreviewError(404, 'NotFound', `No share for test ${testId}${uuid ? ` with url_uuid ${uuid}` : ''}`);
  return share;
}

const shareJson = (req: ApiRequest, share: PreviewShare) => ({ test_id: share.testId, url_uuid: share.url_uuid, url: `${req.baseUrl}/preview/share/${share.url_uuid}`, enabled: share.enabled, expires_at: share.expires_at });

/** What a share's visitor sees: its test, or a 404 for a disabled, expired, rotated or unknown uuid. */
async function sharedTest(uuid: string) {
  const share = await openShare(uuid);
  const test = share && (await findPreviewTest(share.accountId, share.testId));
  if (!share || !test) throw new PreviewError(404, 'NotFound', 'This share link does not exist, was disabled or rotated, or has expired');
  return { share, test };
}

const addressReply = async (req: ApiRequest) => ({ preview_address: await previewAddressOf(req.accountId) });

export const handler = areaHandler(previewRoutes, {
  listPreviewClients: operation(() => z.object({}).passthrough(), async () => catalogJson()),
  createPreviewTest: operation(createInput, createTest),
  createPreviewTestV1: operation(createInput, createTest),
  listPreviewTests: operation(listInput, listTests),
  listPreviewTestsV1: operation(listInput, listTests),
  getPreviewTest: operation(testInput, (req, input) => testInfo(req, input.test_id)),
  getPreviewTestV1: operation(testInput, (req, input) => testInfo(req, input.test_id)),
  deletePreviewTest: operation(testInput, (req, input) => deleteTest(req, input.test_id)),
  deletePreviewTestV1: operation(testInput, (req, input) => deleteTest(req, input.test_id)),

  getPreviewResults: operation(testInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    const states = await currentStates(test);
    const url = apiScreenshotUrl(req, test.id);
    return Object.fromEntries(test.clients.map((clientId) => {
      const state = states.find((s) => s.clientId === clientId);
      return [clientId, state ? clientResultJson(test, state, url) : null];
    }));
  }),

  getPreviewClientResult: operation(clientInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    if (!test.clients.includes(input.client_id)) throw new PreviewError(404, 'ClientNotFound', `Client ${input.client_id} is not in test ${test.id}${(await previewCatalog()).has(input.client_id) ? '' : ', nor in the catalog'}`);
    const [state] = await requeueStale(await clientStates({ ...test, clients: [input.client_id] }));
    return { [input.client_id]: clientResultJson(test, state!, apiScreenshotUrl(req, test.id)) };
  }),

  reprocessPreviewClients: operation(reprocessInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    const asked = [...new Set(asList(input.clients))];
    const outside = asked.filter((id) => !test.clients.includes(id));
    if (outside.length) throw new PreviewError(400, 'InvalidTestClient', `Not in test ${test.id}: ${outside.join(', ')}`);
    const states = await clientStates({ ...test, clients: asked });
    const reply: Record<string, object> = {};
    const started = [];
    for (const state of states) {
      if (state.status === 'Bounced') reply[state.clientId] = { success: false, reason: 'A bounced client cannot be reprocessed' };
      else if (state.reprocessesLeft <= 0) reply[state.clientId] = { success: false, reason: `No reprocesses left (${REPROCESS_BUDGET} per client)` };
      else {
        const next = await nextRun(state, { attempts: 0, reprocessesLeft: state.reprocessesLeft - 1 });
        if (!next) reply[state.clientId] = { success: false, reason: 'The client changed meanwhile: try again' };
        else {
          started.push(next);
          reply[state.clientId] = { success: true, remaining_reprocesses: next.reprocessesLeft, regional: false };
        }
      }
    }
    await startRenders(started);
    return reply;
  }),

  getPreviewScreenshot: operation(screenshotInput, async (req, input) => screenshot(await requireTest(req.accountId, input.test_id), input.client_id, input.file)),

  getPreviewContent: operation(testInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    return { content: (await readContent(req.accountId, test.id)) ?? '' };
  }),

  getPreviewContentAs: operation(contentInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    const html = (await readContent(req.accountId, test.id)) ?? '';
    try {
      return { content: contentAs(html, input.content) };
    } catch (error) {
      if (error instanceof ApiError) throw new PreviewError(400, 'InvalidParameter', error.message);
      throw error;
    }
  }),

  previewAddress: operation(() => z.object({}).passthrough(), addressReply),
  previewAddressV1: operation(() => z.object({}).passthrough(), addressReply),

  startPreviewExport: operation(exportInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    const bodyTestId = (req.json as { test_id?: unknown } | undefined)?.test_id;
    if (bodyTestId !== undefined && bodyTestId !== test.id) throw new PreviewError(400, 'InvalidParameter', "'test_id' in the body must be the test of the path");
    const clients = [...new Set(asList(input.clients))];
    if (!clients.length) throw new PreviewError(400, 'NoClients', "Name the clients to export in 'clients'");
    const outside = clients.filter((id) => !test.clients.includes(id));
    if (outside.length) throw new PreviewError(400, 'InvalidTestClient', `Not in test ${test.id}: ${outside.join(', ')}`);
    return exportJson(req, await startExport(req.accountId, test.id, clients));
  }),

  getLatestPreviewExport: operation(testInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    const job = await latestExport(req.accountId, test.id);
    if (!job) throw new PreviewError(404, 'NotFound', `Test ${test.id} has no export jobs`);
    return exportJson(req, job);
  }),

  getPreviewExport: operation(jobInput, async (req, input) => exportJson(req, await requireExport(req.accountId, (await requireTest(req.accountId, input.test_id)).id, input.job_id))),

  downloadPreviewExport: operation(jobInput, async (req, input) => {
    const job = await requireExport(req.accountId, (await requireTest(req.accountId, input.test_id)).id, input.job_id);
    if (job.job_status === 'Processing') throw new PreviewError(425, 'ProcessingError', 'The export is still being made', { 'retry-after': '5' });
    const reply = job.job_status === 'Completed' ? await deliverObject(exportKey(req.accountId, job.testId, job.jobId), 'application/zip', `preview-${job.testId}-${job.jobId}.zip`) : undefined;
    if (!reply) throw new PreviewError(404, 'NotFound', `Export ${job.jobId} has no zip${job.error ? `: ${job.error.message}` : ''}`);
    return reply;
  }),

  createPreviewShare: operation(shareCreateInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    await createShare(req.accountId, test.id);
    return { message: 'record created' };
  }),

  getPreviewShare: operation(shareInput, async (req, input) => shareJson(req, await requireShare(req, input.test_id))),

  updatePreviewShare: operation(shareUpdateInput, async (req, input) => {
    const share = await requireShare(req, input.test_id, input.url_uuid);
    if (!(await setShareEnabled(share, input.enabled))) throw new PreviewError(409, 'BadRequest', 'The share was rotated or deleted meanwhile');
    return { message: 'record updated' };
  }),

  deletePreviewShare: operation(shareInput, async (req, input) => {
    await deleteShare(await requireShare(req, input.test_id, input.url_uuid));
    return { message: 'record deleted' };
  }),

  rotatePreviewShare: operation(shareInput, async (req, input) => {
    const rotated = await rotateShare(await requireShare(req, input.test_id, input.url_uuid));
    if (!rotated) throw new PreviewError(409, 'BadRequest', 'The share was rotated or deleted meanwhile');
    return shareJson(req, rotated);
  }),

  getPublicPreviewShare: operation(publicInput, async (req, input) => {
    const { share, test } = await sharedTest(input.id);
    const states = await clientStates(test);
    return { subject: test.subject, date: test.date, results: states.map((state) => clientResultJson(test, state, shareScreenshotUrl(req, share.url_uuid))) };
  }),

  previewSharePage: operation(pageInput, async (req, input) => {
    const shared = await sharedTest(input.uuid);
    const states = await clientStates(shared.test);
    return sharePage(shared.test.subject, shared.test.date, states.map((state) => clientResultJson(shared.test, state, shareScreenshotUrl(req, shared.share.url_uuid))));
  }),

  previewShareScreenshot: operation(publicScreenshotInput, async (_req, input) => {
    const { test } = await sharedTest(input.uuid);
    return screenshot(test, input.client_id, input.file);
  }),
}, { onBehalfOf });
