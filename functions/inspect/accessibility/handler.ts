import { z } from 'zod/v3';
import { ApiError, NotFound } from '../../platform/errors';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { Reply } from '../../platform/http/reply';
import { schema } from '../../platform/http/params';
import { selfLink, skipLimitPaging } from '../common/envelope';
import { ensureHtmlSize } from '../common/inspect-input';
import { createTest, deleteTest, findTest, listTests, PROCESSING, readResult, type InspectTest } from '../common/inspect-store';
import { listPageInput } from '../common/list-query';
import type { A11yReport } from './axe-runner';
import { accessibilityRoutes } from './routes';

const BASE = '/v1/inspect/accessibility';

/** Accessibility's create refuses in its own shape (contract §0): `{"errors":[{"status","title","detail":[...]}]}`. */
class AccessibilityInputError extends ApiError {
  constructor(private readonly details: string[]) {
    super(400, details.join('; '));
  }

  override body(): Record<string, unknown> {
    return { errors: [{ status: '400', title: 'Bad Request', detail: this.details }], message: this.message };
  }
}

const idInput = schema(() => z.object({ id: z.string() }));
const listInput = schema(listPageInput);
// Checked by hand below, so that every problem is listed in the route's own error shape.
const createInput = schema(() => z.object({}).passthrough());

function htmlOf(body: Record<string, unknown>): string {
  const problems: string[] = [];
  const { html, encoded } = body;
  if (typeof html !== 'string' || !html.trim()) problems.push("'html' is required: the email's HTML as a string");
  if (encoded !== undefined && typeof encoded !== 'boolean' && encoded !== 'true' && encoded !== 'false') problems.push("'encoded' must be true or false");
  if (problems.length) throw new AccessibilityInputError(problems);
  const isEncoded = encoded === true || encoded === 'true';
  if (!isEncoded) return ensureHtmlSize(html as string);
  const compact = (html as string).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) throw new AccessibilityInputError(["'html' is not valid base64, as 'encoded' says it is"]);
  return ensureHtmlSize(Buffer.from(compact, 'base64').toString('utf8'));
}

async function requireTest(accountId: string, id: string): Promise<InspectTest> {
  const test = await findTest(accountId, 'accessibility', id);
  if (!test) throw new NotFound(`Accessibility test with id ${id} not found`);
  return test;
}

const count = (test: InspectTest, name: string) => (typeof test.summary?.[name] === 'number' ? (test.summary[name] as number) : 0);

export const handler = areaHandler(accessibilityRoutes, {
  createAccessibilityTest: operation(createInput, async (req, input) => {
    const test = await createTest(req.accountId, 'accessibility', { html: htmlOf(input as Record<string, unknown>) });
    // 201 on this route alone, as Mailgun documents it (contract §0).
    return new Reply(201, { meta: { created_at: test.createdAt, status: test.status }, items: { id: test.id, links: selfLink(BASE, test.id) } });
  }),

  listAccessibilityTests: operation(listInput, async (req, input) => {
    const all = await listTests(req.accountId, 'accessibility');
    return {
      meta: { count: all.length },
      paging: skipLimitPaging(req.baseUrl, BASE, input.skip, input.limit, all.length),
      items: all.slice(input.skip, input.skip + input.limit).map((test) => ({
        id: test.id,
        status: test.status,
        checks: count(test, 'checks'),
        passes: count(test, 'passes'),
        failures: count(test, 'failures'),
        needs_review: count(test, 'needs_review'),
        created_at: test.createdAt,
        updated_at: test.updatedAt,
      })),
    };
  }),

  getAccessibilityTest: operation(idInput, async (req, input) => {
    const test = await requireTest(req.accountId, input.id);
    const report = test.status === PROCESSING ? undefined : await readResult<A11yReport>(test, test.run);
    return { meta: { created_at: test.createdAt, status: test.status, updated_at: test.updatedAt, ...(test.error ? { error: test.error } : {}) }, items: report ? [report] : [] };
  }),

  deleteAccessibilityTest: operation(idInput, async (req, input) => {
    await deleteTest(await requireTest(req.accountId, input.id));
    return { message: `Accessibility test with test id ${input.id} has been successfully deleted.` };
  }),
}, { onBehalfOf });
