import { putItem, putItems } from '../../data/store';
import { putBytes } from '../common/inspect-store';
import { logger } from '../../platform/logger';
import type { ClientInfo } from './catalog';
import { DEFAULT_CLIENT_IDS } from './clients';
import { startContentChecks } from './content-checks';
import { bounceClient, contentKey, PREVIEW_RETENTION_SECONDS, previewTestId, REPROCESS_BUDGET, startRenders, type CheckKind, type PreviewClientState, type PreviewTest, previewKeys } from './preview-store';
import { realClientTier } from './real-clients/real-client-tier';

export interface NewPreviewTest {
  accountId: string;
  subject: string;
  html: string;
  clients: ClientInfo[];
  imageBlocking: boolean;
  headers: Record<string, string>;
  referenceId?: string;
  customerId?: string;
  checks: Partial<Record<CheckKind, boolean | undefined>>;
  /** Fields kept as given (spam, user_id, folder_id, project_name); undefined ones are left out. */
  extra?: Record<string, unknown>;
  /** A fixed id (a received message's, so a redelivery makes the same test); random otherwise. */
  id?: string;
}

export const asList = (value: string | string[]) => (Array.isArray(value) ? value : value.split(',')).map((v) => v.trim()).filter(Boolean);

/**
 * The clients a test renders, from the catalog (previewCatalog): its defaults when none are named;
 * unknown ids become warnings, not failures (contract §5.2).
 */
export function chooseClients(asked: string[] | undefined, catalog: ReadonlyMap<string, ClientInfo>): { clients: ClientInfo[]; warnings: Array<{ name: string; message: string }> } {
  const unique = asked === undefined ? DEFAULT_CLIENT_IDS : [...new Set(asked)];
  return {
    clients: unique.flatMap((id) => (catalog.has(id) ? [catalog.get(id)!] : [])),
    warnings: unique.filter((id) => !catalog.has(id)).map((id) => ({ name: 'invalid_client', message: `Unknown client id: ${id}` })),
  };
}

/**
 * Stores a preview test (its HTML in S3, the test and one item per client), starts the content
 * checks it asks for and the workflow that renders its clients. Answers undefined when a test
 * with the given fixed id exists already (a received message handled twice).
 */
export async function createPreviewTest(spec: NewPreviewTest, now = Date.now()): Promise<{ test: PreviewTest; spamKey?: string } | undefined> {
  const id = spec.id ?? previewTestId();
  const ttl = Math.floor(now / 1000) + PREVIEW_RETENTION_SECONDS;
  await putBytes(contentKey(spec.accountId, id), Buffer.from(spec.html, 'utf8'), 'text/html; charset=utf-8');
  const spam = spec.extra?.['spam'] as Record<string, unknown> | undefined;
  const spamKey = spam ? previewTestId().slice(0, 24) : undefined;
  const extra = Object.fromEntries(Object.entries({ ...spec.extra, ...(spam ? { spam: { ...spam, key: spamKey } } : {}) }).filter(([, v]) => v !== undefined));
  const test: PreviewTest = {
    accountId: spec.accountId,
    id,
    subject: spec.subject,
    date: Math.floor(now / 1000),
    createdAt: new Date(now).toISOString(),
    ttl,
    clients: spec.clients.map((c) => c.id),
    imageBlocking: spec.imageBlocking,
    headers: spec.headers,
    ...(spec.referenceId ? { referenceId: spec.referenceId } : {}),
    ...(spec.customerId ? { customerId: spec.customerId } : {}),
    contentChecking: { link_validation: null, image_validation: null, accessibility: null, code_analysis: null },
    extra,
  };
  const states: PreviewClientState[] = spec.clients.map((c) => ({ accountId: spec.accountId, testId: id, clientId: c.id, status: 'Processing', run: 1, attempts: 0, submitted: test.date, reprocessesLeft: REPROCESS_BUDGET, ttl, ...(c.service ? { real: c } : {}) }));
  // Claimed first: a second delivery of the same message stops here, before it touches anything.
  if (!(await putItem(previewKeys.previewTest(spec.accountId, id), test, { ifAbsent: true }))) return undefined;
  await putItems(states.map((state) => ({ key: previewKeys.previewClient(spec.accountId, id, state.clientId), item: state })));
  await startRealTest(test, spec, states, now);
  test.contentChecking = await startContentChecks(spec.accountId, spec.html, spec.checks);
  if (Object.values(test.contentChecking).some(Boolean)) await putItem(previewKeys.previewTest(spec.accountId, id), test);
  // A start that fails leaves the clients processing: the 3-minute rule re-queues them on the next read.
  await startRenders(states);
  return { test, spamKey };
}

/**
 * The real clients' part of a test, made at their service; their render tasks then wait for its
 * results. If the service refuses, those clients are bounced with its answer: nothing waits forever.
 */
async function startRealTest(test: PreviewTest, spec: NewPreviewTest, states: PreviewClientState[], now: number): Promise<void> {
  const real = states.filter((state) => state.real);
  if (!real.length) return;
  try {
    const tier = await realClientTier();
    if (!tier) throw new Error('The real-client service is no longer configured');
    const remoteId = await tier.createTest({ subject: spec.subject, html: spec.html, clients: real.map((state) => state.clientId), imageBlocking: spec.imageBlocking });
    test.realTest = { service: tier.name, remoteId };
    await putItem(previewKeys.previewTest(spec.accountId, test.id), test);
  } catch (error) {
    logger.warn('the real-client service did not take the test', { testId: test.id, error: (error as Error).message });
    for (const state of real) await bounceClient(state, 'service_error', (error as Error).message, now);
  }
}
