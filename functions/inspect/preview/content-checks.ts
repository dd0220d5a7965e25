import { objectId } from '../../platform/ids';
import { createTest, deleteTest, findTest, type InspectKind } from '../common/inspect-store';
import type { CheckKind, CheckRef } from './preview-store';

/** Each content check a preview test can start (contract §5.2), and the inspection test it is. */
const CHECKS: ReadonlyArray<{ check: CheckKind; kind: InspectKind; path: string; input: (html: string) => { input: unknown; meta?: Record<string, unknown> } }> = [
  { check: 'link_validation', kind: 'links', path: 'links', input: (html) => ({ input: { html, userAgent: null } }) },
  { check: 'image_validation', kind: 'images', path: 'images', input: (html) => ({ input: { html } }) },
  { check: 'accessibility', kind: 'accessibility', path: 'accessibility', input: (html) => ({ input: { html } }) },
  {
    check: 'code_analysis',
    kind: 'analyze',
    path: 'analyze',
    input: (html) => {
      const now = Date.now();
      return { input: { html }, meta: { versions: [{ version: 1, id: objectId(now), created_at: new Date(now).toISOString() }] } };
    },
  },
];

/**
 * Starts the content checks a preview test asks for as ordinary inspection tests (issue 13's
 * worker runs them), and answers each as the test's info shows it: a reference to the test, the
 * error that kept it from starting, or null when not asked for.
 */
export async function startContentChecks(accountId: string, html: string, wanted: Partial<Record<CheckKind, boolean | undefined>>): Promise<Record<CheckKind, CheckRef>> {
  const out = {} as Record<CheckKind, CheckRef>;
  for (const { check, kind, path, input } of CHECKS) {
    if (!wanted[check]) {
      out[check] = null;
      continue;
    }
    try {
      const made = input(html);
      const test = await createTest(accountId, kind, made.input, made.meta);
      out[check] = { items: { id: test.id, links: { self: `/v1/inspect/${path}/${test.id}` } } };
    } catch (error) {
      out[check] = { errors: [{ status: '500', title: 'processing_error', detail: (error as Error).message }] };
    }
  }
  return out;
}

/** Deleting a preview test deletes its content checks (spec: "deletes test and its content checking"). */
export async function deleteContentChecks(accountId: string, checks: Record<CheckKind, CheckRef>): Promise<void> {
  for (const { check, kind } of CHECKS) {
    const ref = checks[check];
    if (!ref || !('items' in ref)) continue;
    const test = await findTest(accountId, kind, ref.items.id);
    if (test) await deleteTest(test);
  }
}
