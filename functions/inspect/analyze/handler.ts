import { z } from 'zod/v3';
import { BadRequest, NotFound } from '../../platform/errors';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { flag, integer, oneOfValues, schema, text } from '../../platform/http/params';
import { objectId } from '../../platform/ids';
import { skipLimitInput } from '../../platform/http/paging';
import { selfLink, skipLimitPaging } from '../common/envelope';
import { createTest, deleteTest, findTest, listTests, putJson, readResult, resultKey, rerunTest, type InspectTest } from '../common/inspect-store';
import { htmlSourceFields, storedSourceOf } from '../common/source-input';
import type { AnalysisResult } from './analysis-result';
import type { StoredFeature } from './code-result';
import { analyzeRoutes } from './routes';

const BASE = '/v1/inspect/analyze';

/** A version of a test: its number, its own id (for `/versions/{version_id}`) and when it was made. */
interface AnalysisVersion {
  version: number;
  id: string;
  created_at: string;
}

const filterFields = () => ({
  slug: text().optional(),
  support_type: oneOfValues(['y', 'a', 'n', 'u']).optional(),
  application_type: oneOfValues(['web', 'mobile', 'desktop']).optional(),
  group_by: oneOfValues(['notes']).optional(),
});
const testInput = schema(() => z.object({ test_id: z.string(), ...filterFields() }));
const versionInput = schema(() => z.object({ test_id: z.string(), version_id: z.string(), ...filterFields() }));
const createInput = schema(() => z.object(htmlSourceFields()));
const newVersionInput = schema(() => z.object({ test_id: z.string(), ...htmlSourceFields() }));
const resolveInput = schema(() => z.object({ test_id: z.string(), id: z.string(), resolved: flag() }));
const listInput = schema(() => {
  const { skip } = skipLimitInput(100, 1000);
  return z.object({
    skip,
    // Required by Mailgun's documentation (contract §4).
    limit: integer().refine((n) => n >= 1 && n <= 1000, { message: 'must be between 1 and 1000' }),
    status: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), oneOfValues(['processing', 'completed', 'failed'], 'must be one of Processing, Completed, Failed')).optional(),
  });
});
const plainIdInput = schema(() => z.object({ test_id: z.string() }));

const versionsOf = (test: InspectTest) => (test.meta?.['versions'] as AnalysisVersion[] | undefined) ?? [];

async function requireTest(accountId: string, id: string): Promise<InspectTest> {
  const test = await findTest(accountId, 'analyze', id);
  if (!test) throw new NotFound(`Test ${id} not found`);
  return test;
}

/** A version's status and features: its stored result once its run ended, else still Processing. */
async function versionState(test: InspectTest, version: number): Promise<{ status: 'Processing' | 'Completed' | 'Failed'; features: StoredFeature[] }> {
  const result = await readResult<AnalysisResult>(test, version);
  return result ? { status: result.status, features: result.features } : { status: 'Processing', features: [] };
}

type Filters = z.infer<ReturnType<typeof testInput>>;

async function codeResult(test: InspectTest, version: number, filters: Filters) {
  const state = await versionState(test, version);
  // caniemail's data (about 1 MB of JSON) is a side bundle of this Lambda (lib/side-bundles.ts): read per result, not per request.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { presentCodeResult } = require('./code-data') as typeof import('./code-data');
  return presentCodeResult({ id: test.id, version, status: state.status, features: state.features }, { slug: filters.slug, support_type: filters.support_type, application_type: filters.application_type, group_by: filters.group_by });
}

export const handler = areaHandler(analyzeRoutes, {
  dictionary: operation(() => z.object({}).passthrough(), async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { dictionary } = require('./code-data') as typeof import('./code-data');
    return dictionary();
  }),

  listAnalyses: operation(listInput, async (req, input) => {
    const all = (await listTests(req.accountId, 'analyze')).filter((test) => !input.status || test.status.toLowerCase() === input.status);
    const query = input.status ? { status: input.status } : {};
    return {
      meta: { count: all.length, paging: skipLimitPaging(req.baseUrl, BASE, input.skip, input.limit, all.length, query) },
      items: all.slice(input.skip, input.skip + input.limit).map((test) => ({ test_id: test.id, status: test.status, version: test.run, created_at: test.createdAt, links: selfLink(BASE, test.id) })),
    };
  }),

  createAnalysis: operation(createInput, async (req, input) => {
    const now = Date.now();
    const versions: AnalysisVersion[] = [{ version: 1, id: objectId(now), created_at: new Date(now).toISOString() }];
    const test = await createTest(req.accountId, 'analyze', await storedSourceOf(input), { versions }, now);
    return { meta: { status: test.status, version: 1 }, items: { id: test.id, links: selfLink(BASE, test.id) } };
  }),

  createAnalysisVersion: operation(newVersionInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    const source = await storedSourceOf(input);
    const now = Date.now();
    const versions = [...versionsOf(test), { version: test.run + 1, id: objectId(now), created_at: new Date(now).toISOString() }];
    const next = await rerunTest(test, source, { versions }, now);
    return { meta: { status: next.status, version: next.run }, items: { id: test.id, links: selfLink(BASE, test.id) } };
  }),

  getAnalysis: operation(testInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    return codeResult(test, test.run, input);
  }),

  listAnalysisVersions: operation(plainIdInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    const versions = versionsOf(test);
    return {
      meta: { count: versions.length },
      items: { versions: versions.map((v) => ({ id: v.id, version: v.version, created_at: v.created_at, links: { self: `${BASE}/${test.id}/versions/${v.id}` } })) },
    };
  }),

  getAnalysisVersion: operation(versionInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    const version = versionsOf(test).find((v) => v.id === input.version_id || String(v.version) === input.version_id);
    if (!version) throw new NotFound(`Version ${input.version_id} of test ${input.test_id} not found`);
    return codeResult(test, version.version, input);
  }),

  resolveInstance: operation(resolveInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.test_id);
    const result = await readResult<AnalysisResult>(test, test.run);
    if (!result) throw new BadRequest('The latest version is still processing; resolve its instances once it has completed');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { resolveInstance } = require('./code-data') as typeof import('./code-data');
    if (!resolveInstance(result.features, input.id, input.resolved)) throw new NotFound(`Instance ${input.id} not found in the latest version of test ${input.test_id}`);
    await putJson(resultKey(test, test.run), result);
    return codeResult(test, test.run, { test_id: test.id });
  }),

  deleteAnalysis: operation(plainIdInput, async (req, input) => {
    await deleteTest(await requireTest(req.accountId, input.test_id));
    return { message: `Test ${input.test_id} has been successfully deleted.` };
  }),
}, { onBehalfOf });
